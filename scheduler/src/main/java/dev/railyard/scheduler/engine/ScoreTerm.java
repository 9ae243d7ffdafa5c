package dev.railyard.scheduler.engine;

/**
 * One term of the per-pod Score, 0–100 (higher is better), as kube-scheduler's {@code noderesources} scorers are one
 * function each: {@link PairingScore}, {@link ProximityScore}, {@link RailScore}, {@link FragmentationScore},
 * {@link IpHeadroomScore}. {@link WeightedScore} names them and sums them with the {@link ScoreWeights}.
 */
sealed interface ScoreTerm permits PairingScore, ProximityScore, RailScore, FragmentationScore, IpHeadroomScore {
    /** @return the term's value for the pod on the node, with one line on how it came about */
    Value score(ScoreInput in);

    /**
     * @param value 0–100, clamped
     * @param why   one line on how the value came about
     */
    record Value(int value, String why) {
        public Value {
            value = Math.max(0, Math.min(100, value));
        }
    }
}
