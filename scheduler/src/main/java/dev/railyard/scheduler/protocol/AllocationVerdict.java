package dev.railyard.scheduler.protocol;

/**
 * The answer to a tentative allocation event (Volcano allocateFunc): accept it, or veto it so Volcano rolls
 * the allocation back.
 *
 * @param accepted true to accept
 * @param reason   one line for a person; required when vetoing
 */
public record AllocationVerdict(boolean accepted, String reason) {
    public AllocationVerdict {
        reason = reason == null ? "" : reason;
        if (!accepted && reason.isBlank()) {
            throw new IllegalArgumentException("a veto needs a reason");
        }
    }

    public static AllocationVerdict accept() {
        return new AllocationVerdict(true, "");
    }

    public static AllocationVerdict veto(String reason) {
        return new AllocationVerdict(false, reason);
    }
}
