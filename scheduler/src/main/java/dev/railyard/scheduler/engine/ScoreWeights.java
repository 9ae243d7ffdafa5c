package dev.railyard.scheduler.engine;

/**
 * Weights of the per-pod Score terms (each term is 0–100; the score is their weighted mean, rounded).
 *
 * <p>Defaults and why:
 * <ul>
 *   <li>{@code pairing = 35}: GPU–HCA distance decides whether GPUDirect RDMA works at all, the largest bandwidth
 *       effect a node choice has;</li>
 *   <li>{@code proximity = 25}: switch hops to the gang's other members add latency to every collective;</li>
 *   <li>{@code rail = 20}: a node that cannot offer the gang's rail vector forces cross-rail traffic through the
 *       spine (or breaks NCCL's rail assumption);</li>
 *   <li>{@code fragmentation = 10}: keeping whole PCIe groups and empty nodes free matters for later pods, not this
 *       one;</li>
 *   <li>{@code ipHeadroom = 10}: a nearly dry pool is a risk (whereabouts leaks addresses), but any free address
 *       serves this pod.</li>
 * </ul>
 *
 * @param pairing       weight of pairing quality
 * @param proximity     weight of fabric proximity to the gang's other members
 * @param rail          weight of rail consistency with the gang
 * @param fragmentation weight of fragmentation
 * @param ipHeadroom    weight of IP pool headroom
 */
public record ScoreWeights(int pairing, int proximity, int rail, int fragmentation, int ipHeadroom) {
    public ScoreWeights {
        if (pairing < 0 || proximity < 0 || rail < 0 || fragmentation < 0 || ipHeadroom < 0
                || pairing + proximity + rail + fragmentation + ipHeadroom == 0) {
            throw new IllegalArgumentException("score weights must be ≥ 0 and not all 0");
        }
    }

    /** @return the documented defaults (35, 25, 20, 10, 10) */
    public static ScoreWeights defaults() {
        return new ScoreWeights(35, 25, 20, 10, 10);
    }
}
