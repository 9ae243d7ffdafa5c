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
 * @param memberNodes       the node of each member pool, in the same order, for a sum of node slices; empty when
 *                          every member belongs to {@link #node} (one pool)
 * @param id                a stable identity for summing demand: the member pool names joined by commas (null:
 *                          made from them; a sum of 20,000 slices makes it once, not per call)
 */
record RangeView(List<String> memberPools, String poolName, String poolNamespace, String node, String range,
                 String span, long usable, long allocated, long reservedElsewhere, DecodedPool pool,
                 List<String> stale, List<String> inconsistencies, List<String> notes, PoolReason failure,
                 String failureMessage, List<String> memberNodes, String id) {
    RangeView {
        memberPools = List.copyOf(memberPools);
        stale = List.copyOf(stale);
        inconsistencies = List.copyOf(inconsistencies);
        notes = List.copyOf(notes);
        memberNodes = memberNodes == null ? List.of() : List.copyOf(memberNodes);
        if (!memberNodes.isEmpty() && memberNodes.size() != memberPools.size()) {
            throw new IllegalArgumentException(memberNodes.size() + " member nodes for " + memberPools.size()
                    + " member pools");
        }
        if (id == null) {
            id = memberPools.size() == 1 ? memberPools.get(0) : String.join(",", memberPools);
        }
    }

    /** A view of one pool (or none) without member nodes of its own. */
    RangeView(List<String> memberPools, String poolName, String poolNamespace, String node, String range,
              String span, long usable, long allocated, long reservedElsewhere, DecodedPool pool,
              List<String> stale, List<String> inconsistencies, List<String> notes, PoolReason failure,
              String failureMessage) {
        this(memberPools, poolName, poolNamespace, node, range, span, usable, allocated, reservedElsewhere, pool,
                stale, inconsistencies, notes, failure, failureMessage, List.of(), null);
    }

    static RangeView failed(String poolName, String range, PoolReason reason, String message) {
        return new RangeView(List.of(), poolName, null, null, range, "(none)", 0, 0, 0, null, List.of(), List.of(),
                List.of(), reason, message);
    }

    /** @return the node whose slice member pool {@code i} is, or null outside node-slice mode */
    String memberNode(int i) {
        return memberNodes.isEmpty() ? node : memberNodes.get(i);
    }

    /** @return this view with other stale allocations (its pool's podrefs were judged against other live pods) */
    RangeView withStale(List<String> newStale) {
        return new RangeView(memberPools, poolName, poolNamespace, node, range, span, usable, allocated,
                reservedElsewhere, pool, newStale, inconsistencies, notes, failure, failureMessage, memberNodes, id);
    }

    /** @return {@code usable − allocated − reservedElsewhere}, saturating, never below 0 */
    long freeBeforeHolds() {
        if (usable == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        return Math.max(0, usable - allocated - reservedElsewhere);
    }
}
