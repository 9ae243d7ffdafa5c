package dev.railyard.scheduler.cluster;

import dev.railyard.api.volcano.HyperNode;
import dev.railyard.api.volcano.PodGroup;
import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.SecondaryNetwork;
import dev.railyard.scheduler.ipam.AddressPools;
import dev.railyard.scheduler.ipam.IpamSnapshot;
import dev.railyard.topology.InputException;
import dev.railyard.topology.fabric.FabricLabelKeys;
import dev.railyard.topology.fabric.FabricModel;
import dev.railyard.topology.fabric.HyperNodeFabric;
import dev.railyard.topology.fabric.NodeLabelFabric;
import dev.railyard.topology.fabric.NvlinkDomains;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import org.pcollections.HashTreePMap;
import org.pcollections.HashTreePSet;
import org.pcollections.PMap;
import org.pcollections.PSet;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Railyard's incremental cluster state, in the manner of kube-scheduler's scheduler cache (docs/adr/0008): informer
 * events update per-node records, the per-pod and per-PodGroup indexes and the small kinds in place; a decision reads
 * an immutable {@link ClusterView} made by {@link #snapshot()}, which shares every unchanged record with the one
 * before and costs O(records changed since then).
 *
 * <ul>
 *   <li><b>Events</b>: {@link #upsert}, {@link #delete} and {@link #replaceAll} (a relist: every object of a kind,
 *       the ones missing deleted) for any {@link WatchedKind}. An update whose compact record equals the one held
 *       (a pod status heartbeat, a Node condition timestamp) changes nothing, not even a generation.</li>
 *   <li><b>Node records</b> ({@link NodeRecord}): a Node, its NodeTopology and the pods bound to it become one
 *       engine {@link dev.railyard.scheduler.engine.NodeState} with a generation; only nodes touched since the last
 *       snapshot are converted again.</li>
 *   <li><b>Cluster-wide data</b>: the fabric is made again only when nodes come or go, their labels change or a
 *       HyperNode changes; the networks and the pool ledger's objects only when an IPAM object changes; the ledger's
 *       pod side only when a pod appears, goes, or changes the addresses it draws.</li>
 *   <li><b>Indexes</b>: pods by key, pods by node, and gang members by PodGroup (Volcano's annotation and the
 *       coscheduling label), maintained on events; {@link ClusterView#members} reads them.</li>
 * </ul>
 * The same class builds a state from a list of objects ({@link #of}), which is how {@code railyard explain} and
 * {@code pools} see a snapshot directory: one code path for both.
 *
 * <p>Thread-safe: an event is converted to its compact record by the calling (informer) thread and queued, so
 * informers never wait while a snapshot is made; {@link #snapshot()} applies the queued events under the state's lock
 * and makes the view (a queue longer than 512 events is applied by the thread that fills it). A snapshot, once made,
 * is immutable and read without the lock.
 */
public final class ClusterState {
    private static final List<WatchedKind> SMALL = List.of(WatchedKind.POD_GROUP, WatchedKind.COSCHEDULING_POD_GROUP,
            WatchedKind.HYPER_NODE, WatchedKind.NETWORK_ATTACHMENT_DEFINITION, WatchedKind.MACVLAN_NETWORK,
            WatchedKind.IP_POOL, WatchedKind.OVERLAPPING_RANGE_RESERVATION, WatchedKind.NODE_SLICE_POOL);

    private final FabricModel staticFabric;
    private final AddressPools pools;
    private final Consumer<IpamSnapshot> ledger;
    private final Clock clock;
    private final Object lock = new Object();

    private final Map<String, NodeFields> nodes = new HashMap<>();
    private final Map<String, TopologyFields> topologies = new HashMap<>();
    private final Map<String, Map<String, PodView>> podsByNode = new HashMap<>();
    private final TreeMap<String, String> podWarnings = new TreeMap<>();
    private final Set<String> dirtyNodes = new HashSet<>();
    private final Map<WatchedKind, TreeMap<String, GenericKubernetesResource>> small = new HashMap<>();
    private final Set<WatchedKind> smallDirty = new HashSet<>(SMALL);
    private final NodeTable table = new NodeTable();
    private final StateIpam ipam = new StateIpam();
    private final Gangs gangs = new Gangs();

    private PMap<String, PodView> pods = HashTreePMap.empty();
    private PSet<String> podKeys = HashTreePSet.empty();
    private PSet<String> unhinted = HashTreePSet.empty();
    private Set<WatchedKind> disabled = Set.of();

    private boolean nodeSetDirty = true;
    private boolean fabricDirty = true;
    private boolean podsDirty = true;
    private long generation;
    private long changes;
    private volatile ClusterView last; // written under the lock; volatile for lastView()
    // the parts of the last view that are rebuilt only when their inputs change
    private FabricModel fabric;
    private List<String> fabricWarnings = List.of();
    private Map<String, PodGroup> volcanoGroups = Map.of();
    private Map<String, PodGroup> coschedulingGroups = Map.of();
    private List<String> groupWarnings = List.of();
    private final Map<WatchedKind, List<GenericKubernetesResource>> smallLists = new HashMap<>();
    private ClusterObjects objects;
    private List<SecondaryNetwork> networks;
    private List<String> warnings = List.of();

    /**
     * @param staticFabric a fabric file's model, or null to take the fabric from HyperNodes or node labels
     * @param pools        the address pools the networks are resolved with, or null when unknown
     * @param ledger       fed an {@link IpamSnapshot} whenever the IPAM objects or the pods' address needs change,
     *                     before the networks are resolved through {@code pools}; null when the caller keeps
     *                     {@code pools} up to date itself
     * @param clock        time of the {@link IpamSnapshot}s
     */
    public ClusterState(FabricModel staticFabric, AddressPools pools, Consumer<IpamSnapshot> ledger, Clock clock) {
        this.staticFabric = staticFabric;
        this.pools = pools;
        this.ledger = ledger;
        this.clock = clock;
        SMALL.forEach(k -> small.put(k, new TreeMap<>()));
    }

    /**
     * A state built from scratch from a list of objects (a snapshot directory, a one-off listing): the same code
     * the informers drive, every object added once.
     *
     * @param objects the objects
     * @param pools   the address pools, already updated with {@link IpamSnapshotConverter#convert} of the same
     *                objects, or null
     * @param fabric  a static fabric, or null
     * @return the state
     */
    public static ClusterState of(ClusterObjects objects, AddressPools pools, FabricModel fabric) {
        ClusterState s = new ClusterState(fabric, pools, null, Clock.systemUTC());
        for (WatchedKind k : WatchedKind.ALL) {
            s.replaceAll(k, objects.of(k));
        }
        s.disabled(objects.disabled());
        return s;
    }

    /** Kinds whose CRD is not installed now (their features are off); shown in {@link ClusterView#objects()}. */
    public void disabled(Set<WatchedKind> kinds) {
        synchronized (lock) {
            if (!kinds.equals(disabled)) {
                disabled = Set.copyOf(kinds);
                objects = null;
                changes++;
            }
        }
    }

    /** @return how many events changed something since the state was made (equal counts: equal contents) */
    public long changes() {
        synchronized (lock) {
            drainLocked();
            return changes;
        }
    }

    /**
     * An object was added or updated.
     *
     * @param kind its kind
     * @param obj  the object in generic form; one without a name is ignored
     */
    public void upsert(WatchedKind kind, GenericKubernetesResource obj) {
        String key = key(kind, obj);
        if (key == null) {
            return;
        }
        enqueue(new Change(kind, key, compact(kind, obj)));
    }

    /**
     * An object was deleted (only its kind, namespace and name are read).
     */
    public void delete(WatchedKind kind, GenericKubernetesResource obj) {
        String key = key(kind, obj);
        if (key == null) {
            return;
        }
        enqueue(new Change(kind, key, null));
    }

    /**
     * One event, its object already in the form the state keeps (converted by the informer's thread, outside the
     * lock): {@link NodeFields}, {@link TopologyFields}, a {@link PodView} or the warning of a pod that cannot be
     * read, a stripped small-kind object, or for an IPAM kind a {@link StateIpam.Read} (the stripped object and its
     * {@code api} form); null for a delete.
     */
    private record Change(WatchedKind kind, String key, Object compact) {
    }

    /** Events not applied yet: informers never wait for a snapshot being made; at most this many are queued. */
    private static final int MAX_PENDING = 512;
    private final ConcurrentLinkedQueue<Change> pending = new ConcurrentLinkedQueue<>();
    private final AtomicInteger pendingCount = new AtomicInteger();

    private void enqueue(Change c) {
        pending.add(c);
        if (pendingCount.incrementAndGet() > MAX_PENDING) {
            synchronized (lock) {
                drainLocked();
            }
        }
    }

    /** Applies the queued events, in the order they came. Callers hold the lock. */
    private void drainLocked() {
        Change c;
        while ((c = pending.poll()) != null) {
            pendingCount.decrementAndGet();
            if (c.compact() == null) {
                deleteLocked(c.kind(), c.key());
            } else {
                upsertLocked(c.kind(), c.key(), c.compact());
            }
        }
    }

    /** @return the object as the state keeps it (see {@link Change}) */
    private static Object compact(WatchedKind kind, GenericKubernetesResource obj) {
        if (kind.equals(WatchedKind.NODE)) {
            return NodeFields.of(obj);
        }
        if (kind.equals(WatchedKind.NODE_TOPOLOGY)) {
            return TopologyFields.of(obj);
        }
        if (kind.equals(WatchedKind.POD)) {
            try {
                return Compact.pod(obj);
            } catch (IllegalArgumentException e) {
                return new PodWarning(ObjectFields.describe(obj) + ": " + e.getMessage() + "; skipped");
            }
        }
        boolean statusRead = !kind.equals(WatchedKind.POD_GROUP) && !kind.equals(WatchedKind.COSCHEDULING_POD_GROUP)
                && !kind.equals(WatchedKind.HYPER_NODE);
        GenericKubernetesResource stripped = Compact.strip(obj, statusRead);
        StateIpam.Read read = StateIpam.read(kind, stripped);
        return read != null ? read : stripped;
    }

    /** A pod that cannot be read: it is skipped, with this warning. */
    private record PodWarning(String text) {
    }

    /**
     * Every object of a kind, as a list or relist gives them: each is upserted, and the ones held but not listed are
     * deleted.
     */
    public void replaceAll(WatchedKind kind, Collection<GenericKubernetesResource> objects) {
        synchronized (lock) {
            drainLocked();
            Set<String> listed = new HashSet<>();
            for (GenericKubernetesResource o : objects) {
                String key = key(kind, o);
                if (key != null && listed.add(key)) {
                    upsertLocked(kind, key, compact(kind, o));
                }
            }
            for (String held : heldKeys(kind)) {
                if (!listed.contains(held)) {
                    deleteLocked(kind, held);
                }
            }
        }
    }

    private List<String> heldKeys(WatchedKind kind) {
        if (kind.equals(WatchedKind.NODE)) {
            return List.copyOf(nodes.keySet());
        }
        if (kind.equals(WatchedKind.NODE_TOPOLOGY)) {
            return List.copyOf(topologies.keySet());
        }
        if (kind.equals(WatchedKind.POD)) {
            return List.copyOf(podKeys);
        }
        TreeMap<String, GenericKubernetesResource> m = small.get(kind);
        return m == null ? List.of() : List.copyOf(m.keySet());
    }

    /** @return {@code namespace/name} (namespace {@code default} when a namespaced object has none), or the name */
    static String key(WatchedKind kind, GenericKubernetesResource o) {
        if (o == null || o.getMetadata() == null || o.getMetadata().getName() == null) {
            return null;
        }
        if (!kind.namespaced()) {
            return o.getMetadata().getName();
        }
        String ns = o.getMetadata().getNamespace();
        return (ns == null || ns.isEmpty() ? "default" : ns) + "/" + o.getMetadata().getName();
    }

    private void upsertLocked(WatchedKind kind, String key, Object obj) {
        if (kind.equals(WatchedKind.NODE)) {
            NodeFields f = (NodeFields) obj;
            NodeFields old = nodes.get(key);
            if (f.equals(old)) {
                return;
            }
            nodes.put(key, f);
            dirtyNodes.add(key);
            if (old == null) {
                nodeSetDirty = true;
            }
            if (old == null || !old.labels().equals(f.labels())) {
                fabricDirty = true;
            }
        } else if (kind.equals(WatchedKind.NODE_TOPOLOGY)) {
            TopologyFields t = (TopologyFields) obj;
            TopologyFields old = topologies.get(key);
            if (t.equals(old)) {
                return; // keep the instance the engine's caches know
            }
            topologies.put(key, t);
            dirtyNodes.add(key);
            if (old == null) {
                nodeSetDirty = true; // the orphan-topology warnings
            }
        } else if (kind.equals(WatchedKind.POD)) {
            if (!upsertPod(key, obj)) {
                return;
            }
        } else {
            TreeMap<String, GenericKubernetesResource> m = small.get(kind);
            if (m == null) {
                return;
            }
            StateIpam.Read read = obj instanceof StateIpam.Read r ? r : null;
            GenericKubernetesResource stripped = read != null ? read.stripped() : (GenericKubernetesResource) obj;
            GenericKubernetesResource old = m.put(key, stripped);
            if (stripped.equals(old)) {
                m.put(key, old);
                return;
            }
            smallChanged(kind, key, read);
        }
        changes++;
    }

    private void deleteLocked(WatchedKind kind, String key) {
        if (kind.equals(WatchedKind.NODE)) {
            if (nodes.remove(key) == null) {
                return;
            }
            dirtyNodes.add(key);
            nodeSetDirty = true;
            fabricDirty = true;
        } else if (kind.equals(WatchedKind.NODE_TOPOLOGY)) {
            if (topologies.remove(key) == null) {
                return;
            }
            dirtyNodes.add(key);
            nodeSetDirty = true;
        } else if (kind.equals(WatchedKind.POD)) {
            if (!podKeys.contains(key)) {
                return;
            }
            PodView old = pods.get(key);
            podKeys = podKeys.minus(key);
            podWarnings.remove(key);
            if (old != null) {
                unindex(old);
                pods = pods.minus(key);
            }
            ipam.podGone(key);
            podsDirty = true;
        } else {
            TreeMap<String, GenericKubernetesResource> m = small.get(kind);
            if (m == null || m.remove(key) == null) {
                return;
            }
            smallChanged(kind, key, null);
        }
        changes++;
    }

    private void smallChanged(WatchedKind kind, String key, StateIpam.Read now) {
        smallDirty.add(kind);
        if (kind.equals(WatchedKind.HYPER_NODE)) {
            fabricDirty = true;
        } else {
            ipam.objectChanged(kind, key, now);
        }
    }

    /** @return true when the pod's record changed */
    private boolean upsertPod(String key, Object obj) {
        PodView v = obj instanceof PodView p ? p : null;
        String warning = obj instanceof PodWarning w ? w.text() : null;
        PodView old = pods.get(key);
        boolean known = podKeys.contains(key);
        if (known && v != null && v.equals(old)) {
            return false;
        }
        if (known && v == null && old == null && warning.equals(podWarnings.get(key))) {
            return false;
        }
        boolean isNew = !known;
        podKeys = podKeys.plus(key);
        if (old != null) {
            unindex(old);
        }
        if (v == null) {
            pods = pods.minus(key);
            podWarnings.put(key, warning);
        } else {
            podWarnings.remove(key);
            pods = pods.plus(key, v);
            index(v);
        }
        ipam.podChanged(key, v, isNew);
        podsDirty = true;
        return true;
    }

    /**
     * @return true for a pod the hint sweep looks at: bound, neither finished nor being deleted, asking for GPUs and
     *         without a {@code railyard.dev/placement} annotation
     */
    static boolean wantsHints(PodView p) {
        return p.node() != null && !p.finished() && !p.terminating() && p.gpus() > 0
                && !p.annotations().containsKey(dev.railyard.api.hints.HintAnnotations.PLACEMENT);
    }

    private void index(PodView p) {
        if (wantsHints(p)) {
            unhinted = unhinted.plus(p.key());
        }
        if (p.node() != null) {
            podsByNode.computeIfAbsent(p.node(), k -> new HashMap<>()).put(p.key(), p);
            dirtyNodes.add(p.node());
        }
        gangs.add(p);
    }

    private void unindex(PodView p) {
        unhinted = unhinted.minus(p.key());
        if (p.node() != null) {
            Map<String, PodView> on = podsByNode.get(p.node());
            if (on != null) {
                on.remove(p.key());
                if (on.isEmpty()) {
                    podsByNode.remove(p.node());
                }
            }
            dirtyNodes.add(p.node());
        }
        gangs.remove(p);
    }

    /** @return the view the last {@link #snapshot()} made or returned, without applying events; null before one */
    ClusterView lastView() {
        return last;
    }

    /**
     * @return the current state as an immutable view; the same instance as the last call when nothing changed since,
     *         otherwise one sharing every record that did not change
     */
    public ClusterView snapshot() {
        synchronized (lock) {
            drainLocked();
            boolean dirty = !dirtyNodes.isEmpty() || nodeSetDirty || fabricDirty || !smallDirty.isEmpty()
                    || podsDirty || ipam.dirty() || objects == null;
            if (last != null && !dirty) {
                return last;
            }
            generation++;
            boolean warningsDirty = podsDirty || !dirtyNodes.isEmpty() || nodeSetDirty;
            boolean membership = table.update(nodes, topologies, podsByNode, dirtyNodes, nodeSetDirty, generation);
            boolean engineDirty = table.engineChanged() || last == null;
            boolean groups = smallDirty.contains(WatchedKind.POD_GROUP)
                    || smallDirty.contains(WatchedKind.COSCHEDULING_POD_GROUP);
            if (groups) {
                convertGroups();
                warningsDirty = true;
            }
            if (fabricDirty || membership || fabric == null) {
                buildFabric();
                warningsDirty = true;
                engineDirty = true;
            }
            for (WatchedKind k : smallDirty) {
                smallLists.put(k, List.copyOf(small.get(k).values()));
            }
            if (!smallDirty.isEmpty() || objects == null) {
                Map<WatchedKind, List<GenericKubernetesResource>> lists = new HashMap<>();
                for (WatchedKind k : SMALL) {
                    lists.put(k, smallLists.getOrDefault(k, List.of()));
                }
                objects = new ClusterObjects(clock.instant(), generation, lists, disabled, true);
            }
            if (ipam.dirty() || networks == null) {
                networks = ipam.publish(ledger, pools, podKeys, clock,
                        small.get(WatchedKind.NETWORK_ATTACHMENT_DEFINITION).values());
                engineDirty = true; // the pools' counts changed: plans made on the last snapshot may not hold
            }
            if (warningsDirty) {
                List<String> w = new ArrayList<>(podWarnings.values());
                w.addAll(table.warnings());
                w.addAll(groupWarnings);
                w.addAll(fabricWarnings);
                warnings = List.copyOf(w);
            }
            // nothing the engine reads changed (pod status updates, pods without devices, PodGroup metadata): the
            // same engine snapshot, so plans and answers made on it stay valid
            ClusterSnapshot engine = !engineDirty ? last.snapshot() : ClusterSnapshot.sorted(table.sorted(),
                    table.index(), table.names(), networks, fabric, pools);
            last = new ClusterView(objects, engine, volcanoGroups, coschedulingGroups, pods, table.accounting(),
                    table.rdmaResources(), table.statuses(), warnings, generation, gangs.snapshot(), table.records(),
                    unhinted);
            dirtyNodes.clear();
            nodeSetDirty = false;
            fabricDirty = false;
            smallDirty.clear();
            podsDirty = false;
            return last;
        }
    }

    /** @return the record of a node in the last snapshot, or null (for tests and the benchmark) */
    NodeRecord record(String node) {
        synchronized (lock) {
            drainLocked();
            return table.record(node);
        }
    }

    /** @return warnings of IPAM objects that could not be read, one line each */
    public List<String> ipamWarnings() {
        synchronized (lock) {
            return ipam.warnings();
        }
    }

    private void convertGroups() {
        List<String> w = new ArrayList<>();
        Map<String, PodGroup> v = new LinkedHashMap<>();
        for (GenericKubernetesResource r : small.get(WatchedKind.POD_GROUP).values()) {
            try {
                PodGroup pg = VolcanoObjectConverter.podGroup(r);
                v.put(pg.namespace() + "/" + pg.name(), pg);
            } catch (IllegalArgumentException e) {
                w.add(ObjectFields.describe(r) + ": " + e.getMessage() + "; skipped");
            }
        }
        Map<String, PodGroup> c = new LinkedHashMap<>();
        for (GenericKubernetesResource r : small.get(WatchedKind.COSCHEDULING_POD_GROUP).values()) {
            try {
                PodGroup pg = CoschedulingObjectConverter.podGroup(r);
                c.put(pg.namespace() + "/" + pg.name(), pg);
            } catch (IllegalArgumentException e) {
                w.add(ObjectFields.describe(r) + " (" + WatchedKind.COSCHEDULING_POD_GROUP.apiVersion() + "): "
                        + e.getMessage() + "; skipped");
            }
        }
        volcanoGroups = java.util.Collections.unmodifiableMap(v);
        coschedulingGroups = java.util.Collections.unmodifiableMap(c);
        groupWarnings = List.copyOf(w);
    }

    private void buildFabric() {
        List<String> w = new ArrayList<>();
        FabricModel model = staticFabric;
        if (model == null) {
            Map<String, Map<String, String>> labels = table.labels();
            List<HyperNode> hyper = new ArrayList<>();
            for (GenericKubernetesResource r : small.get(WatchedKind.HYPER_NODE).values()) {
                try {
                    hyper.add(VolcanoObjectConverter.hyperNode(r));
                } catch (IllegalArgumentException e) {
                    w.add(ObjectFields.describe(r) + ": " + e.getMessage() + "; skipped");
                }
            }
            if (!hyper.isEmpty()) {
                try {
                    model = HyperNodeFabric.build(hyper, labels);
                } catch (InputException e) {
                    w.add("HyperNodes: " + e.getMessage() + "; the fabric is taken from node labels instead");
                }
            }
            if (model == null) {
                model = NodeLabelFabric.build(labels, FabricLabelKeys.defaults());
            }
        }
        // NVLink domains from the clique label, whatever the switch fabric's source (docs/formats/nvlink-clique.md)
        fabric = NvlinkDomains.overlay(model, table.labels());
        fabricWarnings = List.copyOf(w);
    }

    /** @return the members index for a PodGroup convention, for tests */
    Map<String, PSet<String>> membersIndex(PodGroup.Convention convention) {
        synchronized (lock) {
            drainLocked();
            return gangs.snapshot().byGroup(convention);
        }
    }
}
