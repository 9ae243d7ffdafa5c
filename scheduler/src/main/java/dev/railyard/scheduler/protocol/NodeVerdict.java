package dev.railyard.scheduler.protocol;

import java.util.Objects;

/**
 * The Filter verdict for one node.
 *
 * @param node    node name
 * @param outcome pass, or why not
 * @param reason  a one-line reason for a person; required (non-blank) unless the outcome is {@code PASS}
 * @param neutral true when the decision was made without knowledge (no topology for the node, cold cache,
 *                engine not wired): the node passes because Railyard does not know, not because it checked
 */
public record NodeVerdict(String node, Outcome outcome, String reason, boolean neutral) {

    /** Filter outcomes, in kube-scheduler framework terms. */
    public enum Outcome {
        /** the node fits */
        PASS,
        /** the node does not fit now; evicting pods could make it fit (preemption may help) */
        UNSCHEDULABLE,
        /** the node cannot fit whatever is evicted (no preemption) */
        UNRESOLVABLE
    }

    public NodeVerdict {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(outcome, "outcome");
        reason = reason == null ? "" : reason;
        if (outcome != Outcome.PASS && reason.isBlank()) {
            throw new IllegalArgumentException("a " + outcome + " verdict for node " + node + " needs a reason");
        }
        if (neutral && outcome != Outcome.PASS) {
            throw new IllegalArgumentException("a neutral verdict passes the node; got " + outcome);
        }
    }

    /** The node fits, decided with knowledge. */
    public static NodeVerdict pass(String node) {
        return new NodeVerdict(node, Outcome.PASS, "", false);
    }

    /** The node passes because Railyard cannot judge it; {@code why} says what is missing. */
    public static NodeVerdict neutral(String node, String why) {
        return new NodeVerdict(node, Outcome.PASS, why, true);
    }

    /** The node does not fit now, preemption may help. */
    public static NodeVerdict unschedulable(String node, String reason) {
        return new NodeVerdict(node, Outcome.UNSCHEDULABLE, reason, false);
    }

    /** The node cannot fit, preemption would not help. */
    public static NodeVerdict unresolvable(String node, String reason) {
        return new NodeVerdict(node, Outcome.UNRESOLVABLE, reason, false);
    }

    /** True when the node fits (with or without knowledge). */
    public boolean passes() {
        return outcome == Outcome.PASS;
    }
}
