package dev.railyard.scheduler.cluster;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.api.hints.PlacementHint;
import dev.railyard.api.topology.AllocatedGpu;
import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.NodeTopologyStatus;
import dev.railyard.api.topology.PodAllocation;
import dev.railyard.api.topology.RdmaResourceStatus;
import dev.railyard.scheduler.engine.HcaResource;
import dev.railyard.scheduler.engine.NodeState;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Nodes, their NodeTopologies and the pods bound to them → the engine's {@link NodeState}s.
 *
 * <ul>
 *   <li><b>Labels</b> from {@code metadata.labels}.</li>
 *   <li><b>Schedulable</b> unless {@code spec.unschedulable} is true (cordoned) or the {@code Ready} condition exists
 *       with a status other than {@code True}; a node without conditions (a hand-written snapshot) counts as ready.
 *       Taints are kube-scheduler's business and not looked at.</li>
 *   <li><b>Topology</b>: the spec of the NodeTopology named after the node; a node without one, or whose spec cannot
 *       be read (a warning names it), has none, and the engine says so for pods that need GPUs.</li>
 *   <li><b>GPUs already allocated</b>, per pod bound to the node that is not finished and requests
 *       {@code nvidia.com/gpu}, from the first source that knows: (1) the NodeTopology status written by the node
 *       agent ({@code status.allocations} entry of the pod, GPU indices from the kubelet's PodResources API);
 *       (2) the pod's {@code railyard.dev/placement} hint (version 1, for this node); (3) the request count alone,
 *       in which case the lowest free indices are assumed taken (the count is right; which GPUs is a guess, said in
 *       {@link Result#gpuAccounting()}). GPUs in {@code status.allocatedGpus} held by pods not in the snapshot count
 *       too. Nothing is counted twice or lost: a hinted GPU the node lacks or another pod already claims (agent
 *       first, then hints) joins the request-count share, which is filled from GPUs no pod claims, so the node
 *       shows at least as many GPUs taken as its pods request (up to its size). All of it comes from the cluster,
 *       none from Railyard's memory, so a restarted Railyard counts the same (docs/adr/0005).</li>
 *   <li><b>HCA resources</b> (rdma-shared-dev-plugin): the resources the NodeTopology status maps to HCAs, plus
 *       {@code status.allocatable} entries named {@code rdma/...} or {@code <prefix>/<HCA name>}
 *       ({@code nvidia.com/mlx5_0}, a convention only); capacity = the Node's {@code status.allocatable} (else
 *       {@code capacity}, else the agent's count); the HCA is the one the agent maps the resource to when it maps
 *       exactly one, else the HCA named by the resource; allocated = the sum of the requests of the node's bound,
 *       unfinished pods.</li>
 * </ul>
 */
public final class NodeStateConverter {
    /** Jackson 2 reader for the {@code api} records (unknown fields skipped: schema additions are additive). */
    static final ObjectMapper RECORDS = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

    /**
     * The nodes and what was learned on the way.
     *
     * @param nodes         one state per readable Node, in object order
     * @param gpuAccounting node name → how its allocated GPUs were found, for people
     *                      ({@code "node agent: 2 pods; placement hint: 1 pod"}); absent for nodes with no GPU pods
     * @param rdmaResources every RDMA extended resource name seen on any node
     * @param topologies    node name → its NodeTopology status, for nodes whose agent published one
     */
    public record Result(List<NodeState> nodes, Map<String, String> gpuAccounting, Set<String> rdmaResources,
                         Map<String, NodeTopologyStatus> topologies) {
        public Result {
            nodes = List.copyOf(nodes);
            gpuAccounting = Map.copyOf(gpuAccounting);
            rdmaResources = Set.copyOf(rdmaResources);
            topologies = Map.copyOf(topologies);
        }
    }

    private NodeStateConverter() {
    }

    /**
     * @param objects    the cluster objects (Nodes and NodeTopologies are read)
     * @param podsByNode pods bound to each node (any phase; finished ones are skipped here)
     * @return the node states, with a warning per object that could not be used
     */
    public static Converted<Result> convert(ClusterObjects objects, Map<String, List<PodView>> podsByNode) {
        List<String> warnings = new ArrayList<>();
        Map<String, GenericKubernetesResource> topologies = new HashMap<>();
        for (GenericKubernetesResource t : objects.of(WatchedKind.NODE_TOPOLOGY)) {
            if (t.getMetadata() != null && t.getMetadata().getName() != null) {
                topologies.put(t.getMetadata().getName(), t);
            }
        }
        List<NodeState> nodes = new ArrayList<>();
        Map<String, String> accounting = new TreeMap<>();
        Set<String> rdma = new TreeSet<>();
        Map<String, NodeTopologyStatus> statuses = new TreeMap<>();
        Set<String> seen = new HashSet<>();
        for (GenericKubernetesResource n : objects.of(WatchedKind.NODE)) {
            String name = n.getMetadata() == null ? null : n.getMetadata().getName();
            if (name == null || !seen.add(name)) {
                warnings.add(ObjectFields.describe(n) + ": " + (name == null ? "no name" : "listed twice")
                        + "; skipped");
                continue;
            }
            GenericKubernetesResource topo = topologies.get(name);
            Outcome o = node(NodeFields.of(n), topo == null ? null : TopologyFields.of(topo),
                    podsByNode.getOrDefault(name, List.of()));
            warnings.addAll(o.warnings());
            if (o.state() == null) {
                continue;
            }
            nodes.add(o.state());
            if (o.accounting() != null) {
                accounting.put(name, o.accounting());
            }
            o.state().hcaResources().forEach(r -> rdma.add(r.resource()));
            if (o.status() != null) {
                statuses.put(name, o.status());
            }
        }
        for (String t : new TreeSet<>(topologies.keySet())) {
            if (!seen.contains(t)) {
                warnings.add(orphanTopology(t));
            }
        }
        return new Converted<>(new Result(nodes, accounting, rdma, statuses), warnings);
    }

    /** @return the warning for a NodeTopology without a Node of its name */
    static String orphanTopology(String name) {
        return "NodeTopology " + name + ": no Node of that name; ignored";
    }

    /**
     * One node, as the engine sees it, and what was learned on the way.
     *
     * @param state      the node; null when it could not be read at all (a warning says why)
     * @param accounting how its allocated GPUs were found ({@link Result#gpuAccounting()}), or null
     * @param status     its NodeTopology status when the agent published a readable one, else null
     * @param warnings   problems, one line each
     */
    public record Outcome(NodeState state, String accounting, NodeTopologyStatus status, List<String> warnings) {
        public Outcome {
            warnings = List.copyOf(warnings);
        }
    }

    /**
     * The one conversion of a node, for the from-scratch build and the incremental state alike.
     *
     * @param n    the Node's fields
     * @param topo its NodeTopology, or null when it has none
     * @param pods pods bound to it (any phase; finished ones are skipped)
     * @return the node and its warnings (the NodeTopology's conversion warnings first)
     */
    public static Outcome node(NodeFields n, TopologyFields topo, Collection<PodView> pods) {
        List<String> warnings = new ArrayList<>();
        NodeTopologySpec spec = topo == null ? null : topo.spec();
        NodeTopologyStatus status = topo == null ? null : topo.status();
        if (topo != null) {
            warnings.addAll(topo.warnings());
        }
        try {
            Map<String, String> accounting = new TreeMap<>();
            List<PodView> holding = pods.stream().filter(PodView::holdsDevices).toList();
            Set<Integer> gpus = allocatedGpus(n.name(), spec, status, holding, accounting, warnings);
            List<HcaResource> resources = hcaResources(n, spec, status, holding, warnings);
            NodeState state = new NodeState(n.name(), n.labels(), spec, gpus, resources, n.schedulable());
            return new Outcome(state, accounting.get(n.name()), status, warnings);
        } catch (RuntimeException e) {
            warnings.add("Node " + n.name() + ": " + IpamSnapshotConverter.oneLine(e.getMessage()) + "; skipped");
            return new Outcome(null, null, null, warnings);
        }
    }

    private static Set<Integer> allocatedGpus(String node, NodeTopologySpec spec, NodeTopologyStatus status,
                                              List<PodView> pods, Map<String, String> accounting,
                                              List<String> warnings) {
        GpuTally tally = new GpuTally();
        Map<String, PodAllocation> byPod = new HashMap<>();
        if (status != null) {
            tally.taken.addAll(status.allocatedGpus());
            for (PodAllocation a : status.allocations()) {
                byPod.put(a.namespace() + "/" + a.name(), a);
            }
        }
        List<PodView> rest = tally.countAgentAllocations(pods, byPod);
        List<PodView> byCount = tally.countHints(rest, node, spec, warnings);
        // (3) the request count alone (filled below from the lowest free indices)
        for (PodView p : byCount) {
            tally.fromCount++;
            tally.unknown += p.gpus();
        }
        tally.fillUnknown(node, spec, warnings);
        String described = tally.describe(status);
        if (described != null) {
            accounting.put(node, described);
        }
        return tally.taken;
    }

    /** GPUs a node's pods hold, and how each pod's share was known; one use, one node. */
    private static final class GpuTally {
        final Set<Integer> taken = new TreeSet<>();
        /** GPUs a pod has been given by the agent or a hint: a second claim on one is a clash */
        final Set<Integer> claimed = new HashSet<>();
        int fromAgent;
        int fromHint;
        int fromCount;
        /** GPUs held by pods whose indices are not known, filled from the lowest free indices */
        int unknown;

        /** (1) the agent's per-pod allocations, the kubelet's word, taken as they are; returns the other pods. */
        List<PodView> countAgentAllocations(List<PodView> pods, Map<String, PodAllocation> byPod) {
            List<PodView> rest = new ArrayList<>();
            for (PodView p : pods) {
                int want = p.gpus();
                if (want <= 0) {
                    continue;
                }
                PodAllocation a = byPod.get(p.key());
                if (a == null) {
                    rest.add(p);
                    continue;
                }
                int known = 0;
                for (AllocatedGpu g : a.gpus()) {
                    if (g.index() != null) {
                        taken.add(g.index());
                        claimed.add(g.index());
                        known++;
                    }
                }
                fromAgent++;
                unknown += Math.max(0, want - known);
            }
            return rest;
        }

        /**
         * (2) placement hints; a GPU the node does not have, or that another pod already claims, is counted as
         * unknown instead, so two pods' hints never make one GPU count once for both.
         *
         * @return the pods without a hint for this node
         */
        List<PodView> countHints(List<PodView> pods, String node, NodeTopologySpec spec, List<String> warnings) {
            Set<Integer> exists = new HashSet<>();
            if (spec != null) {
                spec.gpus().forEach(g -> exists.add(g.index()));
            }
            List<PodView> byCount = new ArrayList<>();
            for (PodView p : pods) {
                List<Integer> hinted = hintGpus(p, node, warnings);
                if (hinted == null) {
                    byCount.add(p);
                    continue;
                }
                int known = 0;
                List<Integer> clashes = new ArrayList<>();
                for (int g : new TreeSet<>(hinted)) {
                    if ((spec != null && !exists.contains(g)) || !claimed.add(g)) {
                        clashes.add(g);
                        continue;
                    }
                    taken.add(g);
                    known++;
                }
                if (!clashes.isEmpty()) {
                    warnings.add("Pod " + p.key() + ": its " + HintAnnotations.PLACEMENT + " hint names GPUs "
                            + clashes + " that node " + node + " lacks or another pod holds; counted by its request "
                            + "instead");
                }
                fromHint++;
                unknown += Math.max(0, p.gpus() - known);
            }
            return byCount;
        }

        /** Takes the {@link #unknown} GPUs from the lowest free indices; warns when the node has too few. */
        void fillUnknown(String node, NodeTopologySpec spec, List<String> warnings) {
            if (unknown > 0 && spec != null) {
                int left = unknown;
                for (Gpu g : spec.gpus()) {
                    if (left == 0) {
                        break;
                    }
                    if (taken.add(g.index())) {
                        left--;
                    }
                }
                if (left > 0) {
                    warnings.add("Node " + node + ": its pods hold " + left + " more GPUs than the node has free");
                }
            }
        }

        /** @return how the GPUs were known ({@code node agent: 2 pods; placement hint: 1 pod}), or null */
        String describe(NodeTopologyStatus status) {
            List<String> parts = new ArrayList<>();
            if (fromAgent > 0) {
                parts.add("node agent: " + pods(fromAgent));
            }
            if (fromHint > 0) {
                parts.add("placement hint: " + pods(fromHint));
            }
            if (fromCount > 0) {
                parts.add("request count: " + pods(fromCount) + " (lowest free GPU indices assumed)");
            }
            if (parts.isEmpty() && status != null && !status.allocatedGpus().isEmpty()) {
                parts.add("node agent: GPUs " + status.allocatedGpus());
            }
            return parts.isEmpty() ? null : String.join("; ", parts);
        }
    }

    private static String pods(int n) {
        return n + (n == 1 ? " pod" : " pods");
    }

    /** @return the GPU indices of the pod's version-1 placement hint for this node, or null when it has none */
    static List<Integer> hintGpus(PodView p, String node, List<String> warnings) {
        String json = p.annotations().get(HintAnnotations.PLACEMENT);
        if (json == null || json.isBlank()) {
            return null;
        }
        try {
            PlacementHint h = RECORDS.readValue(json, PlacementHint.class);
            if (h.version() != PlacementHint.VERSION || !node.equals(h.node())) {
                return null;
            }
            return h.gpus().stream().map(PlacementHint.GpuHint::gpu).toList();
        } catch (Exception e) {
            warnings.add("Pod " + p.key() + ": annotation " + HintAnnotations.PLACEMENT + " cannot be read ("
                    + IpamSnapshotConverter.oneLine(e.getMessage()) + "); its GPUs are counted from its request");
            return null;
        }
    }

    private static List<HcaResource> hcaResources(NodeFields n, NodeTopologySpec spec, NodeTopologyStatus status,
                                                  List<PodView> pods, List<String> warnings) {
        String node = n.name();
        Set<String> hcaNames = new HashSet<>();
        if (spec != null) {
            for (Hca h : spec.hcas()) {
                hcaNames.add(h.name());
            }
        }
        Map<String, String> hcaOf = new LinkedHashMap<>();
        Map<String, Integer> agentCount = new HashMap<>();
        if (status != null) {
            for (RdmaResourceStatus r : status.rdmaResources()) {
                hcaOf.put(r.resourceName(), r.hcas().size() == 1 ? r.hcas().get(0) : null);
                if (r.allocatable() != null) {
                    agentCount.put(r.resourceName(), r.allocatable());
                }
            }
        }
        Map<String, String> allocatable = n.resources();
        for (String key : allocatable.keySet()) {
            int slash = key.indexOf('/');
            String suffix = slash < 0 ? key : key.substring(slash + 1);
            if (hcaOf.containsKey(key)) {
                continue;
            }
            if (key.startsWith("rdma/") || (slash > 0 && hcaNames.contains(suffix))) {
                hcaOf.put(key, hcaNames.contains(suffix) ? suffix : null);
            }
        }
        List<HcaResource> out = new ArrayList<>();
        for (var e : hcaOf.entrySet()) {
            String res = e.getKey();
            long capacity;
            String raw = allocatable.get(res);
            if (raw != null) {
                try {
                    capacity = ObjectFields.quantity(raw).longValue();
                } catch (IllegalArgumentException ex) {
                    warnings.add("Node " + node + ": status.allocatable." + res + " " + ex.getMessage()
                            + "; counted as 0 slots");
                    capacity = 0;
                }
            } else {
                capacity = agentCount.getOrDefault(res, 0);
            }
            String hca = e.getValue();
            if (hca == null) {
                int slash = res.indexOf('/');
                String suffix = slash < 0 ? res : res.substring(slash + 1);
                hca = hcaNames.contains(suffix) ? suffix : null;
            }
            long used = 0;
            for (PodView p : pods) {
                used += p.devices(res);
            }
            out.add(new HcaResource(res, hca, capacity, used));
        }
        return out;
    }
}
