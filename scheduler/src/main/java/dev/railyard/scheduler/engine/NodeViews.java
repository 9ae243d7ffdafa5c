package dev.railyard.scheduler.engine;

import dev.railyard.api.topology.PcieDistance;

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

    /**
     * @param snapshot the cluster
     * @param classes  the gang's pod classes
     * @param limit    farthest GPU–HCA distance a GPU may pair at, or null for any
     * @param excluded names of nodes left out (their node-slice pool is dry)
     * @param facts    {@code facts[i]}: node i's facts ({@link NodeFacts}), for its twin key
     * @return {@code views[c][i]}: node i as class c sees it; null where excluded or ruled out by the class's node
     *         affinity
     */
    static NodeRailView[][] build(ClusterSnapshot snapshot, List<PodClass> classes, PcieDistance limit,
                                  Set<String> excluded, NodeFacts.Fact[] facts) {
        List<NodeState> nodes = snapshot.nodes();
        NodeRailView[][] v = new NodeRailView[classes.size()][nodes.size()];
        for (int c = 0; c < classes.size(); c++) {
            // twin keys are interned: one instance per key, so an identity map finds a node's twin without equals
            Map<NodeFacts.TwinKey, NodeRailView> twins = new IdentityHashMap<>();
            for (int i = 0; i < nodes.size(); i++) {
                NodeState ns = nodes.get(i);
                if (excluded.contains(ns.name()) || !classes.get(c).template.nodeAffinity().matches(ns)) {
                    continue;
                }
                NodeFacts.TwinKey key = facts[i].twin();
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
