package dev.railyard.scheduler.ipam;

import java.util.List;

/**
 * Free whereabouts addresses for the placement engine: whether the pods of a gang can all get an address on every
 * network they attach, and holds for pods placed but not yet given one.
 *
 * <p>Moments (scheduling-framework vocabulary): Filter and Volcano {@code jobEnqueueable} call {@link #check};
 * Reserve calls {@link #reserve}; Unreserve, and pod deletion, call {@link #release}. {@code railyard explain}
 * reads {@link #check} and {@link #audit}.
 *
 * <p>Implementations are thread-safe; {@link #reserve} is atomic: it succeeds for all placements or changes nothing,
 * and no interleaving of concurrent calls hands out more addresses than a pool has free.
 */
public interface AddressPools {
    /**
     * Checks that every network of the request has at least {@code pods} free addresses in each of its pools, after
     * Railyard's in-flight reservations. In node-slice mode the count is the node's slice; with {@code node == null}
     * the sum of all node slices (a necessary condition, for {@code jobEnqueueable}).
     *
     * @param request the pods' networks
     * @param pods    pods still to place, at least 0
     * @param node    node the pods go to, or null when not chosen yet
     */
    default PoolVerdict check(PodNetworksRequest request, int pods, String node) {
        return check(List.of(new PoolDemand(request, pods, node)));
    }

    /**
     * Checks one pod: as {@link #check(PodNetworksRequest, int, String)} for one pod, where a hold the pod already
     * has is its own and does not count against it.
     *
     * @param podRef {@code namespace/name} of the pod
     */
    default PoolVerdict checkPod(PodNetworksRequest request, String podRef, String node) {
        return check(List.of(new PoolDemand(request, 1, node, java.util.Set.of(podRef))));
    }

    /**
     * Checks several demands together, as for a gang whose tasks differ or span nodes: demands drawing on the same
     * pool add up.
     */
    PoolVerdict check(List<PoolDemand> demands);

    /**
     * Atomically checks the placements together and, when admitted, holds one address per pod, network and range
     * until the pool shows the pod's allocation, the pod is gone, or the hold times out. A pod that already holds
     * addresses has them replaced. Refused: nothing changes.
     *
     * @param placements pods with their node; a node-slice network needs the node
     */
    PoolVerdict reserve(List<PodPlacement> placements);

    /**
     * Atomically checks the pods together and, when admitted, holds one address per pod, network and range, naming
     * the pod's UID, the node, who holds it and until when ({@link HoldRequest}). A pod's earlier holds are its own:
     * they do not count against it, and are replaced. Refused: nothing changes.
     */
    default PoolVerdict hold(List<HoldRequest> requests) {
        return reserve(requests.stream().map(HoldRequest::placement).toList());
    }

    /** @return every hold, and every bound pod whose address is not recorded yet, one entry per pod */
    default List<AddressHold> holds() {
        return List.of();
    }

    /**
     * Drops every hold of the pod (Unreserve, or the pod was deleted).
     *
     * @param podRef {@code <namespace>/<name>}
     * @return how many holds were dropped
     */
    int release(String podRef);

    /**
     * @return true when {@link #check} gives the same verdict for the request on every node (no network of it uses
     *         whereabouts node slices), so a caller judging many nodes may check once; false when unsure
     */
    default boolean sameOnEveryNode(PodNetworksRequest request) {
        return false;
    }

    /**
     * Where the request's first network draws addresses from, without counting them: its {@code master} netdev, range
     * and pool, or nulls where unknown. As {@link #check(PodNetworksRequest, int, String) check(request, 0, null)}
     * names them (range and pool null when the network's pools cannot be counted), except that implementations may
     * name a node-slice network's whole range and NodeSlicePool without adding up every node's slice.
     *
     * @return null when the request names no network
     */
    default NetworkOrigin origin(PodNetworksRequest request) {
        PoolVerdict v = check(request, 0, null);
        if (v.networks().isEmpty()) {
            return null;
        }
        NetworkVerdict nv = v.networks().get(0);
        PoolStatus first = nv.pools().isEmpty() ? null : nv.pools().get(0);
        return new NetworkOrigin(nv.master(), first == null ? null : first.range(),
                first == null ? null : first.poolName());
    }

    /**
     * A network's address source ({@link #origin}).
     *
     * @param master host netdev of the macvlan ({@code lan2}), or null
     * @param range  the whereabouts range as CIDR ({@code 192.168.4.0/22}), or null
     * @param pool   the IPPool name ({@code 192.168.4.0-22}); for node slices the NodeSlicePool's name and
     *               {@code (node slices)}; or null
     */
    record NetworkOrigin(String master, String range, String pool) {
    }

    /** @return every IPPool in the current snapshot with its stale allocations and inconsistencies */
    List<PoolAudit> audit();
}
