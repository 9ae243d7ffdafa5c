package dev.railyard.api.whereabouts;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Spec of an {@link IPPool} ({@code IPPoolSpec} in upstream {@code ippool_types.go}).
 *
 * @param range       the pool's CIDR as written by whereabouts ({@code 192.168.4.0/22}); in node-slice mode the node's
 *                    slice. Allocation offsets count from the IP part of this string as written, not from a recomputed
 *                    network address.
 * @param allocations key = decimal offset of the address from the IP in {@code range} ({@code "266"} is
 *                    192.168.5.10 in 192.168.4.0/22), value = its owner (a null value is kept, for the
 *                    reader to report); null is read as empty
 */
public record IPPoolSpec(String range, Map<String, IPAllocation> allocations) {
    public IPPoolSpec {
        allocations = allocations == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(allocations));
    }
}
