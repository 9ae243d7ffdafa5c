package dev.railyard.scheduler.ipam;

import inet.ipaddr.IPAddress;

import java.util.List;

/**
 * One whereabouts range after whereabouts' own normalisation ({@code pkg/config/config.go} {@code LoadIPAMConfig}):
 * the top-level {@code range} (prepended) or an {@code ipRanges[]} entry.
 *
 * @param text       the range as configured ({@code 192.168.4.0/22} or {@code 192.168.4.10-192.168.4.50/22})
 * @param cidr       the range's network
 * @param rangeStart {@code range_start} (or the first IP of the dash form), null when unset or unparsable; still
 *                   subject to whereabouts' silent clipping in {@link UsableAddresses}
 * @param rangeEnd   {@code range_end} (or the IP after the dash), null when unset
 * @param excludes   {@code exclude} entries, parsed (bare IPs as /32 or /128 blocks), in configured order
 */
record IpamRange(String text, AddressText.Cidr cidr, IPAddress rangeStart, IPAddress rangeEnd,
                 List<AddressText.Cidr> excludes) {
    IpamRange {
        excludes = List.copyOf(excludes);
    }

    /** @return the canonical network CIDR that names the IPPool ({@code 192.168.4.0/22}) */
    String canonical() {
        return cidr.canonical();
    }
}
