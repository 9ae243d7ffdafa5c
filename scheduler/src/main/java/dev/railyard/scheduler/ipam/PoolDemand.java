package dev.railyard.scheduler.ipam;

/**
 * Pods of one template still to place, all on one node (or anywhere, {@code node == null}).
 *
 * @param request the pods' networks
 * @param pods    how many pods, at least 0
 * @param node    the node they go to; needed only for node-slice networks, where null sums every node's slice
 */
public record PoolDemand(PodNetworksRequest request, int pods, String node) {
    public PoolDemand {
        if (request == null) {
            throw new IllegalArgumentException("request is null");
        }
        if (pods < 0) {
            throw new IllegalArgumentException("pods must be >= 0, got " + pods);
        }
    }
}
