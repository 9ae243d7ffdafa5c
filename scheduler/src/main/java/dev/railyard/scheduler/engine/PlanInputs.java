package dev.railyard.scheduler.engine;

import java.util.List;

/**
 * What every search of one relaxation level reads, fixed while it runs.
 *
 * @param snapshot the cluster
 * @param classes  the gang's pod classes ({@link PodClass#of})
 * @param views    {@code views[c][i]}: node i as class c sees it, null where the node is excluded or ruled out by
 *                 the class's node affinity ({@link NodeViews#build})
 * @param nodeFree free GPUs per node, in snapshot order
 * @param kept     the bound members the plan keeps
 * @param weights  the node-local cost weights
 */
record PlanInputs(ClusterSnapshot snapshot, List<PodClass> classes, NodeRailView[][] views, long[] nodeFree,
                  KeptMembers kept, CostWeights weights) {
    int nodeCount() {
        return snapshot.nodes().size();
    }
}
