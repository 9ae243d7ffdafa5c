package dev.railyard.scheduler.protocol;

import java.util.Objects;

/**
 * Whether a whole gang may be enqueued now: can every member get nodes, rails and addresses.
 *
 * @param outcome permit, reject or abstain (Volcano's 1 / -1 / 0, pkg/scheduler/plugins/util/util.go)
 * @param reason  one line for a person; required for {@code REJECT}
 */
public record GangVerdict(Outcome outcome, String reason) {
    /** Volcano's vote values for jobEnqueueable, preemptable and reclaimable. */
    public enum Outcome {
        PERMIT(1), ABSTAIN(0), REJECT(-1);

        private final int volcanoStatus;

        Outcome(int volcanoStatus) {
            this.volcanoStatus = volcanoStatus;
        }

        /** The integer Volcano reads under {@code status}. */
        public int volcanoStatus() {
            return volcanoStatus;
        }
    }

    public GangVerdict {
        Objects.requireNonNull(outcome, "outcome");
        reason = reason == null ? "" : reason;
        if (outcome == Outcome.REJECT && reason.isBlank()) {
            throw new IllegalArgumentException("a REJECT gang verdict needs a reason");
        }
    }

    public static GangVerdict permit() {
        return new GangVerdict(Outcome.PERMIT, "");
    }

    public static GangVerdict abstain(String why) {
        return new GangVerdict(Outcome.ABSTAIN, why);
    }

    public static GangVerdict reject(String reason) {
        return new GangVerdict(Outcome.REJECT, reason);
    }
}
