package dev.railyard.scheduler.engine;

/**
 * What every score term reads for one pod on one node.
 *
 * @param snapshot the cluster
 * @param pod      the pod
 * @param node     node name
 * @param view     the node as the pod sees it
 * @param context  the gang's placed members and rail vector
 * @param choice   the GPUs the pod would take there (the cheapest set, on the gang's rail vector when the node
 *                 offers it)
 * @param railOk   true when there is no gang rail vector or the node offers it
 * @param weights  the node-local cost weights (for the pairing penalties)
 */
record ScoreInput(ClusterSnapshot snapshot, PodRequest pod, String node, NodeRailView view, GangContext context,
                  LocalSelection.Choice choice, boolean railOk, CostWeights weights) {
}
