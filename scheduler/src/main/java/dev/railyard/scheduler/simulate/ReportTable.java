package dev.railyard.scheduler.simulate;

import dev.railyard.api.topology.PcieDistance;

import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/** The terminal summary of a simulation: one column per strategy, then Railyard against the best baseline. */
public final class ReportTable {
    private ReportTable() {
    }

    /** @return the table for people */
    public static String table(List<StrategyResult> results) {
        StringBuilder b = new StringBuilder();
        String fmt = "%-36s" + "%16s".repeat(results.size()) + "%n";
        row(b, fmt, "", results, StrategyResult::strategy);
        row(b, fmt, "jobs finished", results, r -> Integer.toString(r.finished()));
        row(b, fmt, "jobs still queued at the end", results, r -> Integer.toString(r.queuedAtEnd()));
        row(b, fmt, "queue wait mean (min)", results, r -> f1(r.meanWait() / 60));
        row(b, fmt, "queue wait p99 (min)", results, r -> f1(r.p99Wait() / 60));
        row(b, fmt, "modelled JCT mean (h)", results, r -> f3(r.meanJct() / 3600));
        row(b, fmt, "slowdown vs ideal placement, mean", results, r -> f3(r.meanSlowdown()));
        row(b, fmt, "slowdown vs ideal placement, p99", results, r -> f3(r.p99Slowdown()));
        row(b, fmt, "GPU utilisation (GPUs held)", results, r -> f1(100 * r.utilisation()) + "%");
        row(b, fmt, "goodput (held ÷ slowdown)", results, r -> f1(100 * r.goodput()) + "%");
        row(b, fmt, "cross-rail flows per multi-pod job", results, r -> f1(r.crossRailPerJob()));
        row(b, fmt, "cross-leaf flows per multi-pod job", results, r -> f1(r.crossLeafPerJob()));
        for (PcieDistance d : PcieDistance.values()) {
            row(b, fmt, "GPUs at " + d, results, r -> Long.toString(r.gpusByDistance().getOrDefault(d, 0L)));
        }
        row(b, fmt, "share of GPUs at ≤ PXB", results, r -> f1(100 * r.shareWithinPxb()) + "%");
        row(b, fmt, "place() calls", results, r -> Long.toString(r.planCalls()));
        row(b, fmt, "place() time p50 (ms)", results, r -> f3(r.planP50Ms()));
        row(b, fmt, "place() time p99 (ms)", results, r -> f3(r.planP99Ms()));
        b.append(targets(results));
        return b.toString();
    }

    /** Baselines are the columns whose name does not start with {@code railyard}. */
    static boolean isBaseline(StrategyResult r) {
        return !r.strategy().startsWith("railyard");
    }

    /**
     * @return for each Railyard column, its mean JCT, mean wait and utilisation against the baseline with the
     * lowest mean JCT (the issue-18 targets: JCT ≥ 10 % lower, wait ≤ 5 % higher, utilisation ≤ 2 points lower)
     */
    static String targets(List<StrategyResult> results) {
        StrategyResult best = null;
        for (StrategyResult r : results) {
            if (isBaseline(r) && (best == null || r.meanJct() < best.meanJct())) {
                best = r;
            }
        }
        if (best == null) {
            return "";
        }
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "best baseline by mean JCT: %s%n", best.strategy()));
        for (StrategyResult r : results) {
            if (isBaseline(r)) {
                continue;
            }
            double jct = 100 * (r.meanJct() - best.meanJct()) / best.meanJct();
            double wait = best.meanWait() == 0 ? (r.meanWait() == 0 ? 0 : Double.POSITIVE_INFINITY)
                    : 100 * (r.meanWait() - best.meanWait()) / best.meanWait();
            double util = 100 * (r.utilisation() - best.utilisation());
            double good = 100 * (r.goodput() - best.goodput());
            b.append(String.format(Locale.ROOT, "%s vs %s: mean JCT %+.1f%% (target ≤ -10%%: %s); mean wait %+.1f%%, "
                            + "%.1f vs %.1f min (target ≤ +5%%: %s); utilisation %+.1f points (target ≥ -2: %s), "
                            + "goodput %+.1f points%n",
                    r.strategy(), best.strategy(), jct, jct <= -10 ? "met" : "missed", wait, r.meanWait() / 60,
                    best.meanWait() / 60, wait <= 5 ? "met" : "missed", util, util >= -2 ? "met" : "missed", good));
        }
        return b.toString();
    }

    private static void row(StringBuilder b, String fmt, String label, List<StrategyResult> rs,
                            Function<StrategyResult, String> f) {
        Object[] o = new Object[rs.size() + 1];
        o[0] = label;
        for (int i = 0; i < rs.size(); i++) {
            o[i + 1] = f.apply(rs.get(i));
        }
        b.append(String.format(Locale.ROOT, fmt, o));
    }

    private static String f1(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String f3(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }
}
