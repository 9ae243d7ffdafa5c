package dev.railyard.scheduler.ipam;

import java.util.List;

/**
 * The verdict for one attached network.
 *
 * @param network       {@code <namespace>/<name>} of the NetworkAttachmentDefinition
 * @param interfaceName pod-side interface ({@code net1})
 * @param master        the CNI {@code master} netdev of the network ({@code lan2}), the only link from a network to
 *                      its HCA; null when unknown or the network did not resolve
 * @param reason        {@link PoolReason#OK} or why this network refuses the pod
 * @param message       one sentence naming the network, the pool and the counts
 * @param pools         one status per whereabouts range of the network; empty when it does not use whereabouts or
 *                      did not resolve
 * @param notes         what whereabouts would silently ignore, and networks Railyard cannot count (not whereabouts)
 */
public record NetworkVerdict(String network, String interfaceName, String master, PoolReason reason,
                             String message, List<PoolStatus> pools, List<String> notes) {
    public NetworkVerdict {
        pools = List.copyOf(pools);
        notes = List.copyOf(notes);
    }

    public boolean admitted() {
        return reason == PoolReason.OK;
    }
}
