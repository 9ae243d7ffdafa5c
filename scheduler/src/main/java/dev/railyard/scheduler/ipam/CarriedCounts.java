package dev.railyard.scheduler.ipam;

import dev.railyard.api.multus.MacvlanNetwork;
import dev.railyard.api.multus.NetworkAttachmentDefinition;
import dev.railyard.api.whereabouts.IPPool;
import dev.railyard.api.whereabouts.NodeSliceAllocation;
import dev.railyard.api.whereabouts.NodeSlicePool;
import inet.ipaddr.IPAddress;
import org.pcollections.PMap;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * What one pool snapshot worked out that the next can use while its inputs are the same objects: decoded IPPools and
 * NodeSlicePool indexes (by instance), parsed slices (a pure function of their text), the reservation index of each
 * network name, each node's slice view and each whole pool's view, their unrecorded addresses, and which bound pods
 * draw from each whole pool (valid while the NetworkAttachmentDefinitions and MacvlanNetworks are the same instances,
 * and checked on use against the slice, pool objects, reservations and pods). Under whereabouts node slices one
 * address change replaces one IPPool of tens of thousands, and with whole pools one of a few large ones; with these,
 * counting again costs the changed pool and lookups, not decoding and counting every pool (docs/adr/0020).
 *
 * <p>Shared by a ledger's successive {@link LedgerState}s, never holding one, so states do not chain. Each map holds
 * at most {@value #MAX_ENTRIES} entries and is emptied when it would hold more (objects of deleted nodes go then);
 * a missing entry is computed again. Thread-safe: every value is a pure function of the inputs it is checked against,
 * so two threads computing one key agree.
 */
final class CarriedCounts {
    /** Entries per map: 4 networks × 20,000 nodes fit with room. */
    static final int MAX_ENTRIES = 1 << 18;

    /** A decoded IPPool and the object it was decoded from. */
    record Decoded(IPPool source, DecodedPool pool) {
    }

    /** A node slice's CIDR (null: not a CIDR of the range's family) and its addresses: a function of both texts. */
    record SliceAddresses(AddressText.Cidr cidr, UsableAddresses usable) {
    }

    /**
     * A node's slice view, or a whole pool's view, and what it was counted from.
     *
     * @param slice    the node's slice as the NodeSlicePool lists it; for a whole pool its range
     * @param usable   its addresses (a function of the slice and the range)
     * @param sources  the IPPool objects of the view's pool name (empty: not created yet; several: one per namespace)
     * @param reserved the reservations inside the slice it was counted against
     * @param index    the reservations' index {@code reserved} was read from (null: the network counts none); while a
     *                 later state has the same index instance, {@code reserved} is the same and is not read again
     */
    record SliceView(String slice, UsableAddresses usable, List<IPPool> sources, List<IPAddress> reserved,
                     ReservedAddresses index, RangeView view) {
    }

    /**
     * A node pool's, or a whole pool's, pod interfaces whose address whereabouts has not recorded, and what they
     * were found from.
     *
     * @param slices  the node's slice in each NodeSlicePool the pods' networks name (null value: none), not the
     *                NodeSlicePools themselves: an entry of a node no longer asked about (deleted) would keep the
     *                whole cluster's slices of its time alive
     * @param pods    the pods bound to the node (compared by equality); for a whole pool the bound pods its
     *                {@link Drawers} were found from (compared by identity)
     * @param sources the IPPool objects of the pool's name (empty: not created yet)
     */
    record Unrecorded(Map<String, String> slices, List<PodPlacement> pods, List<IPPool> sources,
                      Set<String> slots) {
    }

    /** One pod interface that draws an address from a pool. */
    record Drawer(String podRef, String ifname) {
    }

    /**
     * The pod interfaces of one network range (a resolution and range index) that draw from one whole pool, by pod
     * ({@code <namespace>/<name>}): a persistent map, so a pod's start or end replaces its own entry and shares the
     * rest with the group before.
     */
    record DrawerGroup(NetworkResolution res, int index, PMap<String, List<Drawer>> byPod) {
        /** @return the group's key in its pool: its network and range index */
        String key() {
            return groupKey(res, index);
        }
    }

    /** One drawer of a changed pod and the network range (a resolution and range index) it draws through. */
    record ChangedDrawer(NetworkResolution res, int index, Drawer drawer) {
        /** @return the key of its {@link DrawerGroup} in its pool */
        String groupKey() {
            return CarriedCounts.groupKey(res, index);
        }
    }

    /** @return a {@link DrawerGroup}'s key in its pool: the network's resolution key and the range index */
    static String groupKey(NetworkResolution res, int index) {
        return res.key() + "#" + index;
    }

    /**
     * The bound pods that draw from each whole pool, by pool name, and the pods they were found from.
     *
     * @param anySlice true when some bound pod draws from a node-slice network: a whole pool's unrecorded
     *                 addresses are then taken from the whole map ({@link LedgerState#unrecordedByPool}), which
     *                 counts a node pool of the same name too, and {@code byPool} is empty
     * @param fromPods the bound pods of the drawers these were updated from by a {@link PodChanges}, or null when
     *                 found by a walk over every bound pod
     * @param changed  with {@code fromPods}: pool name → pod ({@code <namespace>/<name>}) → the pod's drawers in
     *                 that pool now, for each pod whose drawers there were dropped or added by the update (empty
     *                 list: it no longer draws from the pool; a pool not named is unchanged)
     */
    record Drawers(List<PodPlacement> pods, Map<String, List<DrawerGroup>> byPool, boolean anySlice,
                   List<PodPlacement> fromPods, Map<String, Map<String, List<ChangedDrawer>>> changed) {
        Drawers(List<PodPlacement> pods, Map<String, List<DrawerGroup>> byPool, boolean anySlice) {
            this(pods, byPool, anySlice, null, Map.of());
        }
    }

    /** The bound pods by node (a persistent map) and the bound pods they were found from (compared by identity). */
    record BoundByNode(List<PodPlacement> pods, PMap<String, List<PodPlacement>> byNode) {
    }

    /** A NodeSlicePool's node → slice index and the object it was made from. */
    private record SliceIndex(NodeSlicePool source, Map<String, NodeSliceAllocation> byNode) {
    }

    private final Map<String, Decoded> decoded = new ConcurrentHashMap<>();
    private final Map<String, SliceAddresses> slices = new ConcurrentHashMap<>();
    private final Map<String, SliceIndex> sliceIndexes = new ConcurrentHashMap<>();
    private final Map<String, ReservedAddresses> reserved = new ConcurrentHashMap<>();
    private volatile NodeCounts nodeCounts = new NodeCounts(List.of(), List.of());

    /**
     * The node views and unrecorded addresses counted under one set of network definitions: a state keeps the one
     * it started with, so a state of older definitions never reads a newer one's entries, nor the reverse.
     */
    static final class NodeCounts {
        private final List<NetworkAttachmentDefinition> nads;
        private final List<MacvlanNetwork> macvlans;
        private final Map<String, SliceView> views = new ConcurrentHashMap<>();
        private final Map<String, Unrecorded> unrecorded = new ConcurrentHashMap<>();
        private volatile Drawers drawers;
        private volatile BoundByNode boundByNode;

        private NodeCounts(List<NetworkAttachmentDefinition> nads, List<MacvlanNetwork> macvlans) {
            this.nads = nads;
            this.macvlans = macvlans;
        }

        /** @return the node view last counted under this key, or null; the caller checks it against its inputs */
        SliceView view(String key) {
            return views.get(key);
        }

        void view(String key, SliceView view) {
            put(views, key, view);
        }

        /** @return the unrecorded addresses last found under this key, or null; the caller checks them */
        Unrecorded unrecorded(String key) {
            return unrecorded.get(key);
        }

        void unrecorded(String key, Unrecorded u) {
            put(unrecorded, key, u);
        }

        /** @return the bound pods by node last found, or null; the caller checks them against its pods */
        BoundByNode boundByNode() {
            return boundByNode;
        }

        void boundByNode(BoundByNode b) {
            boundByNode = b;
        }

        /** @return the whole pools' drawers last found, or null; the caller checks them against its pods */
        Drawers drawers() {
            return drawers;
        }

        void drawers(Drawers d) {
            drawers = d;
        }
    }

    /**
     * @return the node counts of these network definitions: the last ones while the definitions are the very same
     *         objects, else new, empty ones (which later states then share)
     */
    NodeCounts nodeCounts(List<NetworkAttachmentDefinition> nads, List<MacvlanNetwork> macvlans) {
        NodeCounts c = nodeCounts;
        if (sameInstances(c.nads, nads) && sameInstances(c.macvlans, macvlans)) {
            return c;
        }
        c = new NodeCounts(nads, macvlans);
        nodeCounts = c;
        return c;
    }

    /** @return true when both lists hold the very same objects in the same order */
    static <T> boolean sameInstances(List<T> a, List<T> b) {
        if (a == b) {
            return true;
        }
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (a.get(i) != b.get(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * @return the pool decoded, reused while {@code key} names the same object; a new object of the key is decoded
     *         with the last one's unchanged allocations taken over ({@link DecodedPool#decode(IPPool, DecodedPool)})
     */
    DecodedPool decode(String key, IPPool pool) {
        Decoded d = decoded.get(key);
        if (d != null && d.source() == pool) {
            return d.pool();
        }
        DecodedPool fresh = DecodedPool.decode(pool, d == null ? null : d.pool());
        put(decoded, key, new Decoded(pool, fresh));
        return fresh;
    }

    /** @return the slice of {@code range} parsed from its text, once per range and text */
    SliceAddresses slice(IpamRange range, String slice) {
        String key = range.text() + " " + slice;
        SliceAddresses s = slices.get(key);
        if (s == null) {
            AddressText.Cidr cidr = AddressText.parseCidr(slice);
            s = cidr == null || cidr.ipv4() != range.cidr().ipv4() ? new SliceAddresses(null, null)
                    : new SliceAddresses(cidr, UsableAddresses.ofSlice(range, cidr));
            put(slices, key, s);
        }
        return s;
    }

    /**
     * The node → slice index of a NodeSlicePool, made once per object: a pool of a large range lists tens of
     * thousands of slices, and every node's check looks its own up. A node listed twice keeps its first slice, the
     * one whereabouts' {@code GetNodeSlice} finds first.
     *
     * @param key the pool's name
     */
    Map<String, NodeSliceAllocation> sliceIndex(String key, NodeSlicePool nsp) {
        SliceIndex before = sliceIndexes.get(key);
        if (before != null && before.source() == nsp) {
            return before.byNode();
        }
        Map<String, NodeSliceAllocation> byNode = new HashMap<>();
        if (nsp.getStatus() != null) {
            for (NodeSliceAllocation a : nsp.getStatus().allocations()) {
                if (a != null && a.nodeName() != null && !a.nodeName().isEmpty()) {
                    byNode.putIfAbsent(a.nodeName(), a);
                }
            }
        }
        Map<String, NodeSliceAllocation> index = Collections.unmodifiableMap(byNode);
        put(sliceIndexes, key, new SliceIndex(nsp, index));
        return index;
    }

    /**
     * @param networkName the network name
     * @param make        makes the index from the last one made for this name (null: none yet)
     * @return the new index, remembered as the last one
     */
    ReservedAddresses reserved(String networkName, Function<ReservedAddresses, ReservedAddresses> make) {
        ReservedAddresses r = make.apply(reserved.get(networkName));
        put(reserved, networkName, r);
        return r;
    }

    private static <V> void put(Map<String, V> map, String key, V value) {
        if (map.size() >= MAX_ENTRIES && !map.containsKey(key)) {
            map.clear();
        }
        map.put(key, value);
    }
}
