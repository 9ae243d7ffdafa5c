package dev.railyard.scheduler.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import dev.railyard.api.multus.MacvlanNetwork;
import dev.railyard.api.multus.NetworkAttachmentDefinition;
import dev.railyard.api.whereabouts.IPPool;
import dev.railyard.api.whereabouts.NodeSlicePool;
import dev.railyard.api.whereabouts.OverlappingRangeIPReservation;
import dev.railyard.scheduler.engine.SecondaryNetwork;
import dev.railyard.scheduler.ipam.AddressPools;
import dev.railyard.scheduler.ipam.HoldAnnotation;
import dev.railyard.scheduler.ipam.PersistedHold;
import dev.railyard.scheduler.ipam.PodChanges;
import dev.railyard.scheduler.ipam.IpamSnapshot;
import dev.railyard.scheduler.ipam.PodNetworksRequest;
import dev.railyard.scheduler.ipam.PodPlacement;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.pcollections.PSet;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The address side of the cluster state: the IPAM objects read into their {@code api} classes when their events
 * arrive, the bound pods that draw addresses ({@link IpamSnapshot#boundPods()}), and the secondary networks the
 * engine sees. The pool ledger is fed a new {@link IpamSnapshot} only when an IPAM object changed, a pod came or went,
 * or a pod's address needs changed (bound, unbound, finished, networks); a pod status update does neither. Not
 * thread-safe: the state's lock guards it.
 */
final class StateIpam {
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private final Map<WatchedKind, TreeMap<String, Object>> typed = new java.util.HashMap<>();
    private final TreeMap<String, String> warnings = new TreeMap<>();
    private final SortedPlacements bound = new SortedPlacements();
    private final TreeMap<String, PersistedHold> held = new TreeMap<>();
    private boolean objectsDirty = true;
    private boolean podsDirty = true;
    private List<SecondaryNetwork> networks;
    /** Each IPAM kind's objects as last published: the same list while none of them changes. */
    private final Map<WatchedKind, List<Object>> lists = new java.util.HashMap<>();
    /** The last snapshot fed to the ledger, and the pods changed since ({@link PodChanges}). */
    private IpamSnapshot published;
    // replaced, not cleared, after each publish: a cleared HashMap keeps its table, and the first publish follows
    // every pod's arrival, so iterating or copying it would cost that table's size on every later publish
    private java.util.Set<String> liveChanged = new java.util.HashSet<>();
    private Map<String, PodPlacement> boundAtPublish = new java.util.HashMap<>();

    private static Class<?> type(WatchedKind kind) {
        if (kind.equals(WatchedKind.NETWORK_ATTACHMENT_DEFINITION)) {
            return NetworkAttachmentDefinition.class;
        }
        if (kind.equals(WatchedKind.MACVLAN_NETWORK)) {
            return MacvlanNetwork.class;
        }
        if (kind.equals(WatchedKind.IP_POOL)) {
            return IPPool.class;
        }
        if (kind.equals(WatchedKind.OVERLAPPING_RANGE_RESERVATION)) {
            return OverlappingRangeIPReservation.class;
        }
        if (kind.equals(WatchedKind.NODE_SLICE_POOL)) {
            return NodeSlicePool.class;
        }
        return null;
    }

    /**
     * An IPAM object as an event brings it: the stripped generic form the state compares and lists, and its
     * {@code api} class read from it, or the one-line reason it cannot be read.
     *
     * @param stripped the object without the fields the state never reads
     * @param typed    its {@code api} form (e.g. {@link IPPool}), or null when it cannot be read
     * @param warning  why it cannot be read, or null
     */
    record Read(GenericKubernetesResource stripped, Object typed, String warning) {
    }

    /**
     * Reads an IPAM object into its {@code api} class. Called by the informer's thread when the event arrives, outside
     * the state's lock, as pods and nodes are converted: the first call after an address change then applies the
     * read object instead of decoding a pool of thousands of allocations itself.
     *
     * @param kind     the object's kind
     * @param stripped the stripped object
     * @return the read object, or null when {@code kind} is not an IPAM kind
     */
    static Read read(WatchedKind kind, GenericKubernetesResource stripped) {
        Class<?> type = type(kind);
        if (type == null) {
            return null;
        }
        try {
            return new Read(stripped, SERIALIZATION.convertValue(stripped, type), null);
        } catch (RuntimeException e) {
            return new Read(stripped, null, ObjectFields.describe(stripped) + ": cannot be read as " + kind.kind()
                    + " (" + IpamSnapshotConverter.oneLine(e.getMessage()) + "); left out of the pool counts");
        }
    }

    /** An IPAM object was added or updated ({@code now} as {@link #read} gave it) or deleted ({@code now} null). */
    void objectChanged(WatchedKind kind, String key, Read now) {
        if (type(kind) == null) {
            return;
        }
        TreeMap<String, Object> m = typed.computeIfAbsent(kind, k -> new TreeMap<>());
        lists.remove(kind);
        String wkey = kind.kind() + " " + key;
        warnings.remove(wkey);
        m.remove(key);
        if (now != null && now.typed() != null) {
            m.put(key, now.typed());
        } else if (now != null) {
            warnings.put(wkey, now.warning());
        }
        objectsDirty = true;
    }

    /** A pod was added or changed; {@code now} null when it cannot be read (it still holds its addresses). */
    void podChanged(String key, PodView now, boolean isNew) {
        // an equal record keeps the instance held, so the ledger's carried counts, which compare bound pods by
        // identity, survive updates that leave the pod's networks and node (labels, hints) (docs/adr/0020)
        PodPlacement p = now == null ? null : boundPod(now);
        PodPlacement old = bound.get(key);
        if (!java.util.Objects.equals(p, old) && !boundAtPublish.containsKey(key)) {
            boundAtPublish.put(key, old);
        }
        if (isNew) {
            liveChanged.add(key);
        }
        if (p == null) {
            bound.remove(key);
        } else if (!p.equals(old)) {
            bound.put(key, p);
        }
        PersistedHold h = now == null ? null : heldPod(now);
        PersistedHold oldHold = held.get(key);
        if (h == null) {
            held.remove(key);
        } else if (!h.equals(oldHold)) {
            held.put(key, h);
        }
        if (isNew || !java.util.Objects.equals(old, p) || !java.util.Objects.equals(oldHold, h)) {
            podsDirty = true;
        }
    }

    /** A pod was deleted. */
    void podGone(String key) {
        if (!boundAtPublish.containsKey(key)) {
            boundAtPublish.put(key, bound.get(key));
        }
        liveChanged.add(key);
        bound.remove(key);
        held.remove(key);
        podsDirty = true;
    }

    boolean dirty() {
        return objectsDirty || podsDirty;
    }

    /** @return warnings of IPAM objects left out, one line each */
    List<String> warnings() {
        return List.copyOf(warnings.values());
    }

    /**
     * Feeds the ledger (when given) and resolves the networks again when IPAM objects changed.
     *
     * @param livePods keys of every pod, readable or not
     * @param nads     the NetworkAttachmentDefinitions in generic form
     * @return the networks
     */
    List<SecondaryNetwork> publish(Consumer<IpamSnapshot> ledger, AddressPools pools, PSet<String> livePods,
                                   Clock clock, Collection<GenericKubernetesResource> nads) {
        IpamSnapshot s = ledger == null ? null : new IpamSnapshot(clock.instant(),
                list(WatchedKind.NETWORK_ATTACHMENT_DEFINITION), list(WatchedKind.MACVLAN_NETWORK),
                list(WatchedKind.IP_POOL), list(WatchedKind.OVERLAPPING_RANGE_RESERVATION),
                list(WatchedKind.NODE_SLICE_POOL), livePods, bound.list(), new ArrayList<>(held.values()),
                changesSincePublished());
        // the changes are counted from this snapshot on before the ledger sees it, so that a ledger failing midway
        // finds the next changes naming a snapshot it may not hold (it then walks) rather than wrong ones
        if (!liveChanged.isEmpty()) {
            liveChanged = new java.util.HashSet<>();
        }
        if (!boundAtPublish.isEmpty()) {
            boundAtPublish = new java.util.HashMap<>();
        }
        if (s != null) {
            published = s;
            ledger.accept(s);
        }
        if (objectsDirty || networks == null) {
            networks = List.copyOf(networks(nads, pools));
        }
        objectsDirty = false;
        podsDirty = false;
        return networks;
    }

    /**
     * @return the pods changed since the last snapshot published, or null before the first: each changed pod's
     *         placement then and now (the instances held, so an update that left it equal is no change)
     */
    private PodChanges changesSincePublished() {
        if (published == null) {
            return null;
        }
        Map<String, PodPlacement> before = new java.util.HashMap<>();
        Map<String, PodPlacement> after = new java.util.HashMap<>();
        boundAtPublish.forEach((key, then) -> {
            PodPlacement now = bound.get(key);
            if (then != now) {
                if (then != null) {
                    before.put(key, then);
                }
                if (now != null) {
                    after.put(key, now);
                }
            }
        });
        return new PodChanges(published.livePods(), published.boundPods(), liveChanged, before, after);
    }

    /** @return the kind's objects, the same list instance while none of them changed (the ledger compares them so) */
    @SuppressWarnings("unchecked")
    private <T> List<T> list(WatchedKind kind) {
        return (List<T>) lists.computeIfAbsent(kind, k -> {
            TreeMap<String, Object> m = typed.get(k);
            return m == null ? List.of() : List.copyOf(m.values());
        });
    }

    /**
     * @return the pod with its node and networks when it is bound, neither finished nor being deleted, not on the
     *         host network, and attaches secondary networks by a readable annotation; else null
     */
    static PodPlacement boundPod(PodView v) {
        if (v.node() == null || v.finished() || v.terminating() || v.hostNetwork()) {
            return null;
        }
        PodNetworksRequest networks = PodNetworksRequest.of(v.namespace(), v.annotations());
        if (!networks.valid() || networks.selections().isEmpty()) {
            return null;
        }
        return new PodPlacement(v.name(), networks, v.node());
    }

    /**
     * @return the hold written on the pod ({@link HoldAnnotation}) when the pod is not bound, neither finished nor
     *         being deleted, attaches secondary networks by a readable annotation, and the hold names the pod's own
     *         UID (an annotation copied onto another pod is not a hold); else null. Expired holds are returned too:
     *         the ledger decides by its clock, and bounds what it adopts ({@code ipam.HoldAdoption}: the origin's
     *         lifetime from {@code since}, no {@code since} in the future, a bounded network list), since the pod's
     *         owner may have written the annotation.
     */
    static PersistedHold heldPod(PodView v) {
        if (v.node() != null || v.finished() || v.terminating() || v.hostNetwork()) {
            return null;
        }
        HoldAnnotation.Value h = HoldAnnotation.read(v.annotations().get(HoldAnnotation.KEY));
        if (h == null || v.uid().isEmpty() || !v.uid().equals(h.uid())) {
            return null;
        }
        PodNetworksRequest networks = PodNetworksRequest.of(v.namespace(), v.annotations());
        if (!networks.valid() || networks.selections().isEmpty()) {
            return null;
        }
        return new PersistedHold(new PodPlacement(v.name(), networks, h.node()), h.uid(), h.origin(), h.since(),
                h.until());
    }

    /**
     * One network per NetworkAttachmentDefinition: its {@code master}, range and IPPool name as the address pools
     * resolve them (the MacvlanNetwork that rendered it included); without pools, the {@code master} of its CNI
     * config.
     */
    static List<SecondaryNetwork> networks(Collection<GenericKubernetesResource> nads, AddressPools pools) {
        List<SecondaryNetwork> out = new ArrayList<>();
        for (GenericKubernetesResource r : nads) {
            if (r.getMetadata() == null || r.getMetadata().getName() == null) {
                continue;
            }
            String ns = r.getMetadata().getNamespace() == null ? "default" : r.getMetadata().getNamespace();
            String name = r.getMetadata().getName();
            String master = null;
            String range = null;
            String pool = null;
            if (pools != null) {
                AddressPools.NetworkOrigin o = pools.origin(PodNetworksRequest.ofAnnotation(ns, ns + "/" + name));
                if (o != null) {
                    master = o.master();
                    range = o.range();
                    pool = o.pool();
                }
            }
            if (master == null) {
                master = cniMaster(ObjectFields.text(ObjectFields.at(r, "spec", "config")));
            }
            out.add(new SecondaryNetwork(ns, name, master, range, pool));
        }
        return out;
    }

    /** @return the {@code master} of a CNI config or of the first conflist plugin that has one, or null */
    static String cniMaster(String config) {
        if (config == null || config.isBlank()) {
            return null;
        }
        try {
            JsonNode root = NodeStateConverter.RECORDS.readTree(config);
            if (root.path("master").isTextual()) {
                return root.path("master").asText();
            }
            for (JsonNode p : root.path("plugins")) {
                if (p.path("master").isTextual()) {
                    return p.path("master").asText();
                }
            }
        } catch (Exception e) {
            return null;
        }
        return null;
    }
}
