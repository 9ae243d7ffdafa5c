package dev.railyard.scheduler.ipam;

import java.util.List;

/**
 * A network selection resolved to its NetworkAttachmentDefinition (and MacvlanNetwork) and IPAM config.
 *
 * @param key     {@code <namespace>/<name>}
 * @param failure null when resolved, else why the pod cannot attach
 * @param message the failure in one line, or null
 * @param ipam    the whereabouts config, or null when the network does not use whereabouts (nothing to count)
 * @param master  the CNI {@code master} netdev, or null
 * @param notes   what Railyard cannot see or whereabouts ignores, one line each
 */
record NetworkResolution(String key, PoolReason failure, String message, IpamConfig ipam, String master,
                         List<String> notes) {
    NetworkResolution {
        notes = List.copyOf(notes);
    }

    static NetworkResolution failed(String key, PoolReason reason, String message) {
        return new NetworkResolution(key, reason, message, null, null, List.of());
    }
}
