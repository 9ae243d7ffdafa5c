package dev.railyard.scheduler.simulate;

import dev.railyard.api.topology.PcieDistance;

import java.util.List;

/** A placement policy the simulator replays a trace against: Railyard itself or a baseline. */
interface PlacementStrategy {
    /** @return the column name */
    String name();

    /**
     * Places the whole job now or not at all. Must not change the cluster: the simulator takes the GPUs.
     *
     * @param cluster the cluster as it is now
     * @param job     the job
     * @param waited  seconds the job has waited in the queue so far
     * @return one entry per pod in rank order, or null when the strategy cannot place the whole job now
     */
    List<PodUse> place(SimCluster cluster, TraceJob job, double waited);

    /**
     * A cheap test that may only say "cannot" when {@link #place} would return null (used to skip plan calls
     * while the cluster is full). The default never says "cannot".
     */
    default boolean mayFit(SimCluster cluster, TraceJob job, double waited) {
        return true;
    }

    /**
     * A placed pod.
     *
     * @param node node name
     * @param gpus its GPUs in local-rank order with the HCA each sends through
     */
    record PodUse(String node, List<GpuUse> gpus) {
    }

    /**
     * @param gpu      GPU index
     * @param hca      HCA it sends through (null when it has none)
     * @param rail     rail of that HCA (-1 when none)
     * @param distance GPU–HCA distance class
     */
    record GpuUse(int gpu, String hca, int rail, PcieDistance distance) {
    }
}
