package dev.railyard.scheduler.engine;

import java.util.Locale;

/**
 * Pairing quality: {@code 100 − 100 · Σ penalty / (SYS penalty · GPUs)} over the GPUs the pod would take, with the
 * penalties of {@link CostWeights} (all at PIX: 100; all at SYS: 0); 100 for a pod without GPUs.
 */
record PairingScore() implements ScoreTerm {
    @Override
    public Value score(ScoreInput in) {
        int gpus = in.pod().gpus();
        if (gpus == 0) {
            return new Value(100, "no GPUs");
        }
        int sys = Math.max(1, in.weights().sysPenalty());
        long penalty = in.choice().penaltySum();
        int value = (int) Math.round(100.0 - 100.0 * penalty / ((double) sys * gpus));
        return new Value(value, "mean penalty " + String.format(Locale.ROOT, "%.2f", penalty / (double) gpus)
                + " of " + sys);
    }
}
