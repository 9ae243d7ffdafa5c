package dev.railyard.scheduler.ipam;

import java.util.List;

/**
 * The counts of one range of one network (one IPPool, or in node-slice mode without a node, the sum of every node's
 * pool), before Railyard's in-flight holds. Immutable, cached per snapshot.
 *
 * @param memberPools       the IPPool names counted (one, or one per node slice)
 * @param poolName          the name shown to people
 * @param poolNamespace     where the IPPool was found, or null when not created yet
 * @param node              the node of a slice, else null
 * @param range             range or slice CIDR
 * @param span              first-last address iterated
 * @param usable            addresses whereabouts can hand out, saturated
 * @param allocated         of those, allocated in the pool
 * @param reservedElsewhere of those, reserved by other ranges of the same network name
 * @param pool              the decoded IPPool (single-pool views), or null
 * @param stale             stale allocations
 * @param inconsistencies   pool inconsistencies
 * @param notes             what whereabouts silently ignores in this range
 * @param failure           null, or why this range refuses every pod
 * @param failureMessage    the failure in one line
 */
record RangeView(List<String> memberPools, String poolName, String poolNamespace, String node, String range,
                 String span, long usable, long allocated, long reservedElsewhere, DecodedPool pool,
                 List<String> stale, List<String> inconsistencies, List<String> notes, PoolReason failure,
                 String failureMessage) {
    RangeView {
        memberPools = List.copyOf(memberPools);
        stale = List.copyOf(stale);
        inconsistencies = List.copyOf(inconsistencies);
        notes = List.copyOf(notes);
    }

    static RangeView failed(String poolName, String range, PoolReason reason, String message) {
        return new RangeView(List.of(), poolName, null, null, range, "(none)", 0, 0, 0, null, List.of(), List.of(),
                List.of(), reason, message);
    }

    /** @return a stable identity for summing demand: the member pool names */
    String id() {
        return String.join(",", memberPools);
    }

    /** @return {@code usable − allocated − reservedElsewhere}, saturating, never below 0 */
    long freeBeforeHolds() {
        if (usable == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        return Math.max(0, usable - allocated - reservedElsewhere);
    }
}
