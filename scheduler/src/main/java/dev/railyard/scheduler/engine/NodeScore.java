package dev.railyard.scheduler.engine;

import java.util.List;
import java.util.Objects;

/**
 * The Score of one pod on one node on Railyard's scale, 0 (worst) to {@value #MAX} (best), like the kube-scheduler
 * framework's {@code MaxNodeScore}. The engine, the service and both protocol adapters use this one type; the
 * adapters rescale it to their protocol's range.
 *
 * @param node    node name, never null
 * @param score   0..{@value #MAX}: the weighted mean of the terms, or the neutral score
 * @param terms   the breakdown; empty for a neutral score or a node the engine does not know
 * @param neutral true when the score is the configured neutral value because Railyard cannot judge the node
 * @throws IllegalArgumentException for a score outside 0..{@value #MAX}
 */
public record NodeScore(String node, int score, List<Term> terms, boolean neutral) {
    /** Highest score on Railyard's scale. */
    public static final int MAX = 100;

    public NodeScore {
        Objects.requireNonNull(node, "node");
        if (score < 0 || score > MAX) {
            throw new IllegalArgumentException("score for node " + node + " must be 0.." + MAX + ", got " + score);
        }
        terms = terms == null ? List.of() : List.copyOf(terms);
    }

    /** A judged score with its breakdown. */
    public NodeScore(String node, int score, List<Term> terms) {
        this(node, score, terms, false);
    }

    /** @return the neutral score for a node Railyard cannot judge */
    public static NodeScore neutral(String node, int score) {
        return new NodeScore(node, score, List.of(), true);
    }

    /** @return this score with another value and the same breakdown (the gang plan's steering) */
    public NodeScore withScore(int newScore) {
        return new NodeScore(node, newScore, terms, neutral);
    }

    /**
     * One term of the breakdown.
     *
     * @param name   {@code pairing}, {@code proximity}, {@code rail}, {@code fragmentation} or {@code ipHeadroom}
     * @param value  0–100
     * @param weight its weight
     * @param why    one line on how the value came about
     */
    public record Term(String name, int value, int weight, String why) {
    }
}
