package dev.railyard.scheduler.cluster;

import dev.railyard.api.multus.MacvlanNetwork;
import dev.railyard.api.multus.NetworkAttachmentDefinition;
import dev.railyard.api.whereabouts.IPPool;
import dev.railyard.api.whereabouts.NodeSlicePool;
import dev.railyard.api.whereabouts.OverlappingRangeIPReservation;
import dev.railyard.scheduler.ipam.IpamSnapshot;
import dev.railyard.scheduler.ipam.PersistedHold;
import dev.railyard.scheduler.ipam.PodPlacement;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * {@link ClusterObjects} → the pool ledger's {@link IpamSnapshot}: NetworkAttachmentDefinitions, MacvlanNetworks,
 * IPPools, OverlappingRangeIPReservations and NodeSlicePools read into their typed {@code api} classes with fabric8's
 * serializer, {@code namespace/name} of every Pod (any phase, terminating ones included: they still hold their
 * addresses) as the live pods, the bound pods that will draw addresses ({@link IpamSnapshot#boundPods()}) and the
 * holds written on pods not bound yet ({@link IpamSnapshot#heldPods()}). An object whose fields have the wrong shape (a string where whereabouts writes a map)
 * is left out with a warning naming it; what is wrong inside a well-shaped object (an allocation key that is not a
 * number) is the ledger's to report.
 */
public final class IpamSnapshotConverter {
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private IpamSnapshotConverter() {
    }

    /**
     * @param objects the cluster objects
     * @return the ledger's snapshot, taken at {@link ClusterObjects#takenAt()}, with a warning per object left out
     */
    public static Converted<IpamSnapshot> convert(ClusterObjects objects) {
        List<String> warnings = new ArrayList<>();
        IpamSnapshot.Builder b = IpamSnapshot.builder(objects.takenAt());
        typed(objects, WatchedKind.NETWORK_ATTACHMENT_DEFINITION, NetworkAttachmentDefinition.class,
                b::networkAttachmentDefinition, warnings);
        typed(objects, WatchedKind.MACVLAN_NETWORK, MacvlanNetwork.class, b::macvlanNetwork, warnings);
        typed(objects, WatchedKind.IP_POOL, IPPool.class, b::ipPool, warnings);
        typed(objects, WatchedKind.OVERLAPPING_RANGE_RESERVATION, OverlappingRangeIPReservation.class,
                b::overlappingRangeIPReservation, warnings);
        typed(objects, WatchedKind.NODE_SLICE_POOL, NodeSlicePool.class, b::nodeSlicePool, warnings);
        for (GenericKubernetesResource p : objects.of(WatchedKind.POD)) {
            if (p.getMetadata() != null && p.getMetadata().getName() != null) {
                String ns = p.getMetadata().getNamespace() == null ? "default" : p.getMetadata().getNamespace();
                b.livePod(ns + "/" + p.getMetadata().getName());
                PodPlacement bound = boundPod(p);
                if (bound != null) {
                    b.boundPod(bound);
                }
                PersistedHold held = heldPod(p);
                if (held != null) {
                    b.heldPod(held);
                }
            }
        }
        return new Converted<>(b.build(), warnings);
    }

    /** @return the pod's placement when it draws addresses ({@link StateIpam#boundPod}), else null */
    private static PodPlacement boundPod(GenericKubernetesResource p) {
        try {
            return StateIpam.boundPod(PodView.of(p));
        } catch (IllegalArgumentException e) {
            return null; // the cluster view names the pod in its warnings
        }
    }

    /** @return the hold written on the pod when it is not bound yet ({@link StateIpam#heldPod}), else null */
    private static PersistedHold heldPod(GenericKubernetesResource p) {
        try {
            return StateIpam.heldPod(PodView.of(p));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static <T> void typed(ClusterObjects objects, WatchedKind kind, Class<T> type, Consumer<T> sink,
                                  List<String> warnings) {
        for (GenericKubernetesResource r : objects.of(kind)) {
            try {
                sink.accept(SERIALIZATION.convertValue(r, type));
            } catch (RuntimeException e) {
                warnings.add(ObjectFields.describe(r) + ": cannot be read as " + kind.kind() + " ("
                        + oneLine(e.getMessage()) + "); left out of the pool counts");
            }
        }
    }

    static String oneLine(String s) {
        if (s == null) {
            return "unreadable";
        }
        String t = s.replaceAll("\\s+", " ").trim();
        int cut = t.indexOf(" at [Source");
        if (cut > 0) {
            t = t.substring(0, cut);
        }
        return t.length() > 200 ? t.substring(0, 200) + "..." : t;
    }
}
