package dev.railyard.scheduler.protocol;

import dev.railyard.scheduler.engine.NodeScore;
import dev.railyard.scheduler.engine.NodeVerdict;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Lines the port's answers up with the nodes the scheduler asked about, so an adapter always answers every
 * node it was sent and nothing else. A node the port left out gets the neutral answer (pass / neutral score)
 * and a warning in the log: a missing answer must not block scheduling or turn into an HTTP 500.
 */
public final class PortAnswers {
    private static final Logger LOG = LoggerFactory.getLogger(PortAnswers.class);
    static final String NO_ANSWER = "placement engine gave no answer for this node";

    private PortAnswers() {
    }

    /** One verdict per node in {@code nodes}, in order. */
    public static List<NodeVerdict> verdicts(List<String> nodes, List<NodeVerdict> got) {
        got = got == null ? List.of() : got;
        if (sameOrder(nodes, got, NodeVerdict::node)) {
            return got;
        }
        Map<String, NodeVerdict> byNode = new HashMap<>(got.size() * 2);
        for (NodeVerdict v : got) {
            byNode.putIfAbsent(v.node(), v);
        }
        List<NodeVerdict> out = new ArrayList<>(nodes.size());
        int missing = 0;
        for (String n : nodes) {
            NodeVerdict v = byNode.get(n);
            if (v == null) {
                missing++;
                v = NodeVerdict.neutral(n, NO_ANSWER);
            }
            out.add(v);
        }
        if (missing > 0) {
            LOG.warn("placement engine answered {} of {} nodes; the other {} pass neutrally",
                    nodes.size() - missing, nodes.size(), missing);
        }
        return out;
    }

    /** One score per node in {@code nodes}, in order; a missing node gets {@code neutralScore}. */
    public static List<NodeScore> scores(List<String> nodes, List<NodeScore> got, int neutralScore) {
        got = got == null ? List.of() : got;
        if (sameOrder(nodes, got, NodeScore::node)) {
            return got;
        }
        Map<String, NodeScore> byNode = new HashMap<>(got.size() * 2);
        for (NodeScore s : got) {
            byNode.putIfAbsent(s.node(), s);
        }
        List<NodeScore> out = new ArrayList<>(nodes.size());
        int missing = 0;
        for (String n : nodes) {
            NodeScore s = byNode.get(n);
            if (s == null) {
                missing++;
                s = NodeScore.neutral(n, neutralScore);
            }
            out.add(s);
        }
        if (missing > 0) {
            LOG.warn("placement engine scored {} of {} nodes; the other {} get the neutral score {}",
                    nodes.size() - missing, nodes.size(), missing, neutralScore);
        }
        return out;
    }

    private static <T> boolean sameOrder(List<String> nodes, List<T> got, java.util.function.Function<T, String> name) {
        if (got.size() != nodes.size()) {
            return false;
        }
        for (int i = 0; i < nodes.size(); i++) {
            if (!nodes.get(i).equals(name.apply(got.get(i)))) {
                return false;
            }
        }
        return true;
    }
}
