package dev.railyard.scheduler.simulate;

import dev.railyard.api.hints.AffinityPolicy;

/**
 * One job of a simulation trace.
 *
 * @param name          job name
 * @param arrival       step at which it arrives (≥ 0)
 * @param duration      steps it runs once placed (≥ 1)
 * @param pods          pods in the gang (≥ 1)
 * @param gpus          GPUs per pod (≥ 1)
 * @param railAlignment the job's rail alignment hint for Railyard
 */
public record TraceJob(String name, int arrival, int duration, int pods, int gpus, AffinityPolicy railAlignment) {
    public TraceJob {
        if (arrival < 0 || duration < 1 || pods < 1 || gpus < 1) {
            throw new IllegalArgumentException("job " + name + ": arrival ≥ 0, duration ≥ 1, pods ≥ 1 and gpus ≥ 1 "
                    + "needed");
        }
        railAlignment = railAlignment == null ? AffinityPolicy.PREFERRED : railAlignment;
    }
}
