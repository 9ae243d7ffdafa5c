package dev.railyard.api.topology;

import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * Run-time state of one HCA port.
 *
 * <p>The per-port pod limit comes from the RoCE GID table: a port has 128 GID entries and, with RoCE v1 and v2
 * both enabled, every macvlan pod address takes two of them, so NVIDIA's network-operator caps a shared RDMA pool
 * at 63 pods per port (Mellanox/network-operator PR #580; fixture case-36).
 *
 * @param hca        HCA name ({@code mlx5_0})
 * @param port       port number, 1-based
 * @param state      port state as the kernel words it ({@code ACTIVE}, {@code DOWN}, ...), or null when unknown
 * @param linkLayer  {@code Ethernet} (RoCE) or {@code InfiniBand}, or null when unknown
 * @param rateGbps   link rate in Gbit/s, or null when unknown
 * @param gidEntries number of populated (non-zero) GID table entries, or null when unknown
 * @param rdmaPods   number of pods holding an RDMA resource mapped to this HCA
 * @param podLimit   most pods this port can serve (63 for RoCE by default; see above)
 */
public record HcaPortStatus(String hca, int port, String state, String linkLayer, Integer rateGbps,
                            Integer gidEntries, int rdmaPods, int podLimit) {
    /** @return true unless the port is known to be down (unknown state counts as up, as in {@link HcaPort}). */
    @JsonIgnore
    public boolean isUp() {
        return state == null || state.toUpperCase(java.util.Locale.ROOT).contains("ACTIVE");
    }
}
