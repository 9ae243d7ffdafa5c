package dev.railyard.scheduler.protocol;

import java.util.Objects;

/**
 * The Score for one node on Railyard's own scale, 0 (worst) to 100 (best), like the kube-scheduler
 * framework's {@code MaxNodeScore}. Adapters rescale to their protocol's range.
 *
 * @param node    node name
 * @param score   0..100
 * @param neutral true when the score is the configured neutral value because Railyard cannot judge the node
 */
public record NodeScore(String node, int score, boolean neutral) {
    /** Highest score on Railyard's scale. */
    public static final int MAX = 100;

    public NodeScore {
        Objects.requireNonNull(node, "node");
        if (score < 0 || score > MAX) {
            throw new IllegalArgumentException("score for node " + node + " must be 0.." + MAX + ", got " + score);
        }
    }
}
