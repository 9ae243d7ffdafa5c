package dev.railyard.scheduler.ipam;

import java.util.Set;

/**
 * Pods of one template still to place, all on one node (or anywhere, {@code node == null}).
 *
 * @param request the pods' networks
 * @param pods    how many pods, at least 0
 * @param node    the node they go to; needed only for node-slice networks, where null sums every node's slice
 * @param podRefs {@code namespace/name} of the pods, when known: a hold one of them already has is theirs, so it is
 *                not counted against them (a gang member Volcano allocated, a pod whose filter took a hold); empty
 *                when unknown
 */
public record PoolDemand(PodNetworksRequest request, int pods, String node, Set<String> podRefs) {
    public PoolDemand {
        if (request == null) {
            throw new IllegalArgumentException("request is null");
        }
        if (pods < 0) {
            throw new IllegalArgumentException("pods must be >= 0, got " + pods);
        }
        podRefs = podRefs == null ? Set.of() : Set.copyOf(podRefs);
    }

    /** Pods not named: every hold counts against them. */
    public PoolDemand(PodNetworksRequest request, int pods, String node) {
        this(request, pods, node, Set.of());
    }
}
