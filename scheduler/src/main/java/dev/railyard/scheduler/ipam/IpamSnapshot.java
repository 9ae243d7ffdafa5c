package dev.railyard.scheduler.ipam;

import dev.railyard.api.multus.MacvlanNetwork;
import dev.railyard.api.multus.NetworkAttachmentDefinition;
import dev.railyard.api.whereabouts.IPPool;
import dev.railyard.api.whereabouts.NodeSlicePool;
import dev.railyard.api.whereabouts.OverlappingRangeIPReservation;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * The cluster objects the ledger reads, taken once and immutable (plain data; the informers that fill it live
 * elsewhere). Lists hold every object cluster-wide: whereabouts keeps its objects in its own namespace, which the
 * ledger discovers from where they are.
 *
 * @param takenAt                        when the objects were read; a hold made before this instant is dropped when
 *                                       its pod is absent
 * @param networkAttachmentDefinitions   all NetworkAttachmentDefinitions
 * @param macvlanNetworks                all MacvlanNetworks (cluster-scoped)
 * @param ipPools                        all whereabouts IPPools
 * @param overlappingRangeIPReservations all whereabouts OverlappingRangeIPReservations
 * @param nodeSlicePools                 all whereabouts NodeSlicePools
 * @param livePods                       {@code <namespace>/<name>} of every pod that exists (any phase, terminating
 *                                       included: those still hold their addresses)
 * @param boundPods                      pods bound to a node ({@code spec.nodeName}), neither finished nor being
 *                                       deleted, that attach secondary networks: whereabouts gives each an address
 *                                       per network when its sandbox starts, so the ledger counts those it has not
 *                                       recorded yet as in flight (docs/adr/0005)
 * @param heldPods                       holds written on pods not bound yet ({@link HoldAnnotation}), whatever their
 *                                       expiry: the ledger adopts the unexpired ones it does not hold itself
 * @param podChanges                     the pods changed since the snapshot before this one of the same source, or
 *                                       null when unknown (the ledger then counts from the lists alone)
 */
public record IpamSnapshot(Instant takenAt, List<NetworkAttachmentDefinition> networkAttachmentDefinitions,
                           List<MacvlanNetwork> macvlanNetworks, List<IPPool> ipPools,
                           List<OverlappingRangeIPReservation> overlappingRangeIPReservations,
                           List<NodeSlicePool> nodeSlicePools, Set<String> livePods, List<PodPlacement> boundPods,
                           List<PersistedHold> heldPods, PodChanges podChanges) {
    public IpamSnapshot {
        if (takenAt == null) {
            throw new IllegalArgumentException("takenAt is null");
        }
        networkAttachmentDefinitions = copy(networkAttachmentDefinitions);
        macvlanNetworks = copy(macvlanNetworks);
        ipPools = copy(ipPools);
        overlappingRangeIPReservations = copy(overlappingRangeIPReservations);
        nodeSlicePools = copy(nodeSlicePools);
        // a persistent set (the cluster state's) is immutable already: shared, not copied (docs/adr/0008)
        livePods = livePods == null ? Set.of() : livePods instanceof org.pcollections.PSet<String> ? livePods
                : Set.copyOf(livePods);
        boundPods = copy(boundPods);
        heldPods = copy(heldPods);
    }

    /** A snapshot whose pod changes are unknown. */
    public IpamSnapshot(Instant takenAt, List<NetworkAttachmentDefinition> networkAttachmentDefinitions,
                        List<MacvlanNetwork> macvlanNetworks, List<IPPool> ipPools,
                        List<OverlappingRangeIPReservation> overlappingRangeIPReservations,
                        List<NodeSlicePool> nodeSlicePools, Set<String> livePods, List<PodPlacement> boundPods,
                        List<PersistedHold> heldPods) {
        this(takenAt, networkAttachmentDefinitions, macvlanNetworks, ipPools, overlappingRangeIPReservations,
                nodeSlicePools, livePods, boundPods, heldPods, null);
    }

    /** A snapshot without persisted holds. */
    public IpamSnapshot(Instant takenAt, List<NetworkAttachmentDefinition> networkAttachmentDefinitions,
                        List<MacvlanNetwork> macvlanNetworks, List<IPPool> ipPools,
                        List<OverlappingRangeIPReservation> overlappingRangeIPReservations,
                        List<NodeSlicePool> nodeSlicePools, Set<String> livePods, List<PodPlacement> boundPods) {
        this(takenAt, networkAttachmentDefinitions, macvlanNetworks, ipPools, overlappingRangeIPReservations,
                nodeSlicePools, livePods, boundPods, List.of());
    }

    private static <T> List<T> copy(List<T> list) {
        return list == null ? List.of() : List.copyOf(list);
    }

    /** @return a snapshot with nothing in it */
    public static IpamSnapshot empty(Instant takenAt) {
        return builder(takenAt).build();
    }

    public static Builder builder(Instant takenAt) {
        return new Builder(takenAt);
    }

    /** Collects objects into an {@link IpamSnapshot}; not thread-safe. */
    public static final class Builder {
        private final Instant takenAt;
        private final List<NetworkAttachmentDefinition> nads = new ArrayList<>();
        private final List<MacvlanNetwork> macvlans = new ArrayList<>();
        private final List<IPPool> pools = new ArrayList<>();
        private final List<OverlappingRangeIPReservation> reservations = new ArrayList<>();
        private final List<NodeSlicePool> slices = new ArrayList<>();
        private final List<String> pods = new ArrayList<>();
        private final List<PodPlacement> bound = new ArrayList<>();
        private final List<PersistedHold> held = new ArrayList<>();

        private Builder(Instant takenAt) {
            this.takenAt = takenAt;
        }

        public Builder networkAttachmentDefinition(NetworkAttachmentDefinition nad) {
            nads.add(nad);
            return this;
        }

        public Builder macvlanNetwork(MacvlanNetwork network) {
            macvlans.add(network);
            return this;
        }

        public Builder ipPool(IPPool pool) {
            pools.add(pool);
            return this;
        }

        public Builder overlappingRangeIPReservation(OverlappingRangeIPReservation reservation) {
            reservations.add(reservation);
            return this;
        }

        public Builder nodeSlicePool(NodeSlicePool pool) {
            slices.add(pool);
            return this;
        }

        /** @param podRefs {@code <namespace>/<name>} of existing pods */
        public Builder livePods(Collection<String> podRefs) {
            pods.addAll(podRefs);
            return this;
        }

        public Builder livePod(String podRef) {
            pods.add(podRef);
            return this;
        }

        /** @param pod a pod bound to {@code pod.node()} that is neither finished nor being deleted */
        public Builder boundPod(PodPlacement pod) {
            bound.add(pod);
            return this;
        }

        /** @param hold a hold written on a pod that is not bound yet */
        public Builder heldPod(PersistedHold hold) {
            held.add(hold);
            return this;
        }

        public IpamSnapshot build() {
            return new IpamSnapshot(takenAt, nads, macvlans, pools, reservations, slices, Set.copyOf(pods), bound,
                    held);
        }
    }
}
