package dev.railyard.scheduler.ipam;

import dev.railyard.api.multus.MacvlanNetwork;
import dev.railyard.api.multus.NetworkAttachmentDefinition;
import dev.railyard.api.whereabouts.IPPool;
import dev.railyard.api.whereabouts.NodeSliceAllocation;
import dev.railyard.api.whereabouts.NodeSlicePool;
import dev.railyard.api.whereabouts.OverlappingRangeIPReservation;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import inet.ipaddr.IPAddress;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
    private final Map<String, NetworkAttachmentDefinition> nads = new LinkedHashMap<>();
    private final Map<String, Set<String>> nadNamespacesByName = new LinkedHashMap<>();
    private final Map<String, MacvlanNetwork> macvlans = new LinkedHashMap<>();
    private final Map<String, List<IPPool>> poolsByName = new LinkedHashMap<>();
    private final Map<String, List<NodeSlicePool>> slicePoolsByName = new LinkedHashMap<>();
    private final List<OverlappingRangeIPReservation> reservations = new ArrayList<>();
    private final List<IPPool> pools = new ArrayList<>();

    private final Map<String, NetworkResolution> resolutions = new ConcurrentHashMap<>();
    private final Map<String, PoolChoice> poolChoices = new ConcurrentHashMap<>();
    private final Map<String, Decoded> decodedByObject = new ConcurrentHashMap<>();
    private final Map<String, Decoded> decodedBefore;
    private final Map<String, SliceAddresses> sliceAddresses = new ConcurrentHashMap<>();
    private final Map<String, SliceAddresses> sliceAddressesBefore;
    private final Map<String, List<IPAddress>> reservedByNetworkName = new ConcurrentHashMap<>();
    private final Map<String, RangeView> views = new ConcurrentHashMap<>();
    private final Map<String, Map<String, NodeSliceAllocation>> slicesByNode = new ConcurrentHashMap<>();
    private volatile Map<String, Set<String>> unrecorded;
    private final Map<String, Set<String>> unrecordedOnNode = new ConcurrentHashMap<>();
    private volatile Map<String, List<PodPlacement>> boundByNode;
    private volatile Set<String> boundRefs;

    /** The IPPool chosen for a name (null pool: not created yet) and why, when several namespaces hold one. */
    record PoolChoice(DecodedPool pool, String note) {
    }

    /** A decoded IPPool and the object it was decoded from: a later snapshot holding that same object reuses it. */
    private record Decoded(IPPool source, DecodedPool pool) {
    }

    /** A node slice's CIDR (null: not a CIDR of the range's family) and its addresses: a function of both texts. */
    private record SliceAddresses(AddressText.Cidr cidr, UsableAddresses usable) {
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
     * @param previous the state this one replaces, or null: what it decoded from objects this snapshot still holds
     *                 (the same instances) is reused, so a change to one IPPool of tens of thousands (node slices)
     *                 does not decode them all again. Only its caches are kept, never the state, so states do not
     *                 chain.
     */
    LedgerState(IpamSnapshot snapshot, String whereaboutsNamespace, LedgerState previous) {
        this.snapshot = snapshot;
        this.decodedBefore = previous == null ? Map.of() : previous.decodedByObject;
        this.sliceAddressesBefore = previous == null ? Map.of() : previous.sliceAddresses;
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
        return decodedByObject.computeIfAbsent(namespace(pool) + "/" + name(pool), k -> {
            Decoded before = decodedBefore.get(k);
            return before != null && before.source() == pool ? before : new Decoded(pool, DecodedPool.decode(pool));
        }).pool();
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

    /** @return the addresses OverlappingRangeIPReservations of this network name hold */
    private List<IPAddress> reservedAddresses(String networkName) {
        return reservedByNetworkName.computeIfAbsent(networkName, nn -> {
            List<IPAddress> out = new ArrayList<>();
            for (OverlappingRangeIPReservation r : reservations) {
                IPAddress ip = PoolNames.reservedAddress(name(r), nn);
                if (ip != null) {
                    out.add(ip);
                }
            }
            return List.copyOf(out);
        });
    }

    /**
     * The snapshot's bound pods whose address whereabouts has not recorded yet: IPPool name → {@link #slot} of each
     * pod and interface that will draw one from it. A pod counts as recorded in a pool when the pool lists an
     * allocation for its podref on that interface (or without an interface name, as older whereabouts writes):
     * whereabouts hands that address back rather than a second one. Networks that fail to resolve, or are not
     * whereabouts, are left out (their checks report them). Computed once per snapshot.
     */
    Map<String, Set<String>> unrecordedByPool() {
        Map<String, Set<String>> u = unrecorded;
        if (u != null) {
            return u;
        }
        Map<String, Set<String>> out = new HashMap<>();
        for (PodPlacement p : snapshot.boundPods()) {
            for (NetworkSelection sel : p.request().selections()) {
                NetworkResolution res = resolve(sel);
                if (res.failure() != null || res.ipam() == null) {
                    continue;
                }
                for (int i = 0; i < res.ipam().ranges().size(); i++) {
                    RecordingPool rp = recordingPool(res, i, p.node());
                    if (rp != null && !recorded(rp.pool(), p.podRef(), sel.podInterface())) {
                        out.computeIfAbsent(rp.name(), k -> new HashSet<>()).add(slot(p.podRef(), sel.podInterface()));
                    }
                }
            }
        }
        u = Map.copyOf(out);
        unrecorded = u;
        return u;
    }

    /**
     * The {@link #unrecordedByPool} entry of one pool. For a node's slice pool ({@code node} not null) it is made from
     * the pods bound to that node alone, once per snapshot and pool, so a check on one node after an address change
     * does not look at every bound pod of the cluster (its pool's name holds the node's, so no pod of another node
     * draws from it).
     *
     * @param node the node of a node-slice view, or null
     */
    Set<String> unrecorded(String pool, String node) {
        Map<String, Set<String>> all = unrecorded;
        if (node == null || all != null) {
            return (all != null ? all : unrecordedByPool()).getOrDefault(pool, Set.of());
        }
        return unrecordedOnNode.computeIfAbsent(pool + "\n" + node, k -> {
            Set<String> out = new HashSet<>();
            for (PodPlacement p : boundByNode().getOrDefault(node, List.of())) {
                for (NetworkSelection sel : p.request().selections()) {
                    NetworkResolution res = resolve(sel);
                    if (res.failure() != null || res.ipam() == null || !res.ipam().nodeSliceMode()) {
                        continue;
                    }
                    for (int i = 0; i < res.ipam().ranges().size(); i++) {
                        RecordingPool rp = recordingPool(res, i, node);
                        if (rp != null && rp.name().equals(pool)
                                && !recorded(rp.pool(), p.podRef(), sel.podInterface())) {
                            out.add(slot(p.podRef(), sel.podInterface()));
                        }
                    }
                }
            }
            return Set.copyOf(out);
        });
    }

    /** @return the snapshot's bound pods by node, made once per snapshot */
    private Map<String, List<PodPlacement>> boundByNode() {
        Map<String, List<PodPlacement>> b = boundByNode;
        if (b == null) {
            Map<String, List<PodPlacement>> out = new HashMap<>();
            for (PodPlacement p : snapshot.boundPods()) {
                if (p.node() != null) {
                    out.computeIfAbsent(p.node(), k -> new ArrayList<>()).add(p);
                }
            }
            b = out;
            boundByNode = b;
        }
        return b;
    }

    /** The pool a pod's address of one range is recorded in: its name, and the pool (null: not created yet). */
    private record RecordingPool(String name, DecodedPool pool) {
    }

    /**
     * The first member pool of {@link #view view(res, index, node)} and its pool, or null where that view fails,
     * without counting: under node slices the view of every node with a bound pod would be made, each counting its
     * pool, on every snapshot (a fifth of a second at 20,000 nodes); here only the node's slice and pool are looked
     * up, under the same conditions {@link #sliceView} and {@link #counted} fail on.
     */
    private RecordingPool recordingPool(NetworkResolution res, int index, String node) {
        IpamConfig ipam = res.ipam();
        if (!ipam.nodeSliceMode() || node == null) {
            RangeView v = view(res, index, node);
            return v.failure() != null || v.memberPools().isEmpty() ? null
                    : new RecordingPool(v.memberPools().get(0), v.pool());
        }
        String sliceName = ipam.nodeSlicePoolName();
        NodeSlicePool nsp = slicePool(sliceName);
        NodeSliceAllocation slice = nsp == null ? null
                : slicesByNode.computeIfAbsent(sliceName, k -> slicesByNode(nsp)).get(node);
        if (slice == null) {
            return null;
        }
        SliceAddresses addresses = sliceAddresses(ipam.ranges().get(index), slice.sliceRange());
        if (addresses.cidr() == null || addresses.usable().emptyReason() != null) {
            return null;
        }
        String poolName = PoolNames.ipPool(ipam.networkName(), node, slice.sliceRange());
        DecodedPool pool = pool(poolName).pool();
        return pool != null && pool.error() != null ? null : new RecordingPool(poolName, pool);
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
        return resolutions.computeIfAbsent(s.key(), k -> resolveUncached(s));
    }

    private NetworkResolution resolveUncached(NetworkSelection s) {
        String key = s.key();
        NetworkAttachmentDefinition nad = nads.get(key);
        MacvlanNetwork macvlan = macvlans.get(s.name());
        boolean macvlanRendersHere = macvlan != null && macvlan.getSpec() != null
                && macvlan.getSpec().effectiveNetworkNamespace().equals(s.namespace());
        if (macvlanRendersHere) {
            String ipam = macvlan.getSpec().ipam();
            if (ipam != null && !ipam.isBlank() && !isJsonObject(ipam)) {
                return NetworkResolution.failed(key, PoolReason.NETWORK_CONFIG_INVALID, "MacvlanNetwork " + s.name()
                        + ": spec.ipam is not a JSON object (" + abbreviate(ipam) + "), so the network-operator cannot"
                        + " render NetworkAttachmentDefinition " + key
                        + (nad == null ? "" : " (the existing one is stale)"));
            }
        }
        if (nad == null) {
            StringBuilder m = new StringBuilder("no NetworkAttachmentDefinition " + s.name() + " in namespace "
                    + s.namespace());
            Set<String> elsewhere = new TreeSet<>(nadNamespacesByName.getOrDefault(s.name(), Set.of()));
            elsewhere.remove(s.namespace());
            if (!elsewhere.isEmpty()) {
                String other = elsewhere.iterator().next();
                m.append(" (multus resolves a name without namespace in the pod's namespace); it exists in ")
                        .append(String.join(", ", elsewhere)).append(": reference it as ").append(other).append('/')
                        .append(s.name());
            }
            if (macvlanRendersHere) {
                m.append("; MacvlanNetwork ").append(s.name()).append(" has not rendered it");
                if (macvlan.getStatus() != null && macvlan.getStatus().state() != null) {
                    m.append(" (state ").append(macvlan.getStatus().state());
                    if (macvlan.getStatus().reason() != null && !macvlan.getStatus().reason().isEmpty()) {
                        m.append(": ").append(macvlan.getStatus().reason());
                    }
                    m.append(')');
                }
            } else if (macvlan != null && macvlan.getSpec() != null) {
                m.append("; MacvlanNetwork ").append(s.name()).append(" renders it into namespace ")
                        .append(macvlan.getSpec().effectiveNetworkNamespace());
            }
            return NetworkResolution.failed(key, PoolReason.NETWORK_NOT_FOUND, m.toString());
        }
        String config = nad.getSpec() == null ? null : nad.getSpec().config();
        if (config == null || config.isBlank()) {
            return new NetworkResolution(key, null, null, null, null, List.of("NetworkAttachmentDefinition " + key
                    + " has no spec.config: multus reads the CNI config from each node's conf dir, so Railyard cannot"
                    + " count its addresses"));
        }
        CniNetworkConfig cni;
        try {
            cni = CniNetworkConfig.parse(config);
        } catch (IpamConfigException e) {
            return NetworkResolution.failed(key, PoolReason.NETWORK_CONFIG_INVALID,
                    "NetworkAttachmentDefinition " + key + ": " + e.getMessage());
        }
        if (!cni.whereabouts()) {
            return new NetworkResolution(key, null, null, null, cni.master(), List.of("NetworkAttachmentDefinition "
                    + key + (cni.ipam() == null ? " has no IPAM" : " uses IPAM type '" + cni.ipamType() + "'")
                    + ", not whereabouts: its addresses are not counted"));
        }
        try {
            IpamConfig ipam = IpamConfigParser.parse(cni.ipam(), cni.name());
            return new NetworkResolution(key, null, null, ipam, cni.master(), ipam.notes());
        } catch (IpamConfigException e) {
            return NetworkResolution.failed(key, PoolReason.IPAM_CONFIG_INVALID,
                    "NetworkAttachmentDefinition " + key + " IPAM: " + e.getMessage());
        }
    }

    private static boolean isJsonObject(String text) {
        try {
            JsonNode n = CniNetworkConfig.JSON.readTree(text);
            return n != null && n.isObject();
        } catch (JacksonException e) {
            return false;
        }
    }

    private static String abbreviate(String text) {
        String t = text.replaceAll("\\s+", " ").strip();
        return t.length() <= 60 ? t : t.substring(0, 57) + "...";
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
        return views.computeIfAbsent(key, k -> {
            IpamRange range = ipam.ranges().get(index);
            if (!ipam.nodeSliceMode()) {
                return normalView(ipam, range);
            }
            return node == null ? allSlicesView(ipam, range) : sliceView(ipam, range, node);
        });
    }

    private RangeView normalView(IpamConfig ipam, IpamRange range) {
        String poolName = PoolNames.ipPool(ipam.networkName(), null, range.canonical());
        UsableAddresses usable = UsableAddresses.of(range);
        if (usable.emptyReason() != null) {
            return RangeView.failed(poolName, range.canonical(), PoolReason.IPAM_CONFIG_INVALID,
                    "range " + range.text() + ": " + usable.emptyReason());
        }
        return counted(ipam, poolName, null, range.canonical(), usable);
    }

    /** @return true when the snapshot holds a NodeSlicePool of this name (in whereabouts' namespace) */
    boolean hasSlicePool(String name) {
        return slicePool(name) != null;
    }

    private NodeSlicePool slicePool(String name) {
        List<NodeSlicePool> candidates = slicePoolsByName.getOrDefault(name, List.of());
        return candidates.isEmpty() ? null : candidates.get(0);
    }

    private RangeView sliceView(IpamConfig ipam, IpamRange range, String node) {
        String sliceName = ipam.nodeSlicePoolName();
        NodeSlicePool nsp = slicePool(sliceName);
        if (nsp == null) {
            return RangeView.failed(sliceName, range.canonical(), PoolReason.NODE_SLICE_MISSING, "NodeSlicePool "
                    + sliceName + " not found: whereabouts' node-slice controller has not sliced " + range.canonical());
        }
        NodeSliceAllocation slice = slicesByNode.computeIfAbsent(sliceName, k -> slicesByNode(nsp)).get(node);
        if (slice == null) {
            return RangeView.failed(sliceName, range.canonical(), PoolReason.NODE_SLICE_MISSING, "node " + node
                    + " has no slice in NodeSlicePool " + sliceName
                    + " (whereabouts fails with \"no allocated node slice for node\")");
        }
        SliceAddresses addresses = sliceAddresses(range, slice.sliceRange());
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
        return counted(ipam, poolName, node, slice.sliceRange(), usable);
    }

    /** Parses a slice once per range and slice text, across snapshots (each node's check needs its slice's). */
    private SliceAddresses sliceAddresses(IpamRange range, String slice) {
        return sliceAddresses.computeIfAbsent(range.cidr().canonical() + " " + slice, k -> {
            SliceAddresses before = sliceAddressesBefore.get(k);
            if (before != null) {
                return before;
            }
            AddressText.Cidr cidr = AddressText.parseCidr(slice);
            return cidr == null || cidr.ipv4() != range.cidr().ipv4() ? new SliceAddresses(null, null)
                    : new SliceAddresses(cidr, UsableAddresses.ofSlice(range, cidr));
        });
    }

    /**
     * The node → slice index of one NodeSlicePool, built once per snapshot: a pool of a large range lists tens of
     * thousands of slices, and every node's check looks its own up. A node listed twice keeps its first slice, the
     * one whereabouts' {@code GetNodeSlice} finds first.
     */
    private static Map<String, NodeSliceAllocation> slicesByNode(NodeSlicePool nsp) {
        Map<String, NodeSliceAllocation> byNode = new HashMap<>();
        if (nsp.getStatus() != null) {
            for (NodeSliceAllocation a : nsp.getStatus().allocations()) {
                if (a != null && a.nodeName() != null && !a.nodeName().isEmpty()) {
                    byNode.putIfAbsent(a.nodeName(), a);
                }
            }
        }
        return byNode;
    }

    private RangeView allSlicesView(IpamConfig ipam, IpamRange range) {
        String sliceName = ipam.nodeSlicePoolName();
        NodeSlicePool nsp = slicePool(sliceName);
        if (nsp == null) {
            return RangeView.failed(sliceName, range.canonical(), PoolReason.NODE_SLICE_MISSING, "NodeSlicePool "
                    + sliceName + " not found: whereabouts' node-slice controller has not sliced " + range.canonical());
        }
        List<String> members = new ArrayList<>();
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
            RangeView v = sliceView(ipam, range, a.nodeName());
            if (v.failure() != null) {
                notes.add(v.failureMessage());
                continue;
            }
            members.addAll(v.memberPools());
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
                elsewhere, null, stale, inconsistencies, notes, null, null);
    }

    private RangeView counted(IpamConfig ipam, String poolName, String node, String range, UsableAddresses usable) {
        PoolChoice choice = pool(poolName);
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
                    inPool.add(AddressText.format(a.address()));
                }
            }
        }
        long allocated = usable.countContained(allocatedAddresses);
        long elsewhere = 0;
        if (ipam.overlappingRanges()) {
            List<IPAddress> others = new ArrayList<>();
            for (IPAddress ip : reservedAddresses(ipam.networkName())) {
                if (!inPool.contains(AddressText.format(ip))) {
                    others.add(ip);
                }
            }
            elsewhere = usable.countContained(others);
        }
        long usableCount = usable.count().compareTo(LONG_MAX) >= 0 ? Long.MAX_VALUE : usable.count().longValue();
        return new RangeView(List.of(poolName), poolName, pool == null ? null : pool.namespace(), node, range,
                usable.span(), usableCount, allocated, elsewhere, pool,
                pool == null ? List.of() : pool.stale(snapshot.livePods()),
                pool == null ? List.of() : pool.inconsistencies(), notes, null, null);
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }
}
