package dev.railyard.scheduler.engine;

/**
 * Whether one node can give one pod a required rail set ({@link PlacementEngine#placeOnRails}): the pod placed
 * there, or why not.
 *
 * @param pod    the pod on the node with exactly the rail set's GPUs per rail, or null when it does not fit
 * @param reason null when it fits; otherwise one line naming the node and what is missing (a blocker such as a
 *               missing RDMA resource, or the qualifying free GPUs per rail)
 */
public record RailSetFit(PlannedPod pod, String reason) {
    /** @return true when the node offers the rail set */
    public boolean fits() {
        return pod != null;
    }
}
