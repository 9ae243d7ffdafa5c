package dev.railyard.scheduler.engine;

import dev.railyard.api.topology.PcieDistance;

import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds the {@link NodeRailView} of every node for every pod class of a gang. Nodes in the same state (the same
 * topology instance, allocated GPUs, RDMA resources and schedulability) share one view ({@link NodeRailView#forTwin}),
 * which makes a cluster of a few machine types cost a few views per class, not one per node.
 */
final class NodeViews {
    private NodeViews() {
    }

    /** What makes two nodes' views identical for one pod shape. */
    private record TwinKey(int spec, Set<Integer> allocated, List<HcaResource> resources, boolean schedulable) {
    }

    /**
     * @param snapshot the cluster
     * @param classes  the gang's pod classes
     * @param limit    farthest GPU–HCA distance a GPU may pair at, or null for any
     * @param excluded names of nodes left out (their node-slice pool is dry)
     * @return {@code views[c][i]}: node i as class c sees it; null where excluded or ruled out by the class's node
     *         affinity
     */
    static NodeRailView[][] build(ClusterSnapshot snapshot, List<PodClass> classes, PcieDistance limit,
                                  Set<String> excluded) {
        List<NodeState> nodes = snapshot.nodes();
        NodeRailView[][] v = new NodeRailView[classes.size()][nodes.size()];
        IdentityHashMap<Object, Integer> specIds = new IdentityHashMap<>();
        for (int c = 0; c < classes.size(); c++) {
            Map<TwinKey, NodeRailView> twins = new HashMap<>();
            for (int i = 0; i < nodes.size(); i++) {
                NodeState ns = nodes.get(i);
                if (excluded.contains(ns.name()) || !classes.get(c).template.nodeAffinity().matches(ns)) {
                    continue;
                }
                Object spec = ns.topology() == null ? TwinKey.class : ns.topology();
                TwinKey key = new TwinKey(specIds.computeIfAbsent(spec, k -> specIds.size()), ns.allocatedGpus(),
                        ns.hcaResources(), ns.schedulable());
                NodeRailView twin = twins.get(key);
                if (twin != null) {
                    v[c][i] = twin.forTwin(ns);
                } else {
                    v[c][i] = NodeRailView.of(snapshot, ns, classes.get(c).template, limit);
                    twins.put(key, v[c][i]);
                }
            }
        }
        return v;
    }
}
