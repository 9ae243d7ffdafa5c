package dev.railyard.scheduler.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Aggregates node verdicts the way kube-scheduler words a FailedScheduling event. */
public final class Verdicts {
    private Verdicts() {
    }

    /**
     * @param verdicts one verdict per node considered
     * @return {@code "0/12 nodes available: 8 no free GPU pair at ≤ PXB, 4 rail set {0,1} unavailable"}: each distinct
     * summary with the number of nodes showing it (a node with two reasons counts under both), most frequent first,
     * ties in order of first appearance
     */
    public static String summarize(List<NodeVerdict> verdicts) {
        int feasible = 0;
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (NodeVerdict v : verdicts) {
            if (v.feasible()) {
                feasible++;
                continue;
            }
            List<String> seen = new ArrayList<>();
            for (Reason r : v.reasons()) {
                if (!seen.contains(r.summary())) {
                    seen.add(r.summary());
                    counts.merge(r.summary(), 1, Integer::sum);
                }
            }
        }
        StringBuilder b = new StringBuilder();
        b.append(feasible).append('/').append(verdicts.size()).append(" nodes available");
        if (!counts.isEmpty()) {
            List<Map.Entry<String, Integer>> entries = new ArrayList<>(counts.entrySet());
            List<String> order = new ArrayList<>(counts.keySet());
            entries.sort(Comparator.<Map.Entry<String, Integer>>comparingInt(Map.Entry::getValue).reversed()
                    .thenComparingInt(e -> order.indexOf(e.getKey())));
            b.append(": ");
            for (int i = 0; i < entries.size(); i++) {
                if (i > 0) {
                    b.append(", ");
                }
                b.append(entries.get(i).getValue()).append(' ').append(entries.get(i).getKey());
            }
        }
        return b.toString();
    }
}
