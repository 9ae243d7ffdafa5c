package dev.railyard.agent;

/**
 * What one refresh did.
 *
 * @param decision     the publish gate's decision
 * @param published    true when a write was attempted and succeeded
 * @param complete     true when sysfs and the kubelet were both read
 * @param problem      one-line description of what failed (a source or the write), or null
 * @param desired      the object the refresh wanted the API server to hold
 */
public record RefreshOutcome(PublishGate.Decision decision, boolean published, boolean complete, String problem,
                             DesiredNodeTopology desired) {
    /** @return true when nothing failed: the next refresh runs after the normal period, not a backoff */
    public boolean healthy() {
        return complete && problem == null;
    }
}
