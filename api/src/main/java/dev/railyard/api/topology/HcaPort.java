package dev.railyard.api.topology;

import java.util.List;

/**
 * One port of an RDMA HCA.
 *
 * @param number       port number, 1-based as in {@code /sys/class/infiniband/<hca>/ports/<n>}
 * @param linkLayer    {@code Ethernet} (RoCE) or {@code InfiniBand}, or null when unknown
 * @param state        port state as the kernel words it ({@code ACTIVE}, {@code DOWN}, ...), or null when unknown
 * @param rateGbps     link rate in Gbit/s, or null when unknown
 * @param netdevs      netdev names on this port ({@code lan2}); empty when unknown
 * @param gidTableSize number of populated GID entries, or null when unknown (RoCE ports hold at most 63 pods
 *                     per port in practice, see the rdma-shared-dev-plugin limit)
 */
public record HcaPort(int number, String linkLayer, String state, Integer rateGbps, List<String> netdevs,
                      Integer gidTableSize) {
    public HcaPort {
        netdevs = netdevs == null ? List.of() : List.copyOf(netdevs);
    }

    /** @return true unless the port is known to be down (unknown state counts as usable). */
    @com.fasterxml.jackson.annotation.JsonIgnore
    public boolean isUp() {
        return state == null || state.toUpperCase(java.util.Locale.ROOT).contains("ACTIVE");
    }
}
