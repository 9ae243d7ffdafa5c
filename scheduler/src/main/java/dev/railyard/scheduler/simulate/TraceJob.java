package dev.railyard.scheduler.simulate;

import dev.railyard.api.hints.AffinityPolicy;

/**
 * One job of a simulation trace.
 *
 * @param name          job name
 * @param arrival       arrival time, seconds from the start (≥ 0)
 * @param duration      run time at an ideal placement, seconds (&gt; 0); the modelled run time is this × the
 *                      placement's slowdown ({@link StepTimeModel})
 * @param pods          pods in the gang (≥ 1)
 * @param gpus          GPUs per pod (≥ 1)
 * @param railAlignment the job's rail alignment hint for Railyard
 * @param commShare     share of an ideal step spent in network communication that is not overlapped, [0, 1]
 * @param collective    the collective of that communication
 * @param messageMiB    bytes each GPU contributes to one collective, MiB (&gt; 0)
 */
public record TraceJob(String name, double arrival, double duration, int pods, int gpus,
                       AffinityPolicy railAlignment, double commShare, Collective collective, double messageMiB) {
    /** Default communication share when a trace does not give one (an assumption, see docs/simulation.md). */
    public static final double DEFAULT_COMM_SHARE = 0.3;
    /** Default message per GPU and collective, MiB (an assumption, see docs/simulation.md). */
    public static final double DEFAULT_MESSAGE_MIB = 256;

    public TraceJob {
        if (!(arrival >= 0) || !(duration > 0) || pods < 1 || gpus < 1) {
            throw new IllegalArgumentException("job " + name
                    + ": arrival ≥ 0, duration > 0, pods ≥ 1 and gpus ≥ 1 needed");
        }
        if (!(commShare >= 0 && commShare <= 1)) {
            throw new IllegalArgumentException("job " + name + ": commShare must be in [0, 1], got " + commShare);
        }
        if (!(messageMiB > 0)) {
            throw new IllegalArgumentException("job " + name + ": messageMiB must be > 0, got " + messageMiB);
        }
        railAlignment = railAlignment == null ? AffinityPolicy.PREFERRED : railAlignment;
        collective = collective == null ? Collective.RING_ALL_REDUCE : collective;
    }

    /** A job with the default communication share, ring all-reduce and message size. */
    public TraceJob(String name, double arrival, double duration, int pods, int gpus, AffinityPolicy railAlignment) {
        this(name, arrival, duration, pods, gpus, railAlignment, DEFAULT_COMM_SHARE, Collective.RING_ALL_REDUCE,
                DEFAULT_MESSAGE_MIB);
    }

    /** @return pods × GPUs per pod */
    public int totalGpus() {
        return pods * gpus;
    }
}
