package dev.railyard.scheduler.ipam;

import dev.railyard.api.multus.MacvlanNetwork;
import dev.railyard.api.multus.NetworkAttachmentDefinition;
import dev.railyard.api.whereabouts.IPPool;
import dev.railyard.api.whereabouts.NodeSliceAllocation;
import dev.railyard.api.whereabouts.NodeSlicePool;
import dev.railyard.api.whereabouts.OverlappingRangeIPReservation;
import io.fabric8.kubernetes.api.model.HasMetadata;
import inet.ipaddr.IPAddress;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One snapshot, indexed, with lazily filled caches of resolved networks, decoded pools and range counts. Immutable
 * apart from the caches, which are safe to fill from several threads (each value is a pure function of the snapshot).
 */
final class LedgerState {
    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    final IpamSnapshot snapshot;
    // indexes of the snapshot's objects, filled once and only read after: shared with the state before while the
    // snapshot's object lists are the same instances (a pod's start or end changes none), so such a snapshot does
    // not walk tens of thousands of IPPools (node slices) again
    private final String whereaboutsNamespace;
    private final Map<String, NetworkAttachmentDefinition> nads;
    private final Map<String, Set<String>> nadNamespacesByName;
    private final Map<String, MacvlanNetwork> macvlans;
    private final Map<String, List<IPPool>> poolsByName;
    private final Map<String, List<NodeSlicePool>> slicePoolsByName;
    private final List<OverlappingRangeIPReservation> reservations;
    private final List<IPPool> pools;

    private final Map<String, NetworkResolution> resolutions = new ConcurrentHashMap<>();
    private final Map<String, PoolChoice> poolChoices = new ConcurrentHashMap<>();
    private final CarriedCounts carried;
    private final CarriedCounts.NodeCounts nodeCounts;
    private final Map<String, ReservedAddresses> reservedByNetworkName = new ConcurrentHashMap<>();
    private final Map<String, ReservedAddresses> reservedBefore;
    private final List<OverlappingRangeIPReservation> reservationsBefore;
    private final Map<String, RangeView> views = new ConcurrentHashMap<>();
    private final Map<String, Map<String, NodeSliceAllocation>> slicesByNode = new ConcurrentHashMap<>();
    private final UnrecordedAddresses unrecordedAddresses = new UnrecordedAddresses(this);
    private volatile Set<String> boundRefs;

    /** The IPPool chosen for a name (null pool: not created yet) and why, when several namespaces hold one. */
    record PoolChoice(DecodedPool pool, String note) {
    }

    /**
     * @param snapshot             the objects
     * @param whereaboutsNamespace the namespace whereabouts keeps its objects in, or null to use every namespace that
     *                             holds any
     */
    LedgerState(IpamSnapshot snapshot, String whereaboutsNamespace) {
        this(snapshot, whereaboutsNamespace, null);
    }

    /**
     * @param previous the state this one replaces, or null: its {@link CarriedCounts} are shared, so what it worked
     *                 out from objects this snapshot still holds (the same instances) is reused, and a change to one
     *                 IPPool of tens of thousands (node slices) does not decode and count them all again. Only its
     *                 caches are kept, never the state, so states do not chain.
     */
    LedgerState(IpamSnapshot snapshot, String whereaboutsNamespace, LedgerState previous) {
        this.snapshot = snapshot;
        this.carried = previous == null ? new CarriedCounts() : previous.carried;
        this.nodeCounts = carried.nodeCounts(snapshot.networkAttachmentDefinitions(), snapshot.macvlanNetworks());
        this.reservedBefore = previous == null ? Map.of() : previous.reservedByNetworkName;
        this.reservationsBefore = previous == null ? List.of() : previous.reservations;
        this.whereaboutsNamespace = whereaboutsNamespace;
        if (previous != null && sameObjects(previous, snapshot, whereaboutsNamespace)) {
            nads = previous.nads;
            nadNamespacesByName = previous.nadNamespacesByName;
            macvlans = previous.macvlans;
            poolsByName = previous.poolsByName;
            slicePoolsByName = previous.slicePoolsByName;
            reservations = previous.reservations;
            pools = previous.pools;
            return;
        }
        nads = new LinkedHashMap<>();
        nadNamespacesByName = new LinkedHashMap<>();
        macvlans = new LinkedHashMap<>();
        poolsByName = new LinkedHashMap<>();
        slicePoolsByName = new LinkedHashMap<>();
        reservations = new ArrayList<>();
        pools = new ArrayList<>();
        for (NetworkAttachmentDefinition nad : snapshot.networkAttachmentDefinitions()) {
            String ns = namespace(nad);
            String name = name(nad);
            if (name != null) {
                nads.put(ns + "/" + name, nad);
                nadNamespacesByName.computeIfAbsent(name, k -> new TreeSet<>()).add(ns);
            }
        }
        for (MacvlanNetwork m : snapshot.macvlanNetworks()) {
            if (name(m) != null) {
                macvlans.put(name(m), m);
            }
        }
        for (IPPool p : snapshot.ipPools()) {
            if (name(p) != null && inWhereaboutsNamespace(p, whereaboutsNamespace)) {
                poolsByName.computeIfAbsent(name(p), k -> new ArrayList<>()).add(p);
                pools.add(p);
            }
        }
        for (NodeSlicePool p : snapshot.nodeSlicePools()) {
            if (name(p) != null && inWhereaboutsNamespace(p, whereaboutsNamespace)) {
                slicePoolsByName.computeIfAbsent(name(p), k -> new ArrayList<>()).add(p);
            }
        }
        for (OverlappingRangeIPReservation r : snapshot.overlappingRangeIPReservations()) {
            if (name(r) != null && inWhereaboutsNamespace(r, whereaboutsNamespace)) {
                reservations.add(r);
            }
        }
    }

    /** @return true when the snapshot's object lists are the very lists {@code previous} indexed */
    private static boolean sameObjects(LedgerState previous, IpamSnapshot snapshot, String whereaboutsNamespace) {
        IpamSnapshot p = previous.snapshot;
        return java.util.Objects.equals(previous.whereaboutsNamespace, whereaboutsNamespace)
                && p.networkAttachmentDefinitions() == snapshot.networkAttachmentDefinitions()
                && p.macvlanNetworks() == snapshot.macvlanNetworks() && p.ipPools() == snapshot.ipPools()
                && p.nodeSlicePools() == snapshot.nodeSlicePools()
                && p.overlappingRangeIPReservations() == snapshot.overlappingRangeIPReservations();
    }

    private static boolean inWhereaboutsNamespace(HasMetadata o, String whereaboutsNamespace) {
        return whereaboutsNamespace == null || whereaboutsNamespace.equals(namespace(o));
    }

    private static String name(HasMetadata o) {
        return o == null || o.getMetadata() == null ? null : o.getMetadata().getName();
    }

    private static String namespace(HasMetadata o) {
        return o.getMetadata().getNamespace() == null ? "" : o.getMetadata().getNamespace();
    }

    List<IPPool> pools() {
        return pools;
    }

    DecodedPool decode(IPPool pool) {
        return carried.decode(namespace(pool) + "/" + name(pool), pool);
    }

    /** @return the IPPool whereabouts would use for this name; several namespaces: the fullest, with a note */
    PoolChoice pool(String poolName) {
        return poolChoices.computeIfAbsent(poolName, n -> {
            List<IPPool> candidates = poolsByName.getOrDefault(n, List.of());
            if (candidates.isEmpty()) {
                return new PoolChoice(null, null);
            }
            if (candidates.size() == 1) {
                return new PoolChoice(decode(candidates.getFirst()), null);
            }
            List<DecodedPool> decoded = candidates.stream().map(this::decode)
                    .sorted(Comparator.comparingInt((DecodedPool d) -> d.allocations().size()).reversed()).toList();
            String note = decoded.size() == 1 ? null : "IPPool " + n + " exists in namespaces "
                    + String.join(", ", decoded.stream().map(DecodedPool::namespace).sorted().toList())
                    + "; counted the one in " + decoded.get(0).namespace() + " (most allocations)";
            return new PoolChoice(decoded.get(0), note);
        });
    }

    /**
     * @return the addresses OverlappingRangeIPReservations of this network name hold, indexed once per snapshot (the
     *         last snapshot's index while the reservations are the same objects)
     */
    private ReservedAddresses reservedAddresses(String networkName) {
        return reservedByNetworkName.computeIfAbsent(networkName, nn -> {
            ReservedAddresses before = reservedBefore.get(nn);
            if (before != null && sameInstances(reservationsBefore, reservations)) {
                return before;
            }
            return carried.reserved(nn, last -> ReservedAddresses.of(reservations, last,
                    r -> PoolNames.reservedAddress(name(r), nn)));
        });
    }

    static <T> boolean sameInstances(List<T> a, List<T> b) {
        return CarriedCounts.sameInstances(a, b);
    }

    /**
     * The snapshot's bound pods whose address whereabouts has not recorded yet: IPPool name → {@link #slot} of each
     * pod and interface that will draw one from it ({@link UnrecordedAddresses#byPool}).
     */
    Map<String, Set<String>> unrecordedByPool() {
        return unrecordedAddresses.byPool();
    }

    /** @return one pool's entry of {@link #unrecordedByPool} ({@link UnrecordedAddresses#of}) */
    Set<String> unrecorded(String pool, String node) {
        return unrecordedAddresses.of(pool, node);
    }

    /** @return {@code namespace/name} of each NetworkAttachmentDefinition of the snapshot */
    Set<String> nadKeys() {
        return nads.keySet();
    }

    /** @return the IPPool objects of this name (in whereabouts' namespace), empty when there is none */
    List<IPPool> poolObjects(String poolName) {
        return poolsByName.getOrDefault(poolName, List.of());
    }

    /** @return what this state shares with the ledger's other states */
    CarriedCounts carried() {
        return carried;
    }

    /** @return the carried counts of this state's network definitions */
    CarriedCounts.NodeCounts nodeCounts() {
        return nodeCounts;
    }


    /** @return {@code namespace/name} of the snapshot's bound pods ({@link IpamSnapshot#boundPods()}) */
    Set<String> boundRefs() {
        Set<String> b = boundRefs;
        if (b == null) {
            Set<String> out = new HashSet<>();
            for (PodPlacement p : snapshot.boundPods()) {
                out.add(p.podRef());
            }
            b = Set.copyOf(out);
            boundRefs = b;
        }
        return b;
    }

    /** @return the key of one pod interface's address in a pool */
    static String slot(String podRef, String ifname) {
        return podRef + " " + ifname;
    }

    /** @return the pod ref of a {@link #slot} key */
    static String podOf(String slot) {
        return slot.substring(0, slot.lastIndexOf(' '));
    }

    static boolean recorded(DecodedPool pool, String podRef, String ifname) {
        if (pool == null || pool.error() != null) {
            return false;
        }
        for (DecodedPool.Allocation a : pool.allocationsOf(podRef)) {
            if (a.address() != null && (a.ifname().isEmpty() || a.ifname().equals(ifname))) {
                return true;
            }
        }
        return false;
    }

    // ---- network resolution ------------------------------------------------------------------------------------

    NetworkResolution resolve(NetworkSelection s) {
        return resolutions.computeIfAbsent(s.key(),
                k -> NetworkResolver.resolve(s, nads, nadNamespacesByName, macvlans));
    }

    // ---- range counts ------------------------------------------------------------------------------------------

    /**
     * @param res   a resolved whereabouts network
     * @param index the range index
     * @param node  the node, used only in node-slice mode (null there: sum of every node's slice)
     */
    RangeView view(NetworkResolution res, int index, String node) {
        IpamConfig ipam = res.ipam();
        String key = res.key() + "#" + index + (ipam.nodeSliceMode() ? "@" + (node == null ? "" : node) : "");
        RangeView v = views.get(key);
        if (v != null) {
            return v;
        }
        IpamRange range = ipam.ranges().get(index);
        if (!ipam.nodeSliceMode()) {
            v = normalView(ipam, range, key);
        } else {
            v = node == null ? allSlicesView(res, index) : sliceView(ipam, range, node, key);
        }
        RangeView raced = views.putIfAbsent(key, v);
        return raced != null ? raced : v;
    }

    /**
     * A whole pool counted; or, while its IPPool object(s) and the reservations inside its range are what the last
     * count saw, that count (its stale allocations judged again against this snapshot's pods), as for a node's slice.
     */
    private RangeView normalView(IpamConfig ipam, IpamRange range, String key) {
        CarriedCounts.SliceView before = nodeCounts.view(key);
        if (before != null) {
            RangeView v = carriedView(before, ipam, key);
            if (v != null) {
                return v;
            }
        }
        String poolName = PoolNames.ipPool(ipam.networkName(), null, range.canonical());
        UsableAddresses usable = UsableAddresses.of(range);
        if (usable.emptyReason() != null) {
            return RangeView.failed(poolName, range.canonical(), PoolReason.IPAM_CONFIG_INVALID,
                    "range " + range.text() + ": " + usable.emptyReason());
        }
        ReservedAddresses index = reservedIndex(ipam);
        List<IPAddress> reserved = reservedIn(index, usable);
        RangeView v = counted(ipam, poolName, null, range.canonical(), usable, pool(poolName), reserved);
        if (v.failure() == null) {
            nodeCounts.view(key, new CarriedCounts.SliceView(range.canonical(), usable,
                    poolsByName.getOrDefault(poolName, List.of()), reserved, index, v));
        }
        return v;
    }

    /** @return true when the snapshot holds a NodeSlicePool of this name (in whereabouts' namespace) */
    boolean hasSlicePool(String name) {
        return slicePool(name) != null;
    }

    private NodeSlicePool slicePool(String name) {
        List<NodeSlicePool> candidates = slicePoolsByName.getOrDefault(name, List.of());
        return candidates.isEmpty() ? null : candidates.get(0);
    }

    /** @return the node → slice index of the NodeSlicePool of this name (empty when there is none) */
    Map<String, NodeSliceAllocation> sliceIndex(String name) {
        NodeSlicePool nsp = slicePool(name);
        return nsp == null ? Map.of() : slicesByNode.computeIfAbsent(name, k -> carried.sliceIndex(k, nsp));
    }

    /**
     * One node's slice, counted; or, while the node's slice, its IPPool object(s) and the reservations inside the
     * slice are what the last count saw, that count (its stale allocations judged again against this snapshot's
     * pods).
     */
    private RangeView sliceView(IpamConfig ipam, IpamRange range, String node, String key) {
        String sliceName = ipam.nodeSlicePoolName();
        if (slicePool(sliceName) == null) {
            return RangeView.failed(sliceName, range.canonical(), PoolReason.NODE_SLICE_MISSING, "NodeSlicePool "
                    + sliceName + " not found: whereabouts' node-slice controller has not sliced " + range.canonical());
        }
        NodeSliceAllocation slice = sliceIndex(sliceName).get(node);
        if (slice == null) {
            return RangeView.failed(sliceName, range.canonical(), PoolReason.NODE_SLICE_MISSING, "node " + node
                    + " has no slice in NodeSlicePool " + sliceName
                    + " (whereabouts fails with \"no allocated node slice for node\")");
        }
        CarriedCounts.SliceView before = nodeCounts.view(key);
        if (before != null && before.slice().equals(slice.sliceRange())) {
            RangeView v = carriedView(before, ipam, key);
            if (v != null) {
                return v;
            }
        }
        CarriedCounts.SliceAddresses addresses = carried.slice(range, slice.sliceRange());
        if (addresses.cidr() == null) {
            return RangeView.failed(sliceName, String.valueOf(slice.sliceRange()), PoolReason.POOL_INVALID,
                    "NodeSlicePool " + sliceName + ": slice '" + slice.sliceRange() + "' of node " + node
                            + " is not a CIDR of " + range.canonical());
        }
        // whereabouts names the node's pool after the slice string as stored (IPManagementKubernetesUpdate)
        String poolName = PoolNames.ipPool(ipam.networkName(), node, slice.sliceRange());
        UsableAddresses usable = addresses.usable();
        if (usable.emptyReason() != null) {
            return RangeView.failed(poolName, slice.sliceRange(), PoolReason.IPAM_CONFIG_INVALID,
                    "node " + node + ": " + usable.emptyReason());
        }
        List<IPPool> sources = poolsByName.getOrDefault(poolName, List.of());
        PoolChoice choice = pool(poolName);
        ReservedAddresses index = reservedIndex(ipam);
        List<IPAddress> reserved = reservedIn(index, usable);
        RangeView v = counted(ipam, poolName, node, slice.sliceRange(), usable, choice, reserved);
        if (v.failure() == null) {
            nodeCounts.view(key, new CarriedCounts.SliceView(slice.sliceRange(), usable, sources, reserved, index, v));
        }
        return v;
    }

    /**
     * @param before a node's view counted for the same slice, or a whole pool's for the same range, under the same
     *               network definitions (so the same pool name and addresses)
     * @return that view while its pool objects (and so the pool choice, a function of them) and reservations are the
     *         same (its stale allocations judged again against this snapshot's pods), else null
     */
    private RangeView carriedView(CarriedCounts.SliceView before, IpamConfig ipam, String key) {
        String poolName = before.view().poolName();
        List<IPPool> sources = poolsByName.getOrDefault(poolName, List.of());
        if (!sameInstances(before.sources(), sources)) {
            return null;
        }
        // the same index gives the same reservations inside the same addresses: reading them again (an address
        // object per reservation) cost the first check after every pod change about 0.6 ms per network at 5,000
        // nodes (docs/performance.md, "The first call after a GPU pod starts")
        ReservedAddresses index = reservedIndex(ipam);
        if (index != before.index() && !before.reserved().equals(reservedIn(index, before.usable()))) {
            return null;
        }
        RangeView v = before.view();
        if (v.pool() != null && !v.pool().allocations().isEmpty()) {
            List<String> stale = v.pool().stale(snapshot.livePods(), snapshot.podChanges());
            if (!stale.equals(v.stale())) {
                v = v.withStale(stale);
            }
        }
        if (v != before.view() || index != before.index()) {
            nodeCounts.view(key, new CarriedCounts.SliceView(before.slice(), before.usable(), sources,
                    before.reserved(), index, v));
        }
        return v;
    }

    /**
     * The sum of every node's slice: each node's {@link #view}, so what a node check counted (here or, unchanged,
     * in an earlier snapshot) is not counted again.
     */
    private RangeView allSlicesView(NetworkResolution res, int index) {
        IpamConfig ipam = res.ipam();
        IpamRange range = ipam.ranges().get(index);
        String sliceName = ipam.nodeSlicePoolName();
        NodeSlicePool nsp = slicePool(sliceName);
        if (nsp == null) {
            return RangeView.failed(sliceName, range.canonical(), PoolReason.NODE_SLICE_MISSING, "NodeSlicePool "
                    + sliceName + " not found: whereabouts' node-slice controller has not sliced " + range.canonical());
        }
        List<String> members = new ArrayList<>();
        List<String> memberNodes = new ArrayList<>();
        List<String> stale = new ArrayList<>();
        List<String> inconsistencies = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        long usable = 0;
        long allocated = 0;
        long elsewhere = 0;
        List<NodeSliceAllocation> slices = nsp.getStatus() == null ? List.of() : nsp.getStatus().allocations();
        for (NodeSliceAllocation a : slices) {
            if (a == null || a.nodeName() == null || a.nodeName().isEmpty()) {
                continue;
            }
            RangeView v = view(res, index, a.nodeName());
            if (v.failure() != null) {
                notes.add(v.failureMessage());
                continue;
            }
            members.addAll(v.memberPools());
            for (int i = 0; i < v.memberPools().size(); i++) {
                memberNodes.add(v.memberNode(i));
            }
            usable = saturatedAdd(usable, v.usable());
            allocated += v.allocated();
            elsewhere += v.reservedElsewhere();
            stale.addAll(v.stale());
            inconsistencies.addAll(v.inconsistencies());
        }
        if (members.isEmpty()) {
            return RangeView.failed(sliceName, range.canonical(), PoolReason.NODE_SLICE_MISSING, "NodeSlicePool "
                    + sliceName + " assigns no usable slice to any node");
        }
        return new RangeView(members, sliceName + " (" + members.size() + " node slices)", null, null,
                range.canonical(), members.size() + " slices of /" + ipam.nodeSliceSize(), usable, allocated,
                elsewhere, null, stale, inconsistencies, notes, null, null, memberNodes, null);
    }

    /** @return the index of the network name's reservations when whereabouts counts them, else null */
    private ReservedAddresses reservedIndex(IpamConfig ipam) {
        return ipam.overlappingRanges() ? reservedAddresses(ipam.networkName()) : null;
    }

    /** @return the reservations of {@code index} inside the range; none without an index */
    private static List<IPAddress> reservedIn(ReservedAddresses index, UsableAddresses usable) {
        return index == null ? List.of() : usable.reservedAmong(index);
    }

    /**
     * @param reserved the reservations inside the range ({@link #reservedIn}): those not of this pool's own
     *                 allocations count as taken elsewhere
     */
    private RangeView counted(IpamConfig ipam, String poolName, String node, String range, UsableAddresses usable,
                              PoolChoice choice, List<IPAddress> reserved) {
        DecodedPool pool = choice.pool();
        List<String> notes = new ArrayList<>(usable.notes());
        if (choice.note() != null) {
            notes.add(choice.note());
        }
        if (pool != null && pool.error() != null) {
            return RangeView.failed(poolName, range, PoolReason.POOL_INVALID, pool.error());
        }
        List<IPAddress> allocatedAddresses = new ArrayList<>();
        Set<String> inPool = new HashSet<>();
        if (pool != null) {
            for (DecodedPool.Allocation a : pool.allocations()) {
                if (a.address() != null) {
                    allocatedAddresses.add(a.address());
                    if (ipam.overlappingRanges()) {
                        inPool.add(a.text());
                    }
                }
            }
        }
        long allocated = usable.countContained(allocatedAddresses);
        long elsewhere = 0;
        if (ipam.overlappingRanges()) {
            List<IPAddress> others = new ArrayList<>();
            for (IPAddress ip : reserved) {
                if (!inPool.contains(AddressText.format(ip))) {
                    others.add(ip);
                }
            }
            elsewhere = usable.countContained(others);
        }
        long usableCount = usable.count().compareTo(LONG_MAX) >= 0 ? Long.MAX_VALUE : usable.count().longValue();
        return new RangeView(List.of(poolName), poolName, pool == null ? null : pool.namespace(), node, range,
                usable.span(), usableCount, allocated, elsewhere, pool,
                pool == null ? List.of() : pool.stale(snapshot.livePods(), snapshot.podChanges()),
                pool == null ? List.of() : pool.inconsistencies(), notes, null, null);
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }
}
