package dev.railyard.scheduler.cluster;

import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.api.hints.PlacementHint;
import dev.railyard.scheduler.engine.PodRequest;
import dev.railyard.scheduler.engine.RequiredNodeAffinity;
import dev.railyard.scheduler.ipam.PodNetworksRequest;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The fields of a core/v1 Pod that placement reads, taken from its generic form.
 *
 * <p>Requests are the pod's <em>effective</em> requests by Kubernetes' rule ({@code k8s.io/component-helpers}
 * {@code resource.PodRequests}): per container, {@code resources.requests}, with {@code resources.limits} standing in
 * for a resource that has a limit and no request (the API server's defaulting); summed over app containers and
 * restartable (sidecar, {@code restartPolicy: Always}) init containers; at least each other init container plus the
 * sidecars declared before it; plus {@code spec.overhead}. Amounts are in base units (devices for extended resources).
 *
 * @param namespace   {@code metadata.namespace}
 * @param name        {@code metadata.name}
 * @param node        {@code spec.nodeName}, or null when not bound
 * @param phase       {@code status.phase}, or empty when absent
 * @param terminating true when {@code metadata.deletionTimestamp} is set
 * @param labels      {@code metadata.labels}
 * @param annotations {@code metadata.annotations}
 * @param hostNetwork {@code spec.hostNetwork}
 * @param requests    effective requests, by resource name
 * @param nodeAffinity {@code spec.nodeSelector} and the required node affinity ({@link #nodeAffinity(Object)}); null
 *                    means any node
 * @param uid         {@code metadata.uid}, empty when absent (a hand-written snapshot)
 * @param schedulerName {@code spec.schedulerName}, empty when absent (the API server defaults it to
 *                    {@code default-scheduler})
 */
public record PodView(String namespace, String name, String node, String phase, boolean terminating,
                      Map<String, String> labels, Map<String, String> annotations, boolean hostNetwork,
                      Map<String, BigDecimal> requests, RequiredNodeAffinity nodeAffinity, String uid,
                      String schedulerName) {
    /** The NVIDIA device plugin's GPU resource. */
    public static final String GPU_RESOURCE = "nvidia.com/gpu";
    /** Volcano's pod annotation naming the PodGroup ({@code job_controller_util.go createJobPod}). */
    public static final String GROUP_NAME_ANNOTATION = "scheduling.k8s.io/group-name";
    /**
     * The scheduler-plugins coscheduling label naming the PodGroup ({@code scheduling.x-k8s.io/v1alpha1}
     * {@code PodGroupLabel}, kubernetes-sigs/scheduler-plugins {@code apis/scheduling/v1alpha1/types.go}).
     */
    public static final String COSCHEDULING_LABEL = "scheduling.x-k8s.io/pod-group";
    /** The same label of the older API group {@code scheduling.sigs.k8s.io}. */
    public static final String COSCHEDULING_LEGACY_LABEL = "pod-group.scheduling.sigs.k8s.io";
    /** Volcano's pod annotation with the task name. */
    public static final String TASK_SPEC_ANNOTATION = "volcano.sh/task-spec";
    /** Volcano's pod annotation with the replica index within the task. */
    public static final String TASK_INDEX_ANNOTATION = "volcano.sh/task-index";
    /** Volcano's pod annotation with the Volcano Job name. */
    public static final String JOB_NAME_ANNOTATION = "volcano.sh/job-name";

    /**
     * Annotations Railyard never reads and that can be large ({@code kubectl apply} keeps the whole manifest in
     * one): left out of the record so the cache does not hold them.
     */
    static final Set<String> UNREAD_ANNOTATIONS = Set.of("kubectl.kubernetes.io/last-applied-configuration");

    public PodView {
        namespace = Interner.of(namespace);
        node = Interner.of(node);
        phase = phase == null ? "" : Interner.of(phase);
        labels = Interner.map(labels);
        if (annotations != null && UNREAD_ANNOTATIONS.stream().anyMatch(annotations::containsKey)) {
            Map<String, String> kept = new LinkedHashMap<>(annotations);
            kept.keySet().removeAll(UNREAD_ANNOTATIONS);
            annotations = kept;
        }
        annotations = Interner.map(annotations);
        requests = requests == null || requests.isEmpty() ? Map.of()
                : Collections.unmodifiableMap(new TreeMap<>(requests));
        nodeAffinity = nodeAffinity == null ? RequiredNodeAffinity.ANY : nodeAffinity;
        uid = uid == null ? "" : uid;
        schedulerName = schedulerName == null ? "" : Interner.of(schedulerName);
    }

    /**
     * @param pod a Pod in generic form
     * @return its view
     * @throws IllegalArgumentException naming the container and resource when a quantity cannot be read, or when the
     *                                  pod has no name
     */
    public static PodView of(GenericKubernetesResource pod) {
        if (pod.getMetadata() == null || pod.getMetadata().getName() == null) {
            throw new IllegalArgumentException("pod has no metadata.name");
        }
        String ns = pod.getMetadata().getNamespace() == null ? "default" : pod.getMetadata().getNamespace();
        Object spec = ObjectFields.at(pod, "spec");
        String node = ObjectFields.text(ObjectFields.at(spec, "nodeName"));
        String phase = ObjectFields.text(ObjectFields.at(pod, "status", "phase"));
        boolean hostNetwork = Boolean.TRUE.equals(ObjectFields.at(spec, "hostNetwork"))
                || "true".equals(ObjectFields.text(ObjectFields.at(spec, "hostNetwork")));
        Map<String, BigDecimal> requests = effectiveRequests(spec);
        requests.forEach((resource, amount) -> {
            // extended resources (a domain-prefixed name outside kubernetes.io) are whole devices: the API server
            // refuses fractions and negative amounts (k8s.io/kubernetes pkg/apis/core/validation)
            if (isDevice(resource) && (amount.signum() < 0 || amount.stripTrailingZeros().scale() > 0)) {
                throw new IllegalArgumentException("pod " + ns + "/" + pod.getMetadata().getName() + ": " + resource
                        + " " + amount.toPlainString() + " is not a whole number of devices ≥ 0");
            }
            // each container was checked; this catches containers that only add up to too many
            if (isDevice(resource) && amount.compareTo(MAX_DEVICES) > 0) {
                throw new IllegalArgumentException("pod " + ns + "/" + pod.getMetadata().getName() + ": " + resource
                        + " " + amount.toPlainString() + " in total is more devices than Railyard counts (at most "
                        + MAX_DEVICES + ")");
            }
        });
        return new PodView(ns, pod.getMetadata().getName(), node == null || node.isEmpty() ? null : node, phase,
                pod.getMetadata().getDeletionTimestamp() != null, ObjectFields.labels(pod),
                ObjectFields.annotations(pod), hostNetwork, requests, nodeAffinity(spec), pod.getMetadata().getUid(),
                ObjectFields.text(ObjectFields.at(spec, "schedulerName")));
    }

    /**
     * Reads {@code spec.nodeSelector} and {@code spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution}
     * (core/v1 {@code NodeSelector}: {@code nodeSelectorTerms[].matchExpressions[]} and {@code matchFields[]}, each
     * {@code key}, {@code operator}, {@code values}). Entries of the wrong shape are read as empty, which matches
     * nothing where Kubernetes would refuse them ({@link RequiredNodeAffinity}).
     *
     * @param spec the pod's {@code spec}
     * @return the pod's node constraints; {@link RequiredNodeAffinity#ANY} when it has none
     */
    static RequiredNodeAffinity nodeAffinity(Object spec) {
        Map<String, String> selector = ObjectFields.strings(ObjectFields.at(spec, "nodeSelector"));
        Object required = ObjectFields.at(spec, "affinity", "nodeAffinity",
                "requiredDuringSchedulingIgnoredDuringExecution");
        if (selector.isEmpty() && !(required instanceof Map<?, ?>)) {
            return RequiredNodeAffinity.ANY;
        }
        List<RequiredNodeAffinity.Term> terms = null;
        if (required instanceof Map<?, ?>) {
            terms = new ArrayList<>();
            for (Object t : ObjectFields.list(ObjectFields.at(required, "nodeSelectorTerms"))) {
                terms.add(new RequiredNodeAffinity.Term(requirements(ObjectFields.at(t, "matchExpressions")),
                        requirements(ObjectFields.at(t, "matchFields"))));
            }
        }
        return new RequiredNodeAffinity(selector, terms);
    }

    private static List<RequiredNodeAffinity.Requirement> requirements(Object list) {
        List<RequiredNodeAffinity.Requirement> out = new ArrayList<>();
        for (Object r : ObjectFields.list(list)) {
            List<String> values = new ArrayList<>();
            for (Object v : ObjectFields.list(ObjectFields.at(r, "values"))) {
                String t = ObjectFields.text(v);
                if (t != null) {
                    values.add(t);
                }
            }
            out.add(new RequiredNodeAffinity.Requirement(ObjectFields.text(ObjectFields.at(r, "key")),
                    ObjectFields.text(ObjectFields.at(r, "operator")), values));
        }
        return out;
    }

    /** Kubernetes' effective pod requests (see the class comment). */
    static Map<String, BigDecimal> effectiveRequests(Object spec) {
        Map<String, BigDecimal> apps = new TreeMap<>();
        for (Object c : ObjectFields.list(ObjectFields.at(spec, "containers"))) {
            add(apps, containerRequests(c, "containers"));
        }
        Map<String, BigDecimal> sidecars = new TreeMap<>();
        Map<String, BigDecimal> initMax = new TreeMap<>();
        for (Object c : ObjectFields.list(ObjectFields.at(spec, "initContainers"))) {
            Map<String, BigDecimal> r = containerRequests(c, "initContainers");
            if ("Always".equals(ObjectFields.text(ObjectFields.at(c, "restartPolicy")))) {
                add(sidecars, r);
                max(initMax, sidecars);
            } else {
                Map<String, BigDecimal> withSidecars = new TreeMap<>(sidecars);
                add(withSidecars, r);
                max(initMax, withSidecars);
            }
        }
        Map<String, BigDecimal> out = new TreeMap<>(apps);
        add(out, sidecars);
        max(out, initMax);
        Map<String, Object> overhead = ObjectFields.map(ObjectFields.at(spec, "overhead"));
        for (var e : overhead.entrySet()) {
            out.merge(e.getKey(), quantity(e.getValue(), "spec.overhead." + e.getKey()), BigDecimal::add);
        }
        return out;
    }

    private static Map<String, BigDecimal> containerRequests(Object container, String list) {
        String cname = ObjectFields.text(ObjectFields.at(container, "name"));
        String where = list + "[" + (cname == null ? "?" : cname) + "].resources.";
        Map<String, BigDecimal> out = new TreeMap<>();
        Map<String, Object> requests = ObjectFields.map(ObjectFields.at(container, "resources", "requests"));
        Map<String, Object> limits = ObjectFields.map(ObjectFields.at(container, "resources", "limits"));
        for (var e : requests.entrySet()) {
            out.put(e.getKey(), devices(e.getKey(), quantity(e.getValue(), where + "requests." + e.getKey()),
                    where + "requests." + e.getKey()));
        }
        for (var e : limits.entrySet()) {
            if (!out.containsKey(e.getKey())) {
                out.put(e.getKey(), devices(e.getKey(), quantity(e.getValue(), where + "limits." + e.getKey()),
                        where + "limits." + e.getKey()));
            }
        }
        return out;
    }

    /**
     * What the API server would refuse in a pod written by hand (a Job file given to {@code explain}): an extended
     * resource whose request differs from its limit (Kubernetes validation: an extended resource cannot be
     * overcommitted, so a request must equal the limit; docs/formats/volcano-job.md §4). Pods read from the
     * cluster have passed that validation already.
     *
     * @param pod a Pod in generic form
     * @throws IllegalArgumentException {@code containers[<name>].resources: <resource> requests <r> but limits <l>:
     *                                  ...} for the first such resource
     */
    public static void checkDeviceLimits(GenericKubernetesResource pod) {
        Object spec = pod.getAdditionalProperties().get("spec");
        for (String list : List.of("initContainers", "containers")) {
            for (Object c : ObjectFields.list(ObjectFields.at(spec, list))) {
                String cname = ObjectFields.text(ObjectFields.at(c, "name"));
                Map<String, Object> requests = ObjectFields.map(ObjectFields.at(c, "resources", "requests"));
                Map<String, Object> limits = ObjectFields.map(ObjectFields.at(c, "resources", "limits"));
                for (var e : requests.entrySet()) {
                    Object limit = limits.get(e.getKey());
                    String where = list + "[" + (cname == null ? "?" : cname) + "].resources";
                    if (isDevice(e.getKey()) && limit != null && quantity(e.getValue(), where)
                            .compareTo(quantity(limit, where)) != 0) {
                        throw new IllegalArgumentException(where + ": " + e.getKey() + " requests " + e.getValue()
                                + " but limits " + limit + ": Kubernetes requires an extended resource's request "
                                + "to equal its limit");
                    }
                }
            }
        }
    }

    /** Most devices of one extended resource a pod may ask for: the engine counts GPUs in an {@code int}. */
    static final BigDecimal MAX_DEVICES = BigDecimal.valueOf(dev.railyard.scheduler.input.Quantities.MAX_DEVICES);

    /** @return true for an extended resource (a domain-prefixed name outside {@code kubernetes.io}): whole devices */
    private static boolean isDevice(String resource) {
        return resource.contains("/") && !resource.contains("kubernetes.io/");
    }

    /**
     * @return {@code amount}, checked to be a count Railyard can hold when {@code resource} is a device
     * @throws IllegalArgumentException naming {@code where} (container and resource) when it is more than
     *                                  {@link #MAX_DEVICES}, rather than clamping it to a wrong, smaller count
     */
    private static BigDecimal devices(String resource, BigDecimal amount, String where) {
        if (isDevice(resource) && amount.compareTo(MAX_DEVICES) > 0) {
            throw new IllegalArgumentException(where + ": " + amount.toPlainString() + " is more devices than "
                    + "Railyard counts (at most " + MAX_DEVICES + ")");
        }
        return amount;
    }

    private static BigDecimal quantity(Object v, String where) {
        try {
            return ObjectFields.quantity(v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
    }

    private static void add(Map<String, BigDecimal> into, Map<String, BigDecimal> r) {
        r.forEach((k, v) -> into.merge(k, v, BigDecimal::add));
    }

    private static void max(Map<String, BigDecimal> into, Map<String, BigDecimal> r) {
        r.forEach((k, v) -> into.merge(k, v, BigDecimal::max));
    }

    /** @return {@code namespace/name}, the form whereabouts writes as podref */
    public String key() {
        return namespace + "/" + name;
    }

    /** @return whole devices of a resource, rounded up; 0 when not requested */
    public long devices(String resource) {
        BigDecimal v = requests.get(resource);
        return v == null ? 0 : v.setScale(0, RoundingMode.CEILING).longValue();
    }

    /** @return {@code nvidia.com/gpu} devices requested ({@link #of} refuses more than {@link #MAX_DEVICES}) */
    public int gpus() {
        return Math.toIntExact(devices(GPU_RESOURCE));
    }

    /** @return true when the pod has run to completion or failed (it holds no devices any more) */
    public boolean finished() {
        return phase.equals("Succeeded") || phase.equals("Failed");
    }

    /** @return true when bound to a node and not finished: it holds its GPUs and RDMA slots there */
    public boolean holdsDevices() {
        return node != null && !finished();
    }

    /**
     * @return the pod's {@code railyard.dev/placement} hint when it is readable, of version
     *         {@value PlacementHint#VERSION} and for the node the pod is bound to; else null
     */
    public PlacementHint placementHint() {
        String json = annotations.get(HintAnnotations.PLACEMENT);
        if (json == null || json.isBlank() || node == null) {
            return null;
        }
        try {
            PlacementHint h = NodeStateConverter.RECORDS.readValue(json, PlacementHint.class);
            return h.version() == PlacementHint.VERSION && node.equals(h.node()) ? h : null;
        } catch (Exception e) {
            return null;
        }
    }

    /** @return the PodGroup name from Volcano's annotation, or null */
    public String podGroupName() {
        String g = annotations.get(GROUP_NAME_ANNOTATION);
        return g == null || g.isBlank() ? null : g;
    }

    /**
     * @return the PodGroup name from the coscheduling label ({@link #COSCHEDULING_LABEL}, else
     *         {@link #COSCHEDULING_LEGACY_LABEL}), or null; read whether or not Volcano's annotation is set too
     *         (where both are, Volcano's names the gang: {@link ClusterView#podGroupOf})
     */
    public String coschedulingGroupName() {
        for (String key : new String[]{COSCHEDULING_LABEL, COSCHEDULING_LEGACY_LABEL}) {
            String g = labels.get(key);
            if (g != null && !g.isBlank()) {
                return g;
            }
        }
        return null;
    }

    /**
     * @param rdmaResources names of RDMA extended resources (requests of other resources are left out)
     * @return the engine's request for this pod
     */
    public PodRequest request(Set<String> rdmaResources) {
        Map<String, Long> rdma = new TreeMap<>();
        for (String r : requests.keySet()) {
            if (rdmaResources.contains(r) || r.startsWith("rdma/")) {
                long d = devices(r);
                if (d > 0) {
                    rdma.put(r, d);
                }
            }
        }
        return new PodRequest(namespace, name, gpus(), rdma, PodNetworksRequest.of(namespace, annotations),
                hostNetwork, nodeAffinity);
    }

    /** Order of pods in a gang: task name, task index (numeric), then pod name. */
    public static final java.util.Comparator<PodView> RANK_ORDER = java.util.Comparator
            .comparing((PodView p) -> p.annotations().getOrDefault(TASK_SPEC_ANNOTATION, ""))
            .thenComparingLong(p -> index(p.annotations().get(TASK_INDEX_ANNOTATION)))
            .thenComparing(PodView::name);

    private static long index(String s) {
        if (s == null) {
            return Long.MAX_VALUE;
        }
        try {
            return Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }
}
