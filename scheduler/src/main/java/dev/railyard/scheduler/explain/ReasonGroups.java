package dev.railyard.scheduler.explain;

import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.engine.Reason;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The kube-scheduler style aggregate of node verdicts: each reason once, with the nodes that gave it. */
final class ReasonGroups {
    private ReasonGroups() {
    }

    /** Node reasons aggregated by summary, most nodes first, ties in order of first appearance. */
    static List<Explanation.ReasonGroup> of(List<NodeVerdict> verdicts) {
        Map<String, List<String>> nodes = new LinkedHashMap<>();
        Map<String, String> codes = new LinkedHashMap<>();
        for (NodeVerdict v : verdicts) {
            Set<String> seen = new HashSet<>();
            for (Reason r : v.reasons()) {
                if (seen.add(r.summary())) {
                    nodes.computeIfAbsent(r.summary(), k -> new ArrayList<>()).add(v.node());
                    codes.putIfAbsent(r.summary(), r.code().name());
                }
            }
        }
        List<String> order = new ArrayList<>(nodes.keySet());
        List<Explanation.ReasonGroup> out = new ArrayList<>();
        for (String s : order) {
            out.add(new Explanation.ReasonGroup(codes.get(s), s, nodes.get(s).size(), nodes.get(s)));
        }
        out.sort((a, b) -> a.count() != b.count() ? Integer.compare(b.count(), a.count())
                : Integer.compare(order.indexOf(a.summary()), order.indexOf(b.summary())));
        return out;
    }
}
