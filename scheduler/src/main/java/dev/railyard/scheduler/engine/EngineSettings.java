package dev.railyard.scheduler.engine;

/**
 * Tunables of the placement engine.
 *
 * @param cost           weights of the node-local plan cost
 * @param score          weights of the per-pod Score
 * @param maxRailVectors most rail-vector combinations a gang plan evaluates (the candidates with the most capacity
 *                       across the cluster are kept); bounds the search
 * @param maxStates      most DP states (product over pod shapes of pods + 1) a gang may need; a gang beyond it is
 *                       refused with a reason
 */
public record EngineSettings(CostWeights cost, ScoreWeights score, int maxRailVectors, int maxStates) {
    /** Default bound on rail-vector combinations per plan. */
    public static final int DEFAULT_MAX_RAIL_VECTORS = 128;
    /** Default bound on DP states. */
    public static final int DEFAULT_MAX_STATES = 2048;

    public EngineSettings {
        cost = cost == null ? CostWeights.defaults() : cost;
        score = score == null ? ScoreWeights.defaults() : score;
        if (maxRailVectors < 1 || maxStates < 2) {
            throw new IllegalArgumentException("maxRailVectors must be ≥ 1 and maxStates ≥ 2");
        }
    }

    /** @return the documented defaults */
    public static EngineSettings defaults() {
        return new EngineSettings(null, null, DEFAULT_MAX_RAIL_VECTORS, DEFAULT_MAX_STATES);
    }
}
