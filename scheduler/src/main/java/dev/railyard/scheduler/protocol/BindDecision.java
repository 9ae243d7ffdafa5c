package dev.railyard.scheduler.protocol;

import java.time.Instant;
import java.util.Map;

/**
 * Whether Railyard binds a pod to a node (kube-scheduler {@code bind}) or accepts Volcano's {@code allocateFunc},
 * and if so with what: the answer of {@link PlacementDecisions#admitBind}.
 *
 * @param admitted    true when the bind may go ahead (the pod's addresses are held)
 * @param why         for a refusal, a short metric label ({@code unknown_pod}, {@code uid_mismatch},
 *                    {@code already_bound}, {@code other_scheduler}, {@code infeasible}, {@code pool},
 *                    {@code cache_cold}); empty when admitted
 * @param reason      for a refusal, one line for the scheduler's error and the pod's Events; empty when admitted
 * @param annotations what to put on the Binding: the placement hints and the address hold; empty when refused
 * @param holdSince   when the pod's address hold was taken, or null when it holds none
 */
public record BindDecision(boolean admitted, String why, String reason, Map<String, String> annotations,
                           Instant holdSince) {
    public BindDecision {
        why = why == null ? "" : why;
        reason = reason == null ? "" : reason;
        annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
        if (!admitted && (why.isEmpty() || reason.isBlank())) {
            throw new IllegalArgumentException("a refusal needs a label and a reason");
        }
    }

    /** @return an admitted bind with these annotations */
    public static BindDecision admit(Map<String, String> annotations, Instant holdSince) {
        return new BindDecision(true, "", "", annotations, holdSince);
    }

    /** @return a refusal */
    public static BindDecision refuse(String why, String reason) {
        return new BindDecision(false, why, reason, Map.of(), null);
    }
}
