package dev.railyard.scheduler.simulate;

import dev.railyard.api.topology.PcieDistance;

import java.util.EnumMap;
import java.util.Map;

/**
 * What one strategy achieved over a trace.
 *
 * @param strategy      column name
 * @param placed        jobs placed
 * @param unschedulable jobs the strategy could not place when they arrived (dropped)
 * @param gpusByDistance placed GPUs per GPU–HCA distance class
 * @param crossLeaf     over all placed jobs, pairs (two pods on different nodes, one local rank) whose HCAs hang under
 *                      different leaves
 * @param crossRail     the same pairs whose HCAs sit on different rails
 * @param fragmentation mean over arrivals of free GPUs on partly used nodes / all free GPUs (0 = free GPUs only on
 *                      empty nodes)
 * @param planP50Ms     median time to place one job, ms
 * @param planP99Ms     99th percentile, ms
 */
public record StrategyResult(String strategy, int placed, int unschedulable, Map<PcieDistance, Long> gpusByDistance,
                             long crossLeaf, long crossRail, double fragmentation, double planP50Ms,
                             double planP99Ms) {
    public StrategyResult {
        gpusByDistance = new EnumMap<>(gpusByDistance);
    }

    /** @return placed GPUs at PIX or PXB / all placed GPUs (1 when none placed) */
    public double shareWithinPxb() {
        long all = gpusByDistance.values().stream().mapToLong(Long::longValue).sum();
        long near = gpusByDistance.getOrDefault(PcieDistance.PIX, 0L) + gpusByDistance.getOrDefault(PcieDistance.PXB, 0L);
        return all == 0 ? 1.0 : near / (double) all;
    }

    /** @return cross-leaf pairs per placed job */
    public double crossLeafPerJob() {
        return placed == 0 ? 0 : crossLeaf / (double) placed;
    }

    /** @return cross-rail pairs per placed job */
    public double crossRailPerJob() {
        return placed == 0 ? 0 : crossRail / (double) placed;
    }
}
