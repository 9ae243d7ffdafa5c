package dev.railyard.agent;

import java.time.Instant;

/**
 * What {@code /healthz} reports.
 *
 * @param live          the refresh loop has finished a refresh recently (see {@link NodeAgent#health()})
 * @param stale         the last refresh could not read every source, or the last write failed
 * @param lastRefresh   end of the last refresh, or null before the first
 * @param lastPublish   time of the last successful write, or null
 * @param lastProblem   one-line description of the last failure, or null when the last refresh was clean
 */
public record AgentHealth(boolean live, boolean stale, Instant lastRefresh, Instant lastPublish, String lastProblem) {
}
