package dev.railyard.scheduler.ipam;

import java.util.List;

/**
 * The count of one whereabouts pool as Railyard sees it. Counts are addresses; they saturate at
 * {@link Long#MAX_VALUE} for IPv6 ranges too wide to matter.
 *
 * <p>{@code free = usable − allocated − reservedElsewhere − inFlight}, never below 0.
 *
 * @param poolName          IPPool name by whereabouts' rule ({@code 192.168.4.0-22}); for a node-slice network checked
 *                          without a node, the NodeSlicePool name and the number of node slices summed
 * @param poolNamespace     namespace the IPPool was found in, or null when it does not exist yet (nothing allocated)
 * @param node              the node whose slice this is (node-slice mode), else null
 * @param range             the range CIDR ({@code 192.168.4.0/22}) or the node's slice
 * @param span              first-last address whereabouts iterates over, before excludes
 * @param usable            addresses whereabouts can hand out from this range, ignoring reservations
 * @param allocated         of those, the ones the IPPool lists (stale ones included)
 * @param reservedElsewhere of those, the ones another range of the same network name holds
 *                          (OverlappingRangeIPReservation without an allocation in this pool)
 * @param inFlight          Railyard's own reservations for pods placed but not yet in the pool
 * @param free              addresses left for new pods
 * @param needed            addresses the checked pods need from this pool
 * @param staleAllocations  allocations whose podref names no existing pod ({@code 10.3.8.152 (pcrf/pcrf-sm-0)}); they
 *                          still count as allocated until whereabouts' reconciler frees them
 * @param inconsistencies   what is wrong in the pool (one podref holding two addresses, ...); empty when consistent
 */
public record PoolStatus(String poolName, String poolNamespace, String node, String range, String span, long usable,
                         long allocated, long reservedElsewhere, long inFlight, long free, long needed,
                         List<String> staleAllocations, List<String> inconsistencies) {
    public PoolStatus {
        staleAllocations = List.copyOf(staleAllocations);
        inconsistencies = List.copyOf(inconsistencies);
    }

    /** @return true when the pool lists something whereabouts should not have written */
    public boolean inconsistent() {
        return !inconsistencies.isEmpty();
    }

    /** @return true when {@code free >= needed} */
    public boolean enough() {
        return free >= needed;
    }

    /**
     * @return one sentence naming the pool and its counts, e.g. {@code pool 10.128.165.0-24 (range 10.128.165.0/24,
     *         addresses 10.128.165.32-10.128.165.34): 0 of 3 free (3 allocated, 0 reserved by other ranges, 0 in
     *         flight), 1 needed}
     */
    public String describe() {
        StringBuilder b = new StringBuilder("pool ").append(poolName);
        b.append(" (");
        if (poolNamespace == null) {
            b.append("not created yet, ");
        } else {
            b.append("in ").append(poolNamespace).append(", ");
        }
        if (node != null) {
            b.append("slice of node ").append(node).append(' ');
        } else {
            b.append("range ");
        }
        b.append(range).append(", addresses ").append(span).append("): ");
        b.append(count(free)).append(" of ").append(count(usable)).append(" free (").append(count(allocated))
                .append(" allocated");
        if (!staleAllocations.isEmpty()) {
            b.append(" of which ").append(staleAllocations.size()).append(" stale");
        }
        b.append(", ").append(reservedElsewhere).append(" reserved by other ranges, ").append(inFlight)
                .append(" in flight), ").append(needed).append(" needed");
        if (inconsistent()) {
            b.append("; inconsistent: ").append(String.join("; ", inconsistencies));
        }
        return b.toString();
    }

    private static String count(long n) {
        return n == Long.MAX_VALUE ? "unlimited" : Long.toString(n);
    }
}
