package dev.railyard.scheduler.protocol;

import dev.railyard.scheduler.engine.NodeScore;
import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.input.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Lines the port's answers up with the nodes the scheduler asked about, so an adapter always answers every
 * node it was sent and nothing else. A node the port left out gets the neutral answer (pass / neutral score)
 * and a warning in the log: a missing answer must not block scheduling or turn into an HTTP 500. The warning is
 * per request, so rate-limited: one for verdicts and one for scores every 10 s ({@link RateLimitedLog}).
 */
public final class PortAnswers {
    private static final Logger LOG = LoggerFactory.getLogger(PortAnswers.class);
    private static final RateLimitedLog WARNINGS = RateLimitedLog.of(LOG);
    static final String NO_ANSWER = "placement engine gave no answer for this node";

    private PortAnswers() {
    }

    /** One verdict per node in {@code nodes}, in order. */
    public static List<NodeVerdict> verdicts(List<String> nodes, List<NodeVerdict> got) {
        return inNodeOrder(nodes, got, NodeVerdict::node, n -> NodeVerdict.neutral(n, NO_ANSWER),
                "placement engine answered {} of {} nodes; the other {} pass neutrally", null);
    }

    /** One score per node in {@code nodes}, in order; a missing node gets {@code neutralScore}. */
    public static List<NodeScore> scores(List<String> nodes, List<NodeScore> got, int neutralScore) {
        return inNodeOrder(nodes, got, NodeScore::node, n -> NodeScore.neutral(n, neutralScore),
                "placement engine scored {} of {} nodes; the other {} get the neutral score {}", neutralScore);
    }

    /**
     * {@code got} lined up with {@code nodes}: the first answer per node, {@code neutral} for a node without one
     * (logged with {@code warning}, also the rate limit's key, whose {@code {}} are the answered, asked and missing
     * counts, then {@code detail} when it is not null).
     */
    private static <T> List<T> inNodeOrder(List<String> nodes, List<T> got, Function<T, String> name,
                                           Function<String, T> neutral, String warning, Object detail) {
        got = got == null ? List.of() : got;
        if (sameOrder(nodes, got, name)) {
            return got;
        }
        Map<String, T> byNode = new HashMap<>(got.size() * 2);
        for (T v : got) {
            byNode.putIfAbsent(name.apply(v), v);
        }
        List<T> out = new ArrayList<>(nodes.size());
        int missing = 0;
        for (String n : nodes) {
            T v = byNode.get(n);
            if (v == null) {
                missing++;
                v = neutral.apply(n);
            }
            out.add(v);
        }
        if (missing > 0) {
            WARNINGS.warn(warning, warning, nodes.size() - missing, nodes.size(), missing, detail);
        }
        return out;
    }

    private static <T> boolean sameOrder(List<String> nodes, List<T> got, Function<T, String> name) {
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
