package dev.railyard.scheduler.protocol;

/**
 * Whether a gang's tentative allocation in the current Volcano session is good enough to commit (jobReady).
 *
 * @param ready   true lets Volcano commit (it ANDs this with the other plugins' answers)
 * @param reason  one line for a person; why not ready, or why the answer is neutral
 * @param neutral true when Railyard said "ready" because it cannot judge the gang
 */
public record GangReadiness(boolean ready, String reason, boolean neutral) {
    public GangReadiness {
        reason = reason == null ? "" : reason;
        if (neutral && !ready) {
            throw new IllegalArgumentException("a neutral readiness answer must not block the gang");
        }
    }

    /** Ready, judged with knowledge. */
    public static GangReadiness readyToCommit() {
        return new GangReadiness(true, "", false);
    }

    /** Not ready, with the reason. */
    public static GangReadiness notReady(String reason) {
        return new GangReadiness(false, reason, false);
    }
}
