package dev.railyard.scheduler.ipam;

import java.util.List;

/**
 * A whereabouts IPAM config ({@code "type": "whereabouts"}) as whereabouts reads it ({@code pkg/types/types.go},
 * {@code pkg/config/config.go}), reduced to what decides how many addresses a network can still hand out.
 *
 * @param ranges            the ranges, one address drawn from each per attachment; the top-level {@code range} first
 * @param networkName       {@code network_name}, or empty: prefixes pool and reservation names
 * @param overlappingRanges {@code enable_overlapping_ranges} (default true): whether OverlappingRangeIPReservations
 *                          of the same network name take addresses away
 * @param nodeSliceSize     {@code node_slice_size} as a prefix length, or null when not in node-slice mode
 * @param cniName           the CNI config's {@code name}, which names the NodeSlicePool when {@code networkName} is
 *                          empty
 * @param notes             things whereabouts silently ignores in this config, one line each
 */
record IpamConfig(List<IpamRange> ranges, String networkName, boolean overlappingRanges, Integer nodeSliceSize,
                  String cniName, List<String> notes) {
    IpamConfig {
        ranges = List.copyOf(ranges);
        notes = List.copyOf(notes);
        networkName = networkName == null ? "" : networkName;
    }

    boolean nodeSliceMode() {
        return nodeSliceSize != null;
    }

    /** @return the NodeSlicePool name: {@code network_name} when set, else the CNI config name */
    String nodeSlicePoolName() {
        return networkName.isEmpty() ? cniName : networkName;
    }
}
