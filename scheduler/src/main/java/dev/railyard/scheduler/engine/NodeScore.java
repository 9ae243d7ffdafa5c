package dev.railyard.scheduler.engine;

import java.util.List;

/**
 * The Score of one pod on one node.
 *
 * @param node   node name
 * @param score  0–100, the weighted mean of the terms
 * @param terms  the breakdown
 */
public record NodeScore(String node, int score, List<Term> terms) {
    public NodeScore {
        terms = List.copyOf(terms);
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
