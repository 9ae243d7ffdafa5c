package dev.railyard.scheduler.explain;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.railyard.api.volcano.PodGroup;
import dev.railyard.scheduler.cluster.PodView;
import dev.railyard.scheduler.cluster.VolcanoObjectConverter;
import dev.railyard.scheduler.engine.PlacementPolicy;
import dev.railyard.topology.InputException;
import dev.railyard.topology.fabric.FabricModel;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Volcano Job ({@code batch.volcano.sh/v1alpha1}, kind {@code Job}; docs/formats/volcano-job.md §1) turned into
 * what Volcano would create for it (docs/formats/volcano-job.md §2, {@code job_controller_util.go createJobPod},
 * {@code job_controller_actions.go createOrUpdatePodGroup}): per task, {@code replicas} pods named
 * {@code <job>-<task>-<index>} from the task's template, carrying Volcano's labels and annotations
 * ({@code scheduling.k8s.io/group-name}, {@code volcano.sh/task-spec}, {@code volcano.sh/task-index},
 * {@code volcano.sh/job-name}, {@code volcano.sh/queue-name}) besides the template's own (multus networks,
 * {@code railyard.dev/} hints); and a PodGroup with {@code minMember = spec.minAvailable} (default: every replica, as
 * Volcano's admission webhook sets it), the Job's {@code networkTopology} and the Job's annotations. The PodGroup is
 * named {@code <job>-<uid>} when the Job has a UID, else after the Job. Another {@code apiVersion} and keys Volcano
 * does not know are refused ({@link VolcanoJobKeys}).
 */
public final class VolcanoJobTemplate {
    private static final ObjectMapper YAML = YAMLMapper.builder(new YAMLFactory())
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

    /**
     * One Job as Volcano would expand it.
     *
     * @param namespace   the Job's namespace ({@code default} when unset)
     * @param name        the Job's name
     * @param annotations the Job's annotations
     * @param podGroup    the PodGroup Volcano would create
     * @param pods        the pods, in task order then index (rank order)
     * @param where       where the Job was read, for messages
     */
    public record Job(String namespace, String name, Map<String, String> annotations, PodGroup podGroup,
                      List<GenericKubernetesResource> pods, String where) {
        public Job {
            annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
            pods = List.copyOf(pods);
        }

        /** @return {@code namespace/name} */
        public String key() {
            return namespace + "/" + name;
        }
    }

    private VolcanoJobTemplate() {
    }

    /**
     * Reads every Volcano Job of a YAML or JSON file (several documents, or a {@code List}), in file order.
     *
     * @throws InputException naming the file, the line and column, or the document and field, when the file cannot
     *                        be read, a document is not a Volcano Job, or a Job is malformed; or when the file holds
     *                        no Job
     */
    public static List<Job> read(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return read(in, file.toString());
        } catch (IOException e) {
            throw InputException.reading(file.toString(), e);
        }
    }

    /**
     * {@link #read(Path)} from a stream.
     *
     * @param name the file's name, for messages
     */
    public static List<Job> read(InputStream in, String name) {
        List<Job> jobs = new ArrayList<>();
        try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(in)) {
            int doc = 0;
            while (it.hasNextValue()) {
                JsonNode n = it.nextValue();
                doc++;
                if (n == null || n.isNull() || n.isMissingNode()) {
                    continue;
                }
                String where = name + " document " + doc;
                if (n.isObject() && n.path("kind").asText("").endsWith("List") && n.path("items").isArray()) {
                    for (int i = 0; i < n.get("items").size(); i++) {
                        jobs.add(of(resource(n.get("items").get(i), where + " items[" + i + "]"),
                                where + " items[" + i + "]"));
                    }
                } else {
                    jobs.add(of(resource(n, where), where));
                }
            }
        } catch (IOException e) {
            // Jackson's exceptions included: line and column, no Java exception names ("not UTF-8 text")
            throw InputException.reading(name, e);
        }
        if (jobs.isEmpty()) {
            throw new InputException(name + ": no Volcano Job in it");
        }
        return jobs;
    }

    private static GenericKubernetesResource resource(JsonNode n, String where) {
        if (!n.isObject()) {
            throw new InputException(where + ": not an object");
        }
        try {
            return YAML.treeToValue(n, GenericKubernetesResource.class);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            String m = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
            throw new InputException(where + ": " + m.lines().findFirst().orElse(""), e);
        }
    }

    /**
     * Expands one Job.
     *
     * @param job   the Job in generic form
     * @param where where it was read (file and document, or {@code cluster}), for messages
     * @throws InputException naming {@code where}, the Job and the field when it is not a Volcano Job
     *                        ({@code batch.volcano.sh/v1alpha1}) or is malformed: no name, no tasks, a task without
     *                        name or template, replicas or minAvailable not a whole number ≥ 0, a bad
     *                        networkTopology, a resource quantity that cannot be read, a key Volcano does not know
     *                        (with the closest known one, {@link VolcanoJobKeys})
     */
    public static Job of(GenericKubernetesResource job, String where) {
        VolcanoJobKeys.checkKind(job.getApiVersion(), job.getKind(), where);
        if (job.getMetadata() == null || job.getMetadata().getName() == null || job.getMetadata().getName().isBlank()) {
            throw new InputException(where + ": the Job has no metadata.name");
        }
        String name = job.getMetadata().getName();
        String ns = job.getMetadata().getNamespace() == null || job.getMetadata().getNamespace().isBlank()
                ? "default" : job.getMetadata().getNamespace();
        String at = where + " (Job " + ns + "/" + name + ")";
        List<String> top = new ArrayList<>(List.of("apiVersion", "kind", "metadata"));
        top.addAll(job.getAdditionalProperties().keySet());
        VolcanoJobKeys.check(top, VolcanoJobKeys.TOP, "", at);
        Map<String, String> annotations = job.getMetadata().getAnnotations() == null ? Map.of()
                : job.getMetadata().getAnnotations();
        hints(annotations, null, at + ": metadata.annotations");
        Map<String, Object> spec = map(job.getAdditionalProperties().get("spec"));
        VolcanoJobKeys.check(spec, VolcanoJobKeys.SPEC, "spec", at);
        String uid = job.getMetadata().getUid();
        Expansion x = new Expansion(ns, name, uid == null || uid.isBlank() ? name : name + "-" + uid,
                text(spec.get("queue")) == null || text(spec.get("queue")).isBlank() ? "default"
                        : text(spec.get("queue")), text(spec.get("schedulerName")), at);
        Object tasksRaw = spec.get("tasks");
        if (!(tasksRaw instanceof List<?> tasks) || tasks.isEmpty()) {
            throw new InputException(at + ": spec.tasks is missing or empty");
        }
        List<GenericKubernetesResource> pods = new ArrayList<>();
        for (int t = 0; t < tasks.size(); t++) {
            pods.addAll(x.taskPods(map(tasks.get(t)), "spec.tasks[" + t + "]"));
        }
        if (pods.isEmpty()) {
            throw new InputException(at + ": every task has 0 replicas");
        }
        int min = whole(spec.get("minAvailable"), pods.size(), at + ": spec.minAvailable");
        if (min > pods.size()) {
            // Volcano's job admission refuses this too (minAvailable greater than the sum of replicas)
            throw new InputException(at + ": spec.minAvailable " + min + " is more than the job's " + pods.size()
                    + " pods");
        }
        PodGroup.NetworkTopology nt;
        try {
            VolcanoJobKeys.check(map(spec.get("networkTopology")), VolcanoJobKeys.NETWORK_TOPOLOGY,
                    "spec.networkTopology", at);
            nt = VolcanoObjectConverter.networkTopology(spec.get("networkTopology"), "spec.networkTopology");
        } catch (IllegalArgumentException e) {
            throw new InputException(at + ": " + e.getMessage(), e);
        }
        PodGroup pg = new PodGroup(ns, x.podGroupName(), min, nt, annotations);
        return new Job(ns, name, annotations, pg, pods, where);
    }

    /** What every pod of one Job shares, and the expansion of one task into its pods. */
    private record Expansion(String ns, String job, String podGroupName, String queue, String schedulerName,
                             String at) {
        List<GenericKubernetesResource> taskPods(Map<String, Object> task, String tw) {
            VolcanoJobKeys.check(task, VolcanoJobKeys.TASK, tw, at);
            String tname = text(task.get("name"));
            if (tname == null || tname.isBlank()) {
                throw new InputException(at + ": " + tw + ".name is missing");
            }
            int replicas = whole(task.get("replicas"), 1, at + ": " + tw + ".replicas");
            Object tpl = task.get("template");
            if (!(tpl instanceof Map<?, ?>)) {
                throw new InputException(at + ": " + tw + " (task " + tname + ").template is missing");
            }
            VolcanoJobKeys.check(map(tpl), VolcanoJobKeys.TEMPLATE, tw + ".template", at);
            Map<String, Object> tmeta = map(map(tpl).get("metadata"));
            hints(null, strings(tmeta.get("annotations")), at + ": " + tw + " (task " + tname
                    + ").template.metadata.annotations");
            Map<String, Object> tspec = map(map(tpl).get("spec"));
            if (!(tspec.get("containers") instanceof List<?>)) {
                throw new InputException(at + ": " + tw + " (task " + tname + ").template.spec.containers is missing");
            }
            List<GenericKubernetesResource> pods = new ArrayList<>();
            for (int i = 0; i < replicas; i++) {
                pods.add(pod(tname, i, tmeta, tspec));
            }
            return pods;
        }

        private GenericKubernetesResource pod(String tname, int i, Map<String, Object> tmeta,
                                              Map<String, Object> tspec) {
            Map<String, String> labels = new LinkedHashMap<>(strings(tmeta.get("labels")));
            labels.put("volcano.sh/job-name", job);
            labels.put("volcano.sh/job-namespace", ns);
            labels.put("volcano.sh/queue-name", queue);
            labels.put(PodView.TASK_SPEC_ANNOTATION, tname);
            labels.put(PodView.TASK_INDEX_ANNOTATION, Integer.toString(i));
            Map<String, String> ann = new LinkedHashMap<>(strings(tmeta.get("annotations")));
            ann.put(PodView.GROUP_NAME_ANNOTATION, podGroupName);
            ann.put(PodView.TASK_SPEC_ANNOTATION, tname);
            ann.put(PodView.TASK_INDEX_ANNOTATION, Integer.toString(i));
            ann.put(PodView.JOB_NAME_ANNOTATION, job);
            ann.put("volcano.sh/queue-name", queue);
            Map<String, Object> podSpec = new LinkedHashMap<>(tspec);
            if (schedulerName != null && !podSpec.containsKey("schedulerName")) {
                podSpec.put("schedulerName", schedulerName);
            }
            GenericKubernetesResource pod = new GenericKubernetesResource();
            pod.setApiVersion("v1");
            pod.setKind("Pod");
            pod.setMetadata(new ObjectMetaBuilder().withNamespace(ns).withName(job + "-" + tname + "-" + i)
                    .withLabels(labels).withAnnotations(ann).build());
            pod.setAdditionalProperty("spec", podSpec);
            try {
                PodView.of(pod);
                PodView.checkDeviceLimits(pod);
            } catch (IllegalArgumentException e) {
                throw new InputException(at + ": task " + tname + ": " + e.getMessage(), e);
            }
            return pod;
        }
    }

    /**
     * Checks the {@code railyard.dev/} hint annotations of the Job or of one task template on their own, so that a
     * bad value is named with the Job, the task and the file it is in (the gang's policy is resolved later from the
     * Job and the first pod, where the place is no longer known).
     *
     * @throws InputException {@code <where>: annotation railyard.dev/...: '<value>' is not ...}
     */
    private static void hints(Map<String, String> jobAnnotations, Map<String, String> podAnnotations, String where) {
        try {
            PlacementPolicy.resolve(jobAnnotations, null, podAnnotations, FabricModel.empty());
        } catch (InputException e) {
            throw new InputException(where + ": " + e.getMessage(), e);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    private static String text(Object o) {
        return o instanceof String s ? s : o instanceof Number || o instanceof Boolean ? o.toString() : null;
    }

    private static Map<String, String> strings(Object o) {
        Map<String, String> out = new LinkedHashMap<>();
        map(o).forEach((k, v) -> {
            String t = text(v);
            if (t != null) {
                out.put(k, t);
            }
        });
        return out;
    }

    /**
     * An int32 count as Volcano's Job CRD types it ({@code type: integer, format: int32} for {@code minAvailable}
     * and {@code tasks[].replicas}, config/crd/bases/batch.volcano.sh_jobs.yaml, Volcano v1.10): a quoted number
     * is refused as the API server's schema validation refuses it, a number past int32 is named as such.
     */
    private static int whole(Object v, int dflt, String what) {
        if (v == null) {
            return dflt;
        }
        String t = text(v);
        if (v instanceof String s && s.trim().matches("[+-]?[0-9]+")) {
            throw new InputException(what + " \"" + s + "\" is a string; write it unquoted (the Volcano Job CRD types it"
                    + " as an integer, and the API server refuses a string)");
        }
        if (v instanceof Number num && !(v instanceof Double || v instanceof Float || v instanceof java.math.BigDecimal)) {
            java.math.BigInteger big = new java.math.BigInteger(num.toString());
            if (big.bitLength() > 31) {
                throw new InputException(what + " " + big + (big.signum() < 0 ? " is not a whole number ≥ 0"
                        : " exceeds int32 (max 2147483647)"));
            }
        }
        if (v instanceof Double || v instanceof Float || v instanceof java.math.BigDecimal) {
            throw new InputException(what + " '" + t + "' (read as a floating-point number) is not a whole number ≥ 0");
        }
        try {
            int n = Integer.parseInt(t == null ? "" : t.trim());
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new InputException(what + " '" + (t == null ? v : t) + "' is not a whole number ≥ 0");
        }
    }
}
