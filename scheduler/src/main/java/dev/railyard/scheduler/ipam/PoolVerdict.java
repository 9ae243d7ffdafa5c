package dev.railyard.scheduler.ipam;

import java.util.List;

/**
 * The answer of an {@link AddressPools} check or reservation: data, never an exception.
 *
 * @param reason   {@link PoolReason#OK}, or the reason of the first refusing network in annotation order
 * @param message  one line: every refusing network's sentence joined by {@code "; "}, or a summary of the pools
 *                 when admitted
 * @param networks one verdict per distinct network and node, in annotation order
 */
public record PoolVerdict(PoolReason reason, String message, List<NetworkVerdict> networks) {
    public PoolVerdict {
        networks = List.copyOf(networks);
    }

    /** @return true when the pods may be placed */
    public boolean admitted() {
        return reason == PoolReason.OK;
    }

    /** @return every pool status of every network */
    public List<PoolStatus> pools() {
        return networks.stream().flatMap(n -> n.pools().stream()).toList();
    }
}
