package dev.railyard.scheduler.engine;

import java.util.List;

/**
 * The Filter's answer for one pod on one node: feasible when there are no reasons.
 *
 * @param node    node name
 * @param reasons why the node cannot take the pod; empty when it can
 */
public record NodeVerdict(String node, List<Reason> reasons) {
    public NodeVerdict {
        reasons = List.copyOf(reasons);
    }

    /** @return true when the node can take the pod */
    public boolean feasible() {
        return reasons.isEmpty();
    }

    /** @return the reasons joined into one line, or {@code "fits"} */
    public String describe() {
        if (reasons.isEmpty()) {
            return "fits";
        }
        if (reasons.size() == 1) {
            // the common case, once per refused node of every kube filter: no stream, no joiner
            return reasons.getFirst().toString();
        }
        StringBuilder b = new StringBuilder();
        for (Reason r : reasons) {
            if (!b.isEmpty()) {
                b.append("; ");
            }
            b.append(r);
        }
        return b.toString();
    }
}
