package dev.railyard.scheduler.simulate;

import dev.railyard.api.topology.PcieDistance;

import java.util.List;

/** A placement policy the simulator replays a trace against: Railyard itself or a baseline. */
interface PlacementStrategy {
    /** @return the column name */
    String name();

    /**
     * @return one entry per pod, or null when the strategy cannot place the whole job now
     */
    List<PodUse> place(SimCluster cluster, TraceJob job);

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
     * @param rail     rail of the HCA it uses
     * @param distance GPU–HCA distance class
     */
    record GpuUse(int gpu, int rail, PcieDistance distance) {
    }
}
