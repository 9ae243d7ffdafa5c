package dev.railyard.scheduler.simulate;

import dev.railyard.api.topology.PcieDistance;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;

/**
 * What one strategy achieved over a simulation ({@link EventSimulator}).
 *
 * @param strategy        column name
 * @param jobs            jobs in the trace
 * @param finished        jobs that ran and left
 * @param queuedAtEnd     jobs still waiting when nothing else could happen (never placeable on this cluster)
 * @param waits           queue wait of each finished job, seconds, ascending
 * @param slowdowns       modelled slowdown of each finished job against an ideal placement, ascending
 * @param meanJct         mean modelled job-completion time (wait + duration × slowdown) of finished jobs, seconds
 * @param meanIdealJct    mean of the same jobs' durations alone (no wait, ideal placement), seconds
 * @param utilisation     held GPUs / all GPUs, time-averaged from one mean duration after the first arrival (warm-up
 *                        left out) to the last arrival
 * @param goodput         the same with each job's GPUs weighted by 1 / its slowdown: the share of the cluster doing
 *                        work an ideal placement would do
 * @param utilTimes       sample times of the utilisation series, seconds
 * @param utilSeries      busy share at those times
 * @param multiPodJobs    finished jobs with two pods or more
 * @param crossRail       cross-rail flows over those jobs ({@link JobPlacement})
 * @param crossLeaf       cross-leaf flows over those jobs
 * @param gpusByDistance  placed GPUs per GPU–HCA distance class
 * @param planCalls       calls to the strategy's place()
 * @param planP50Ms       median place() time, ms
 * @param planP99Ms       99th percentile place() time, ms
 */
public record StrategyResult(String strategy, int jobs, int finished, int queuedAtEnd, double[] waits,
                             double[] slowdowns, double meanJct, double meanIdealJct, double utilisation,
                             double goodput, double[] utilTimes, double[] utilSeries, int multiPodJobs, long crossRail,
                             long crossLeaf, Map<PcieDistance, Long> gpusByDistance, long planCalls,
                             double planP50Ms, double planP99Ms) {
    public StrategyResult {
        Map<PcieDistance, Long> copy = new EnumMap<>(PcieDistance.class);
        copy.putAll(gpusByDistance);
        gpusByDistance = copy;
        waits = waits.clone();
        slowdowns = slowdowns.clone();
        Arrays.sort(waits);
        Arrays.sort(slowdowns);
    }

    /** @return mean queue wait of finished jobs, seconds */
    public double meanWait() {
        return mean(waits);
    }

    /** @return 99th percentile queue wait, seconds */
    public double p99Wait() {
        return percentile(waits, 0.99);
    }

    /** @return mean slowdown against an ideal placement */
    public double meanSlowdown() {
        return mean(slowdowns);
    }

    /** @return 99th percentile slowdown */
    public double p99Slowdown() {
        return percentile(slowdowns, 0.99);
    }

    /** @return cross-rail flows per finished multi-pod job */
    public double crossRailPerJob() {
        return multiPodJobs == 0 ? 0 : crossRail / (double) multiPodJobs;
    }

    /** @return cross-leaf flows per finished multi-pod job */
    public double crossLeafPerJob() {
        return multiPodJobs == 0 ? 0 : crossLeaf / (double) multiPodJobs;
    }

    /** @return placed GPUs at PIX or PXB / all placed GPUs (1 when none) */
    public double shareWithinPxb() {
        long all = gpusByDistance.values().stream().mapToLong(Long::longValue).sum();
        long near = gpusByDistance.getOrDefault(PcieDistance.PIX, 0L)
                + gpusByDistance.getOrDefault(PcieDistance.PXB, 0L);
        return all == 0 ? 1.0 : near / (double) all;
    }

    static double mean(double[] xs) {
        double s = 0;
        for (double x : xs) {
            s += x;
        }
        return xs.length == 0 ? 0 : s / xs.length;
    }

    /** @return the nearest-rank percentile of ascending values (0 when empty) */
    static double percentile(double[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }
}
