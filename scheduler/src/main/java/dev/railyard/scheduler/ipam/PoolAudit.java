package dev.railyard.scheduler.ipam;

import java.util.List;

/**
 * What one IPPool object holds, independent of any network config: for metrics and {@code railyard explain}.
 *
 * @param namespace        the IPPool's namespace
 * @param name             the IPPool's name
 * @param range            {@code spec.range} as written
 * @param allocations      number of entries in {@code spec.allocations}
 * @param staleAllocations allocations whose podref names no existing pod
 * @param inconsistencies  duplicate podrefs, offsets outside the range, ...
 * @param error            why the pool cannot be read, or null
 */
public record PoolAudit(String namespace, String name, String range, int allocations, List<String> staleAllocations,
                        List<String> inconsistencies, String error) {
    public PoolAudit {
        staleAllocations = List.copyOf(staleAllocations);
        inconsistencies = List.copyOf(inconsistencies);
    }
}
