package dev.railyard.scheduler.ipam;

import java.time.Instant;
import java.util.List;

/**
 * Who holds addresses of a pool that whereabouts has not recorded yet, as {@code pools} and {@code /explain} show
 * them: one entry per pod.
 *
 * @param podRef     {@code namespace/name}
 * @param uid        the pod's UID, empty when unknown
 * @param node       the node the pod goes to (or is bound to), null when not chosen yet
 * @param origin     the moment that took the hold; {@link HoldOrigin#BOUND} for a bound pod whose address is not
 *                   recorded yet
 * @param since      when the hold was taken; null for a bound pod
 * @param until      when it expires; null for a bound pod (it counts until whereabouts records its address or it
 *                   finishes)
 * @param persisted  true when the hold is written on the pod ({@code railyard.dev/address-hold}), so a restarted
 *                   replica or a new leader keeps it
 * @param pools      the IPPools it draws one address from each, per pod interface
 * @param interfaces the pod interfaces ({@code net1}), in the same order as {@code pools}
 */
public record AddressHold(String podRef, String uid, String node, HoldOrigin origin, Instant since, Instant until,
                          boolean persisted, List<String> pools, List<String> interfaces) {
    public AddressHold {
        pools = List.copyOf(pools);
        interfaces = List.copyOf(interfaces);
        uid = uid == null ? "" : uid;
    }

    /** @return how many addresses the pod holds */
    public int addresses() {
        return pools.size();
    }
}
