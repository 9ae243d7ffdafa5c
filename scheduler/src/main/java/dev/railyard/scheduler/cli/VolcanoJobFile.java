package dev.railyard.scheduler.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.railyard.api.volcano.PodGroup;
import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.GangRequest;
import dev.railyard.scheduler.engine.HcaResource;
import dev.railyard.scheduler.engine.NodeState;
import dev.railyard.scheduler.engine.PlacementPolicy;
import dev.railyard.scheduler.engine.PodRequest;
import dev.railyard.scheduler.ipam.PodNetworksRequest;
import dev.railyard.topology.InputException;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads Volcano Jobs ({@code batch.volcano.sh/v1alpha1}, one or more YAML documents) into gang requests: one pod per
 * task replica, named {@code <job>-<task>-<index>} as Volcano names them, in task order; the PodGroup's
 * {@code minMember} from {@code spec.minAvailable} and {@code networkTopology} from the job's. Fields Railyard does
 * not use are ignored.
 */
final class VolcanoJobFile {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /** One Volcano Job as the engine needs it. */
    record VolcanoJob(String namespace, String name, Map<String, String> annotations, PodGroup podGroup,
                      List<Task> tasks) {
    }

    /** One task: replicas of one pod template. */
    record Task(String name, int replicas, Map<String, String> annotations, int gpus, Map<String, Long> resources,
                boolean hostNetwork) {
    }

    private VolcanoJobFile() {
    }

    /**
     * @param in   YAML text, documents separated by {@code ---}
     * @param name file name for messages
     * @throws InputException naming the file, document and field when a job is malformed
     */
    static List<VolcanoJob> read(InputStream in, String name) {
        List<VolcanoJob> jobs = new ArrayList<>();
        try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(in)) {
            int doc = 0;
            while (it.hasNextValue()) {
                JsonNode n = it.nextValue();
                doc++;
                if (n == null || n.isNull() || n.isMissingNode()) {
                    continue;
                }
                jobs.add(job(n, name + " document " + doc));
            }
        } catch (JsonProcessingException e) {
            var loc = e.getLocation();
            throw new InputException(name + (loc == null ? "" : " line " + loc.getLineNr() + ", column "
                    + loc.getColumnNr()) + ": " + e.getOriginalMessage().lines().findFirst().orElse(""), e);
        } catch (IOException e) {
            throw new InputException(name + ": cannot read: " + e.getMessage(), e);
        }
        return jobs;
    }

    private static VolcanoJob job(JsonNode n, String where) {
        if (!"Job".equals(n.path("kind").asText()) || !n.path("apiVersion").asText().startsWith("batch.volcano.sh/")) {
            throw new InputException(where + ": not a Volcano Job (apiVersion batch.volcano.sh/v1alpha1, kind Job)");
        }
        JsonNode meta = n.path("metadata");
        String name = text(meta, "name", where + ": metadata.name");
        String ns = meta.path("namespace").asText("default");
        Map<String, String> ann = strings(meta.path("annotations"));
        JsonNode spec = n.path("spec");
        PodGroup.NetworkTopology nt = null;
        JsonNode topo = spec.path("networkTopology");
        if (topo.isObject()) {
            try {
                nt = new PodGroup.NetworkTopology(PodGroup.NetworkTopologyMode.parse(topo.path("mode").asText(null)),
                        topo.has("highestTierAllowed") ? topo.get("highestTierAllowed").asInt() : null,
                        topo.has("highestTierName") ? topo.get("highestTierName").asText() : null);
            } catch (IllegalArgumentException e) {
                throw new InputException(where + " (job " + ns + "/" + name + "): spec." + e.getMessage());
            }
        }
        List<Task> tasks = new ArrayList<>();
        int total = 0;
        for (JsonNode t : spec.path("tasks")) {
            String tname = text(t, "name", where + ": a task's name");
            int replicas = t.path("replicas").asInt(1);
            JsonNode tpl = t.path("template");
            Map<String, String> tann = strings(tpl.path("metadata").path("annotations"));
            long gpus = 0;
            Map<String, Long> res = new LinkedHashMap<>();
            for (JsonNode c : tpl.path("spec").path("containers")) {
                JsonNode r = c.path("resources").path("requests");
                if (!r.isObject() || r.isEmpty()) {
                    r = c.path("resources").path("limits");
                }
                for (var e : r.properties()) {
                    long v = quantity(e.getValue(), where + ": task " + tname + " resource " + e.getKey());
                    if (e.getKey().equals("nvidia.com/gpu")) {
                        gpus += v;
                    } else {
                        res.merge(e.getKey(), v, Long::sum);
                    }
                }
            }
            if (gpus > Integer.MAX_VALUE) {
                throw new InputException(where + ": task " + tname + " resource nvidia.com/gpu: " + gpus
                        + " is more GPUs than Railyard counts (at most " + Integer.MAX_VALUE + ")");
            }
            tasks.add(new Task(tname, replicas, tann, (int) gpus, res,
                    tpl.path("spec").path("hostNetwork").asBoolean(false)));
            total += replicas;
        }
        if (tasks.isEmpty()) {
            throw new InputException(where + " (job " + ns + "/" + name + "): spec.tasks is empty");
        }
        int min = spec.path("minAvailable").asInt(total);
        return new VolcanoJob(ns, name, ann, new PodGroup(ns, name, min, nt, Map.of()), tasks);
    }

    /**
     * @return the gang: every replica of every task, the RDMA resources kept being those some node of the snapshot
     * advertises (or named {@code rdma/...})
     */
    static GangRequest gang(VolcanoJob job, ClusterSnapshot snapshot) {
        Set<String> rdma = new HashSet<>();
        for (NodeState n : snapshot.nodes()) {
            for (HcaResource r : n.hcaResources()) {
                rdma.add(r.resource());
            }
        }
        List<PodRequest> pods = new ArrayList<>();
        Map<String, String> podAnn = null;
        for (Task t : job.tasks()) {
            Map<String, Long> res = new LinkedHashMap<>();
            t.resources().forEach((k, v) -> {
                if (rdma.contains(k) || k.startsWith("rdma/")) {
                    res.put(k, v);
                }
            });
            if (podAnn == null) {
                podAnn = t.annotations();
            }
            PodNetworksRequest nets = PodNetworksRequest.of(job.namespace(), t.annotations());
            for (int i = 0; i < t.replicas(); i++) {
                pods.add(new PodRequest(job.namespace(), job.name() + "-" + t.name() + "-" + i, t.gpus(), res, nets,
                        t.hostNetwork()));
            }
        }
        PlacementPolicy policy = PlacementPolicy.resolve(job.annotations(), job.podGroup(), podAnn,
                snapshot.fabric());
        return new GangRequest(job.namespace(), job.name(), pods, policy);
    }

    private static String text(JsonNode n, String field, String what) {
        JsonNode v = n.path(field);
        if (!v.isTextual() || v.asText().isBlank()) {
            throw new InputException(what + " is missing");
        }
        return v.asText();
    }

    private static Map<String, String> strings(JsonNode n) {
        Map<String, String> m = new LinkedHashMap<>();
        if (n.isObject()) {
            for (var e : n.properties()) {
                m.put(e.getKey(), e.getValue().asText());
            }
        }
        return m;
    }

    private static long quantity(JsonNode v, String what) {
        String s = v.asText().trim();
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new InputException(what + ": '" + s + "' is not a whole number");
        }
    }
}
