package dev.railyard.scheduler.simulate;

import dev.railyard.api.topology.PcieDistance;
import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.topology.fabric.FabricModel;
import dev.railyard.topology.fabric.FabricPosition;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Replays a job trace against Railyard and the baselines, each on its own copy of the cluster, and measures what
 * each placement means for the fabric (after Caffeine's simulator: the real policy and baselines on one trace).
 *
 * <p>Replay: jobs arrive in trace order; at each arrival, jobs whose run has ended release their GPUs, then the
 * strategy places the new job whole or not at all (no queue: a job that does not fit is counted unschedulable and
 * dropped). Cross-leaf and cross-rail pairs: for every two pods of a job on different nodes and every local rank k
 * below both pods' GPU counts, the HCAs of their k-th GPUs are compared (pods on one node talk over NVLink and are not
 * counted). Fragmentation is sampled after every arrival.
 */
public final class Simulator {
    private Simulator() {
    }

    /** The strategies in table order: Railyard, random feasible node, GPU-count bin-packing, Volcano-style tiers. */
    static List<PlacementStrategy> strategies(long seed) {
        return List.of(new RailyardStrategy(new PlacementEngine()), Baselines.random(seed), Baselines.binPacking(),
                Baselines.tierPacking());
    }

    /**
     * @param cluster the cluster (its state before the trace)
     * @param trace   jobs in arrival order
     * @param seed    seed of the random baseline
     * @return one result per strategy
     */
    public static List<StrategyResult> run(ClusterSnapshot cluster, List<TraceJob> trace, long seed) {
        List<StrategyResult> out = new ArrayList<>();
        for (PlacementStrategy s : strategies(seed)) {
            out.add(replay(cluster, trace, s));
        }
        return out;
    }

    private record Running(int end, List<PlacementStrategy.PodUse> pods) {
    }

    static StrategyResult replay(ClusterSnapshot cluster, List<TraceJob> trace, PlacementStrategy strategy) {
        SimCluster c = new SimCluster(cluster);
        FabricModel fabric = cluster.fabric();
        PriorityQueue<Running> running = new PriorityQueue<>((a, b) -> Integer.compare(a.end(), b.end()));
        Map<PcieDistance, Long> hist = new EnumMap<>(PcieDistance.class);
        long crossLeaf = 0;
        long crossRail = 0;
        int placed = 0;
        int refused = 0;
        double fragSum = 0;
        long[] times = new long[trace.size()];
        int k = 0;
        for (TraceJob job : trace) {
            while (!running.isEmpty() && running.peek().end() <= job.arrival()) {
                for (PlacementStrategy.PodUse p : running.poll().pods()) {
                    c.release(p.node(), p.gpus().stream().map(PlacementStrategy.GpuUse::gpu).toList());
                }
            }
            long t0 = System.nanoTime();
            List<PlacementStrategy.PodUse> pods = strategy.place(c, job);
            times[k++] = System.nanoTime() - t0;
            if (pods == null) {
                refused++;
            } else {
                placed++;
                for (PlacementStrategy.PodUse p : pods) {
                    c.take(p.node(), p.gpus().stream().map(PlacementStrategy.GpuUse::gpu).toList());
                    for (PlacementStrategy.GpuUse g : p.gpus()) {
                        hist.merge(g.distance(), 1L, Long::sum);
                    }
                }
                for (int i = 0; i < pods.size(); i++) {
                    for (int j = i + 1; j < pods.size(); j++) {
                        PlacementStrategy.PodUse a = pods.get(i);
                        PlacementStrategy.PodUse b = pods.get(j);
                        if (a.node().equals(b.node())) {
                            continue;
                        }
                        FabricPosition pa = fabric.position(a.node());
                        FabricPosition pb = fabric.position(b.node());
                        int n = Math.min(a.gpus().size(), b.gpus().size());
                        for (int r = 0; r < n; r++) {
                            int ra = a.gpus().get(r).rail();
                            int rb = b.gpus().get(r).rail();
                            if (ra != rb) {
                                crossRail++;
                            }
                            String la = pa == null || ra < 0 ? null : pa.leaf(ra);
                            String lb = pb == null || rb < 0 ? null : pb.leaf(rb);
                            if (la == null || !la.equals(lb)) {
                                crossLeaf++;
                            }
                        }
                    }
                }
                running.add(new Running(job.arrival() + job.duration(), pods));
            }
            fragSum += fragmentation(c);
        }
        long[] sorted = Arrays.copyOf(times, k);
        Arrays.sort(sorted);
        return new StrategyResult(strategy.name(), placed, refused, hist, crossLeaf, crossRail,
                trace.isEmpty() ? 0 : fragSum / trace.size(), percentile(sorted, 0.50), percentile(sorted, 0.99));
    }

    private static double fragmentation(SimCluster c) {
        long free = 0;
        long stranded = 0;
        for (int i = 0; i < c.size(); i++) {
            int f = c.free(i);
            free += f;
            if (f > 0 && f < c.total(i)) {
                stranded += f;
            }
        }
        return free == 0 ? 0 : stranded / (double) free;
    }

    private static double percentile(long[] sortedNanos, double q) {
        if (sortedNanos.length == 0) {
            return 0;
        }
        int i = (int) Math.ceil(q * sortedNanos.length) - 1;
        return sortedNanos[Math.max(0, Math.min(sortedNanos.length - 1, i))] / 1e6;
    }

    /** @return the results as a table for people */
    public static String table(List<StrategyResult> results) {
        StringBuilder b = new StringBuilder();
        String fmt = "%-34s" + "%14s".repeat(results.size()) + "%n";
        b.append(String.format(Locale.ROOT, fmt, row("", results, StrategyResult::strategy)));
        b.append(String.format(Locale.ROOT, fmt, row("jobs placed", results, r -> Integer.toString(r.placed()))));
        b.append(String.format(Locale.ROOT, fmt, row("jobs unschedulable", results,
                r -> Integer.toString(r.unschedulable()))));
        for (PcieDistance d : PcieDistance.values()) {
            b.append(String.format(Locale.ROOT, fmt, row("GPUs at " + d, results,
                    r -> Long.toString(r.gpusByDistance().getOrDefault(d, 0L)))));
        }
        b.append(String.format(Locale.ROOT, fmt, row("share of GPUs at ≤ PXB", results,
                r -> String.format(Locale.ROOT, "%.1f%%", 100 * r.shareWithinPxb()))));
        b.append(String.format(Locale.ROOT, fmt, row("cross-leaf pairs per job", results,
                r -> String.format(Locale.ROOT, "%.2f", r.crossLeafPerJob()))));
        b.append(String.format(Locale.ROOT, fmt, row("cross-rail pairs per job", results,
                r -> String.format(Locale.ROOT, "%.2f", r.crossRailPerJob()))));
        b.append(String.format(Locale.ROOT, fmt, row("cross-leaf pairs (total)", results,
                r -> Long.toString(r.crossLeaf()))));
        b.append(String.format(Locale.ROOT, fmt, row("cross-rail pairs (total)", results,
                r -> Long.toString(r.crossRail()))));
        b.append(String.format(Locale.ROOT, fmt, row("fragmentation (free GPUs stranded)", results,
                r -> String.format(Locale.ROOT, "%.1f%%", 100 * r.fragmentation()))));
        b.append(String.format(Locale.ROOT, fmt, row("plan time p50 (ms)", results,
                r -> String.format(Locale.ROOT, "%.3f", r.planP50Ms()))));
        b.append(String.format(Locale.ROOT, fmt, row("plan time p99 (ms)", results,
                r -> String.format(Locale.ROOT, "%.3f", r.planP99Ms()))));
        return b.toString();
    }

    private static Object[] row(String label, List<StrategyResult> rs, java.util.function.Function<StrategyResult,
            String> f) {
        Object[] o = new Object[rs.size() + 1];
        o[0] = label;
        for (int i = 0; i < rs.size(); i++) {
            o[i + 1] = f.apply(rs.get(i));
        }
        return o;
    }
}
