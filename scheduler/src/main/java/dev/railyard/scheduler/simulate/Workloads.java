package dev.railyard.scheduler.simulate;

import dev.railyard.api.hints.AffinityPolicy;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Generated workloads: Poisson arrivals at the rate that keeps a target share of the cluster's GPUs busy, job
 * shapes drawn from a mix, durations from a distribution. The published-trace mixes and their sources are in
 * docs/simulation.md ("Workloads").
 */
public final class Workloads {
    /** Largest GPUs per pod of the trace mixes: jobs above it become pods of this many GPUs (one node). */
    static final int NODE_GPUS = 8;

    private Workloads() {
    }

    /**
     * A workload preset.
     *
     * @param name           name on the command line
     * @param mix            job shapes with weights ({@link Trace#parseMix})
     * @param medianSeconds  median duration at an ideal placement, seconds
     * @param sigma          log-normal shape of the durations (0 = the current generator's uniform [0.5, 1.5] ×
     *                       median)
     * @param source         where the mix and durations come from, for the report
     */
    public record Preset(String name, String mix, double medianSeconds, double sigma, String source) {
    }

    /** The presets, in the order the docs list them. */
    public static final List<Preset> PRESETS = List.of(
            new Preset("generator", "1x8:20,2x8:15,4x8:10,8x8:5,2x4:15,4x2:15,8x1:10,4x1:10", 3600, 0,
                    "Railyard's generator (multi-node heavy, an LLM-era RDMA cluster); durations uniform [0.5, 1.5] h"),
            new Preset("philly", "1x1:70,1x2:10,1x4:10,1x8:6,2x8:3,4x8:1", 1800, 1.8,
                    "Microsoft Philly, Jeon et al. ATC'19 (job sizes Fig. 2, run times Fig. 3; coarse reading)"),
            new Preset("pai", "1x1:80,1x2:8,1x4:5,1x8:5,2x8:1.5,4x8:0.5", 1200, 1.6,
                    "Alibaba PAI, Weng et al. NSDI'22 (GPU requests Fig. 5, task run times Fig. 3; coarse reading)"),
            new Preset("helios", "1x1:60,1x2:10,1x4:10,1x8:12,2x8:5,4x8:2,8x8:1", 1200, 2.0,
                    "SenseTime Helios, Hu et al. SC'21 (GPU demand Fig. 4a, durations Fig. 3; coarse reading)"));

    /**
     * @param name a preset name
     * @return the preset
     * @throws IllegalArgumentException naming the known presets otherwise
     */
    public static Preset preset(String name) {
        for (Preset p : PRESETS) {
            if (p.name().equalsIgnoreCase(name)) {
                return p;
            }
        }
        throw new IllegalArgumentException("workload '" + name + "' is not one of "
                + PRESETS.stream().map(Preset::name).toList());
    }

    /**
     * Generation parameters.
     *
     * @param jobs       number of jobs (≥ 1)
     * @param load       target busy share of the cluster's GPUs, (0, 1]
     * @param commShare  communication share of each job's step, [0, 1]
     * @param a2aShare   share of multi-pod jobs whose collective is all-to-all, [0, 1]
     * @param seed       random seed
     */
    public record Params(int jobs, double load, double commShare, double a2aShare, long seed) {
        public Params {
            if (jobs < 1 || !(load > 0 && load <= 1) || !(commShare >= 0 && commShare <= 1)
                    || !(a2aShare >= 0 && a2aShare <= 1)) {
                throw new IllegalArgumentException("need jobs ≥ 1, load in (0, 1], comm share and all-to-all share "
                        + "in [0, 1]");
            }
        }
    }

    /**
     * @param preset    workload
     * @param mix       job mix overriding the preset's, or null
     * @param p         parameters
     * @param totalGpus GPUs in the cluster
     * @return jobs in arrival order
     */
    public static List<TraceJob> generate(Preset preset, String mix, Params p, long totalGpus) {
        List<Trace.MixEntry> entries = Trace.parseMix(mix == null ? preset.mix() : mix);
        double totalWeight = entries.stream().mapToDouble(Trace.MixEntry::weight).sum();
        double meanGpus = entries.stream().mapToDouble(e -> (double) e.pods() * e.gpus() * e.weight()).sum()
                / totalWeight;
        double meanDuration = meanDuration(preset);
        // Poisson arrivals: rate × E[GPUs] × E[duration] = load × GPUs (Little's law on busy GPUs)
        double rate = p.load() * totalGpus / (meanGpus * meanDuration);
        Random rnd = new Random(p.seed());
        List<TraceJob> out = new ArrayList<>();
        double t = 0;
        for (int i = 0; i < p.jobs(); i++) {
            t += -Math.log(1 - rnd.nextDouble()) / rate;
            Trace.MixEntry e = pick(entries, totalWeight, rnd);
            double duration = duration(preset, rnd);
            Collective coll = e.pods() > 1 && rnd.nextDouble() < p.a2aShare() ? Collective.ALL_TO_ALL
                    : Collective.RING_ALL_REDUCE;
            out.add(new TraceJob(String.format(Locale.ROOT, "job%05d-%dx%d", i, e.pods(), e.gpus()), t, duration,
                    e.pods(), e.gpus(), AffinityPolicy.PREFERRED, p.commShare(), coll, TraceJob.DEFAULT_MESSAGE_MIB));
        }
        return out;
    }

    /** Durations are capped at this many medians, so one draw cannot outlast the whole run. */
    static final double CAP_MEDIANS = 20;

    /** @return E[duration] of the preset's (capped) distribution, seconds: a fixed-seed sample mean */
    static double meanDuration(Preset preset) {
        if (preset.sigma() == 0) {
            return preset.medianSeconds();
        }
        Random r = new Random(0);
        int n = 200_000;
        double sum = 0;
        for (int k = 0; k < n; k++) {
            sum += duration(preset, r);
        }
        return sum / n;
    }

    private static double duration(Preset preset, Random rnd) {
        if (preset.sigma() == 0) {
            return preset.medianSeconds() * (0.5 + rnd.nextDouble());
        }
        double d = preset.medianSeconds() * Math.exp(preset.sigma() * rnd.nextGaussian());
        return Math.max(1, Math.min(d, CAP_MEDIANS * preset.medianSeconds()));
    }

    private static Trace.MixEntry pick(List<Trace.MixEntry> entries, double totalWeight, Random rnd) {
        double x = rnd.nextDouble() * totalWeight;
        for (Trace.MixEntry e : entries) {
            if (x < e.weight()) {
                return e;
            }
            x -= e.weight();
        }
        return entries.get(entries.size() - 1);
    }
}
