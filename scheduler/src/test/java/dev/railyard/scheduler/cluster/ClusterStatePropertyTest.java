package dev.railyard.scheduler.cluster;

import dev.railyard.api.volcano.PodGroup;
import dev.railyard.scheduler.engine.NodeState;
import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.ipam.IpamSnapshot;
import dev.railyard.scheduler.ipam.PodNetworksRequest;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.CustomResource;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.railyard.scheduler.cluster.ClusterFixtures.coschedulingGroup;
import static dev.railyard.scheduler.cluster.ClusterFixtures.ipPool;
import static dev.railyard.scheduler.cluster.ClusterFixtures.macvlanNetwork;
import static dev.railyard.scheduler.cluster.ClusterFixtures.nad;
import static dev.railyard.scheduler.cluster.ClusterFixtures.node;
import static dev.railyard.scheduler.cluster.ClusterFixtures.nodeSlicePool;
import static dev.railyard.scheduler.cluster.ClusterFixtures.object;
import static dev.railyard.scheduler.cluster.ClusterFixtures.pod;
import static dev.railyard.scheduler.cluster.ClusterFixtures.podGroup;
import static dev.railyard.scheduler.cluster.ClusterFixtures.reservation;
import static dev.railyard.scheduler.cluster.ClusterFixtures.seedShape;
import static dev.railyard.scheduler.cluster.ClusterFixtures.topology;
import static dev.railyard.scheduler.cluster.ClusterFixtures.whereaboutsNad;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 14's acceptance property: any sequence of informer events (adds, updates, deletes, in any order across
 * objects, relists, snapshots taken in between) leaves the incremental {@link ClusterState} equal to a state built
 * from scratch from the objects that remain (docs/adr/0008).
 *
 * <p>The events reach the state as production's do: through fabric8's reflector, processor store and cache over the
 * {@link KeysOnlyItemStore}, wired as {@link ClusterCache} wires them ({@link InMemoryInformer}). The informers start
 * with a first list; a relist is the reflector's own paged list and sync after a broken watch: of the objects the
 * server held some stay unchanged (same resourceVersion), some change and the rest are gone, and the store turns
 * that into updates and removals by key.
 *
 * <p>The objects are of every {@link WatchedKind} ({@link #theUniverseHoldsEveryWatchedKind}), several variants each:
 * <ul>
 *   <li>Nodes (labels, RDMA resources, cordoned), NodeTopologies, Volcano and coscheduling PodGroups, HyperNodes;</li>
 *   <li>Pods: gang members of both conventions; bound to n1..n3, to a node that does not exist or not at all;
 *       finished; unreadable; attached to the whole-pool network, to the node-slice network or to both;</li>
 *   <li>NetworkAttachmentDefinitions: rail0 on one whole pool, rail1 in node slices (network_name r1); overlapping
 *       ranges on and off;</li>
 *   <li>MacvlanNetworks: rail0 rendered here and into another namespace, rail0 and rail1 with an ipam that is not
 *       JSON, rail2 never rendered (with a state and reason, without a status, into the default namespace), an
 *       unreadable one;</li>
 *   <li>IPPools: rail0's whole pool with live and gone podrefs, a copy in another namespace, an unreadable one; the
 *       node pools of rail1's slices of n1..n3;</li>
 *   <li>OverlappingRangeIPReservations: inside and outside rail0's range, on an address its pool allocates, in
 *       another namespace; in the slices assigned to n1..n3 and in a free one; podrefs of live and gone pods, changing;
 *       an unreadable one;</li>
 *   <li>NodeSlicePools (r1): slices assigned to n1..n3 and reassigned, all free, a slice outside the range, no status,
 *       an unreadable status.</li>
 * </ul>
 *
 * <p>A second state is fed the other way production feeds one ({@code EnginePlacementDecisions}): each kind's
 * objects replaced whole ({@link ClusterState#replaceAll}), here after every event with the kind's objects then.
 *
 * <p>Both states, with their ledgers, are compared with the fresh build, at the end and at some snapshots in
 * between: nodes, pods, PodGroups, gang members, GPU accounting, warnings, fabric, networks, the objects of every
 * small kind, the IPAM objects left out, and the pool ledger's view: its snapshot's objects, live and bound pods, each
 * network's whole verdict (rail0, rail1, rail2 and rail0 with rail1) on every node and cluster-wide, stale
 * allocations and addresses reserved elsewhere included, each network's origin, and the pools' audit.
 */
class ClusterStatePropertyTest {
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-09-01T00:00:00Z"), ZoneOffset.UTC);
    private static final List<String> NODES = List.of("n1", "n2", "n3");
    /** Nodes the ledger is asked about: the cluster's, one without a Node or slice, and none (cluster-wide). */
    private static final List<String> CHECKED_NODES = Arrays.asList("n1", "n2", "n3", "n9", null);
    private static final String NETWORKS = "k8s.v1.cni.cncf.io/networks";
    /** whereabouts' namespace (docs/formats/whereabouts.md §3) */
    private static final String WA = "kube-system";
    private static final String WHOLE = "\"range\":\"192.168.4.0/29\"";
    private static final String SLICED = "\"range\":\"10.20.0.0/26\",\"node_slice_size\":\"/28\","
            + "\"network_name\":\"r1\"";
    private static final String NO_OVERLAP = ",\"enable_overlapping_ranges\":false";
    private static final List<PodNetworksRequest> REQUESTS = List.of(PodNetworksRequest.ofAnnotation("prod", "rail0"),
            PodNetworksRequest.ofAnnotation("prod", "rail1"), PodNetworksRequest.ofAnnotation("prod", "rail2"),
            PodNetworksRequest.ofAnnotation("prod", "rail0,rail1"));

    /** One informer event. */
    sealed interface Event permits Upsert, Delete, Relist, Snapshot {
        /** @return the kind whose objects the event changes, or null */
        WatchedKind kind();
    }

    /** The object is created or changed on the server: a watch event ADDED or MODIFIED. */
    record Upsert(WatchedKind kind, GenericKubernetesResource object) implements Event {
    }

    /** The object is deleted on the server: a watch event DELETED. */
    record Delete(WatchedKind kind, GenericKubernetesResource object) implements Event {
    }

    /**
     * The kind's watch broke and the informer lists again. Meanwhile, of the objects the server held (in key order),
     * those marked in {@code keep} stayed unchanged, {@code objects} were written (the first of a key, for keys not
     * kept) and every other object was deleted.
     */
    record Relist(WatchedKind kind, List<Boolean> keep, List<GenericKubernetesResource> objects) implements Event {
    }

    /**
     * A decision reads a view; when {@code compared}, the view and the ledger are compared with a fresh build of the
     * server's objects then (and the ledger is asked all its questions, which fills the counts it carries).
     */
    record Snapshot(boolean compared) implements Event {
        @Override
        public WatchedKind kind() {
            return null;
        }
    }

    /** Every variant of every object the events draw from, by kind. */
    private static Map<WatchedKind, List<GenericKubernetesResource>> universe() {
        Map<WatchedKind, List<GenericKubernetesResource>> u = new LinkedHashMap<>();
        u.put(WatchedKind.NODE, nodes());
        u.put(WatchedKind.NODE_TOPOLOGY, topologies());
        u.put(WatchedKind.POD, pods());
        u.put(WatchedKind.POD_GROUP, List.of(podGroup("prod", "pg-a", 2, Map.of()),
                podGroup("prod", "pg-a", 3, Map.of("railyard.dev/rail-alignment", "required")),
                podGroup("prod", "pg-b", 1, Map.of()),
                object(WatchedKind.POD_GROUP, "prod", "pg-b", null, null, Map.of("spec", Map.of("minMember", "two")))));
        u.put(WatchedKind.COSCHEDULING_POD_GROUP, List.of(coschedulingGroup("prod", "cg", 2, Map.of()),
                coschedulingGroup("prod", "cg", 4, Map.of())));
        u.put(WatchedKind.HYPER_NODE, List.of(hyperNode("leaf-x", List.of("n1", "n2")),
                hyperNode("leaf-x", List.of("n1", "n3")),
                object(WatchedKind.HYPER_NODE, null, "leaf-x", null, null, Map.of("spec", Map.of()))));
        u.put(WatchedKind.NETWORK_ATTACHMENT_DEFINITION, List.of(nad("prod", "rail0", "lan2", "192.168.4.0/29"),
                nad("prod", "rail0", "lan3", "192.168.4.0/29"), whereaboutsNad("prod", "rail0", "lan2",
                        WHOLE + NO_OVERLAP), whereaboutsNad("prod", "rail1", "lan3", SLICED),
                whereaboutsNad("prod", "rail1", "lan3", SLICED + NO_OVERLAP)));
        u.put(WatchedKind.MACVLAN_NETWORK, macvlanNetworks());
        u.put(WatchedKind.IP_POOL, ipPools());
        u.put(WatchedKind.OVERLAPPING_RANGE_RESERVATION, reservations());
        u.put(WatchedKind.NODE_SLICE_POOL, nodeSlicePools());
        return u;
    }

    private static List<GenericKubernetesResource> nodes() {
        List<GenericKubernetesResource> nodes = new ArrayList<>();
        for (String n : NODES) {
            nodes.add(node(n, Map.of("railyard.dev/leaf", "leaf-1"), Map.of("nvidia.com/mlx5_0", "100")));
            nodes.add(node(n, Map.of("railyard.dev/leaf", "leaf-2"), Map.of()));
            GenericKubernetesResource cordoned = node(n, Map.of("railyard.dev/leaf", "leaf-1"), Map.of());
            cordoned.setAdditionalProperty("spec", Map.of("unschedulable", true));
            nodes.add(cordoned);
        }
        return nodes;
    }

    private static List<GenericKubernetesResource> topologies() {
        List<GenericKubernetesResource> topos = new ArrayList<>();
        for (String n : List.of("n1", "n2", "n3", "n4")) {
            topos.add(topology(n, seedShape(), null));
            topos.add(topology(n, seedShape(), Map.of("allocatedGpus", List.of(7))));
        }
        topos.add(object(WatchedKind.NODE_TOPOLOGY, null, "n2", null, null, Map.of("status", Map.of())));
        return topos;
    }

    private static List<GenericKubernetesResource> pods() {
        List<GenericKubernetesResource> pods = new ArrayList<>();
        for (String p : List.of("p1", "p2", "p3", "p4", "p5")) {
            for (String where : new String[]{null, "n1", "n2", "n3", "n9"}) {
                pods.add(pod("prod", p, where, Map.of(PodView.GROUP_NAME_ANNOTATION, "pg-a"),
                        Map.of("nvidia.com/gpu", "2")));
                pods.add(pod("prod", p, where, Map.of(PodView.COSCHEDULING_LABEL, "cg"), Map.of(NETWORKS, "rail0"),
                        Map.of("nvidia.com/gpu", "8", "nvidia.com/mlx5_0", "1")));
                // the whole pool and the node's slice: an unrecorded address in each until whereabouts records it
                pods.add(pod("prod", p, where, Map.of(), Map.of(NETWORKS, "rail0,rail1"),
                        Map.of("nvidia.com/gpu", "1")));
            }
            GenericKubernetesResource done = pod("prod", p, "n1", Map.of(PodView.GROUP_NAME_ANNOTATION, "pg-b"),
                    Map.of("nvidia.com/gpu", "4"));
            done.setAdditionalProperty("status", Map.of("phase", "Succeeded"));
            pods.add(done);
            pods.add(pod("prod", p, "n2", Map.of(), Map.of("nvidia.com/gpu", "x")));
        }
        return pods;
    }

    private static GenericKubernetesResource hyperNode(String name, List<String> nodes) {
        List<Object> members = new ArrayList<>();
        for (String n : nodes) {
            members.add(Map.of("type", "Node", "selector", Map.of("exactMatch", Map.of("name", n))));
        }
        return object(WatchedKind.HYPER_NODE, null, name, null, null, Map.of("spec", Map.of("tier", 1,
                "members", members)));
    }

    /** rail0 rendered here, into another namespace, or not renderable; rail2 never rendered (no NAD), with a state. */
    private static List<GenericKubernetesResource> macvlanNetworks() {
        String ipam = "{\"type\":\"whereabouts\"," + WHOLE + "}";
        return List.of(macvlanNetwork("rail0", "prod", "lan2", ipam, "ready", null),
                macvlanNetwork("rail0", "prod", "lan2", "range: 192.168.4.0/29", "error", "ipam is not JSON"),
                macvlanNetwork("rail0", "other", "lan2", ipam, null, null),
                macvlanNetwork("rail1", "prod", "lan3", "{\"type\":\"whereabouts\"," + SLICED + "}", "ready", null),
                // no closing brace: not a JSON object, so the operator cannot render rail1 (its NAD is stale)
                macvlanNetwork("rail1", "prod", "lan3", "{\"type\":\"whereabouts\"," + SLICED, null, null),
                macvlanNetwork("rail2", "prod", "lan4", ipam, "error", "master lan4 not found"),
                macvlanNetwork("rail2", "prod", "lan4", ipam, null, null),
                macvlanNetwork("rail2", null, "lan4", ipam, "notReady", null),
                object(WatchedKind.MACVLAN_NETWORK, null, "rail2", null, null, Map.of("spec", "lan4")));
    }

    /** The whole pool of rail0 and the node pools of rail1's slices, with podrefs of live and gone pods. */
    private static List<GenericKubernetesResource> ipPools() {
        return List.of(ipPool(WA, "192.168.4.0-29", "192.168.4.0/29", List.of()),
                ipPool(WA, "192.168.4.0-29", "192.168.4.0/29", List.of("prod/p1", "prod/gone")),
                ipPool("other", "192.168.4.0-29", "192.168.4.0/29", List.of("prod/p4", "prod/p5", "prod/p2")),
                object(WatchedKind.IP_POOL, WA, "192.168.4.0-29", null, null, Map.of("spec", Map.of(
                        "range", "192.168.4.0/29", "allocations", "none"))),
                ipPool(WA, "r1-n1-10.20.0.0-28", "10.20.0.0/28", List.of()),
                ipPool(WA, "r1-n1-10.20.0.0-28", "10.20.0.0/28", List.of("prod/p2", "prod/gone")),
                ipPool(WA, "r1-n2-10.20.0.16-28", "10.20.0.16/28", List.of("prod/p3")),
                ipPool(WA, "r1-n3-10.20.0.0-28", "10.20.0.0/28", List.of("prod/gone", "prod/p5")),
                ipPool(WA, "r1-n1-10.20.0.32-28", "10.20.0.32/28", List.of("prod/p1")));
    }

    /**
     * Reservations named by address (docs/formats/whereabouts.md §1): in rail0's range (.1 also allocated in its
     * pool), outside it, in another namespace; in rail1's slices of n1 (.0/28), n2 (.16/28, on an allocated
     * address), .32/28 and a free one; podrefs of live and gone pods, one changing; one whose spec is not an object.
     */
    private static List<GenericKubernetesResource> reservations() {
        return List.of(reservation(WA, "192.168.4.3", "prod/p2"), reservation(WA, "192.168.4.3", "prod/gone"),
                reservation(WA, "192.168.4.1", "prod/p1"), reservation(WA, "192.168.9.9", "prod/p3"),
                reservation("other", "192.168.4.5", "prod/p4"),
                reservation(WA, "r1-10.20.0.5", "prod/p2"), reservation(WA, "r1-10.20.0.17", "prod/gone"),
                reservation(WA, "r1-10.20.0.34", "prod/p1"), reservation(WA, "r1-10.20.0.50", "prod/gone"),
                reservation(WA, "192.168.4.4", "prod/p5"), object(WatchedKind.OVERLAPPING_RANGE_RESERVATION, WA,
                        "192.168.4.4", null, null, Map.of("spec", "taken")));
    }

    /** rail1's NodeSlicePool r1: slices of 10.20.0.0/26 assigned to n1..n3, reassigned, free, or unusable. */
    private static List<GenericKubernetesResource> nodeSlicePools() {
        return List.of(slicePool("10.20.0.0/28", "n1", "10.20.0.16/28", "n2", "10.20.0.32/28", "",
                        "10.20.0.48/28", ""),
                slicePool("10.20.0.0/28", "n3", "10.20.0.16/28", "n2", "10.20.0.32/28", "n1",
                        "10.20.0.48/28", ""),
                slicePool("10.20.0.0/28", "n1", "10.20.0.16/28", "n2", "10.20.0.32/28", "n3",
                        "10.20.0.48/28", ""),
                slicePool("10.20.0.0/28", "", "10.20.0.16/28", "", "10.20.0.32/28", "", "10.20.0.48/28", ""),
                slicePool("10.20.0.0/28", "n1", "10.99.0.0/28", "n2"),
                object(WatchedKind.NODE_SLICE_POOL, WA, "r1", null, null, Map.of("spec", Map.of(
                        "range", "10.20.0.0/26", "sliceSize", "/28"), "status", Map.of("allocations", "n1"))),
                object(WatchedKind.NODE_SLICE_POOL, WA, "r1", null, null, Map.of("spec", Map.of(
                        "range", "10.20.0.0/26", "sliceSize", "/28"))));
    }

    /** @param sliceThenNode slice CIDR, node ("" free), slice, node, ... in the order of the pool's allocations */
    private static GenericKubernetesResource slicePool(String... sliceThenNode) {
        Map<String, String> slices = new LinkedHashMap<>();
        for (int i = 0; i < sliceThenNode.length; i += 2) {
            slices.put(sliceThenNode[i], sliceThenNode[i + 1]);
        }
        return nodeSlicePool(WA, "r1", "10.20.0.0/26", "/28", slices);
    }

    @Example
    void theUniverseHoldsEveryWatchedKind() {
        assertThat(universe().keySet()).containsExactlyInAnyOrderElementsOf(WatchedKind.ALL);
        universe().forEach((k, variants) -> assertThat(variants).as("%s", k).hasSizeGreaterThan(1));
    }

    /** @return the objects the server holds when the informers start, by kind: up to 6 variants (first of a key) */
    @Provide
    Arbitrary<Map<WatchedKind, List<GenericKubernetesResource>>> firstLists() {
        Map<WatchedKind, List<GenericKubernetesResource>> u = universe();
        List<WatchedKind> kinds = List.copyOf(u.keySet());
        List<Arbitrary<List<GenericKubernetesResource>>> lists = new ArrayList<>();
        for (WatchedKind k : kinds) {
            lists.add(Arbitraries.of(u.get(k)).list().ofMaxSize(6));
        }
        return Combinators.combine(lists).as(ls -> {
            Map<WatchedKind, List<GenericKubernetesResource>> m = new LinkedHashMap<>();
            for (int i = 0; i < kinds.size(); i++) {
                m.put(kinds.get(i), ls.get(i));
            }
            return m;
        });
    }

    @Provide
    Arbitrary<List<Event>> events() {
        Map<WatchedKind, List<GenericKubernetesResource>> u = universe();
        Arbitrary<WatchedKind> kind = Arbitraries.of(List.copyOf(u.keySet()));
        Arbitrary<Event> upsert = kind.flatMap(k -> Arbitraries.of(u.get(k)).map(o -> new Upsert(k, o)));
        Arbitrary<Event> delete = kind.flatMap(k -> Arbitraries.of(u.get(k)).map(o -> new Delete(k, o)));
        Arbitrary<Event> relist = kind.flatMap(k -> Combinators.combine(Arbitraries.of(true, false).list()
                .ofMaxSize(8), Arbitraries.of(u.get(k)).list().ofMaxSize(4)).as((keep, l) -> new Relist(k, keep, l)));
        Arbitrary<Event> snapshot = Arbitraries.of(true, false).map(Snapshot::new);
        return Arbitraries.frequencyOf(Tuple.of(8, upsert), Tuple.of(3, delete), Tuple.of(2, relist),
                Tuple.of(2, snapshot)).list().ofMaxSize(80);
    }

    @Property(tries = 500)
    void incrementalStateEqualsAFromScratchBuild(
            @ForAll("firstLists") Map<WatchedKind, List<GenericKubernetesResource>> first,
            @ForAll("events") List<Event> events) {
        IpPoolLedger ledger = new IpPoolLedger(CLOCK);
        ClusterState state = new ClusterState(null, ledger, ledger::update, CLOCK);
        // the other way production feeds a state: every kind's objects replaced whole (replaceAll), as
        // EnginePlacementDecisions does with each new listing; here after every event, with the kind's objects then
        IpPoolLedger relistedLedger = new IpPoolLedger(CLOCK);
        ClusterState relisted = new ClusterState(null, relistedLedger, relistedLedger::update, CLOCK);
        Map<WatchedKind, InMemoryInformer> informers = new LinkedHashMap<>();
        try {
            for (WatchedKind k : WatchedKind.ALL) {
                informers.put(k, new InMemoryInformer(k, state, first.get(k)));
                relisted.replaceAll(k, informers.get(k).served());
            }
            for (Event e : events) {
                switch (e) {
                    case Upsert u -> informers.get(u.kind()).write(u.object());
                    case Delete d -> informers.get(d.kind()).delete(d.object());
                    case Relist r -> relist(informers.get(r.kind()), r);
                    case Snapshot s when s.compared() -> {
                        assertEqualsFreshBuild(state, ledger, informers);
                        assertEqualsFreshBuild(relisted, relistedLedger, informers);
                    }
                    case Snapshot s -> {
                        state.snapshot();
                        relisted.snapshot();
                    }
                }
                if (e.kind() != null) {
                    relisted.replaceAll(e.kind(), informers.get(e.kind()).served());
                }
            }
            assertEqualsFreshBuild(state, ledger, informers);
            assertEqualsFreshBuild(relisted, relistedLedger, informers);
        } finally {
            informers.values().forEach(InMemoryInformer::stop);
        }
    }

    private static void relist(InMemoryInformer informer, Relist r) {
        Map<String, GenericKubernetesResource> now = new LinkedHashMap<>();
        List<GenericKubernetesResource> held = informer.written();
        for (int i = 0; i < held.size() && i < r.keep().size(); i++) {
            if (r.keep().get(i)) {
                now.put(ClusterState.key(r.kind(), held.get(i)), held.get(i));
            }
        }
        for (GenericKubernetesResource o : r.objects()) {
            now.putIfAbsent(ClusterState.key(r.kind(), o), o);
        }
        informer.relist(now.values());
    }

    /**
     * The state and its ledger against a state and a ledger built from scratch from the objects the server holds
     * (as it serves them).
     */
    private static void assertEqualsFreshBuild(ClusterState state, IpPoolLedger ledger,
                                               Map<WatchedKind, InMemoryInformer> informers) {
        Map<WatchedKind, List<GenericKubernetesResource>> lists = new LinkedHashMap<>();
        informers.forEach((k, informer) -> lists.put(k, informer.served()));
        ClusterObjects objects = new ClusterObjects(CLOCK.instant(), 1, lists, Set.of(), true);
        IpPoolLedger freshLedger = new IpPoolLedger(CLOCK);
        freshLedger.update(IpamSnapshotConverter.convert(objects).value());
        ClusterState freshState = ClusterState.of(objects, freshLedger, null);
        ClusterView fresh = freshState.snapshot();

        assertSame(state.snapshot(), fresh);
        assertThat(state.ipamWarnings()).as("IPAM objects left out").isEqualTo(freshState.ipamWarnings());
        assertThat(Set.copyOf(state.snapshot().unhintedPods())).isEqualTo(Set.copyOf(fresh.unhintedPods()));
        for (PodGroup.Convention c : PodGroup.Convention.values()) {
            assertThat(state.membersIndex(c)).isEqualTo(ClusterState.of(objects, null, null).membersIndex(c));
        }
        assertSameLedger(ledger, freshLedger);
    }

    private static void assertSameLedger(IpPoolLedger ledger, IpPoolLedger freshLedger) {
        IpamSnapshot a = ledger.snapshot();
        IpamSnapshot b = freshLedger.snapshot();
        assertThat(a.livePods()).as("the ledger's live pods").isEqualTo(b.livePods());
        assertThat(Set.copyOf(a.boundPods())).as("the ledger's bound pods").isEqualTo(Set.copyOf(b.boundPods()));
        assertThat(contents(a.networkAttachmentDefinitions())).as("the ledger's NetworkAttachmentDefinitions")
                .isEqualTo(contents(b.networkAttachmentDefinitions()));
        assertThat(contents(a.macvlanNetworks())).as("the ledger's MacvlanNetworks")
                .isEqualTo(contents(b.macvlanNetworks()));
        assertThat(contents(a.ipPools())).as("the ledger's IPPools").isEqualTo(contents(b.ipPools()));
        assertThat(contents(a.overlappingRangeIPReservations())).as("the ledger's OverlappingRangeIPReservations")
                .isEqualTo(contents(b.overlappingRangeIPReservations()));
        assertThat(contents(a.nodeSlicePools())).as("the ledger's NodeSlicePools")
                .isEqualTo(contents(b.nodeSlicePools()));
        // each network's whole verdict (free counts, stale allocations, notes, failures) on every node and without
        // one (a node-slice network: the sum of the slices), where it comes from, and the pools' audit
        for (PodNetworksRequest r : REQUESTS) {
            assertThat(ledger.origin(r)).as("origin of %s", r).isEqualTo(freshLedger.origin(r));
            assertThat(ledger.sameOnEveryNode(r)).as("%s", r).isEqualTo(freshLedger.sameOnEveryNode(r));
            for (String node : CHECKED_NODES) {
                assertThat(ledger.check(r, 2, node)).as("%s on %s", r, node).isEqualTo(freshLedger.check(r, 2, node));
            }
        }
        assertThat(ledger.audit()).as("the pools' audit").isEqualTo(freshLedger.audit());
    }

    /** @return {@code namespace/name}, spec and status of each object, in order: what the ledger reads of them */
    private static List<List<Object>> contents(List<? extends CustomResource<?, ?>> objects) {
        return objects.stream().map(o -> Arrays.<Object>asList(o.getMetadata().getNamespace() + "/"
                + o.getMetadata().getName(), o.getSpec(), o.getStatus())).toList();
    }

    private static void assertSame(ClusterView a, ClusterView b) {
        assertThat(a.snapshot().nodes()).isEqualTo(b.snapshot().nodes());
        assertThat(a.snapshot().nodeNames()).isEqualTo(b.snapshot().nodeNames());
        for (NodeState n : a.snapshot().nodes()) {
            assertThat(a.snapshot().indexOf(n.name())).isEqualTo(b.snapshot().indexOf(n.name()));
        }
        assertThat(new HashMap<>(a.pods())).isEqualTo(new HashMap<>(b.pods()));
        assertThat(new HashMap<>(a.podGroups())).isEqualTo(new HashMap<>(b.podGroups()));
        assertThat(new HashMap<>(a.coschedulingGroups())).isEqualTo(new HashMap<>(b.coschedulingGroups()));
        assertThat(new HashMap<>(a.gpuAccounting())).isEqualTo(new HashMap<>(b.gpuAccounting()));
        assertThat(new HashMap<>(a.topologyStatuses())).isEqualTo(new HashMap<>(b.topologyStatuses()));
        assertThat(a.rdmaResources()).isEqualTo(b.rdmaResources());
        assertThat(a.warnings()).isEqualTo(b.warnings());
        assertThat(a.snapshot().networks()).isEqualTo(b.snapshot().networks());
        for (PodGroup g : a.podGroups().values()) {
            assertThat(a.members(g)).isEqualTo(b.members(g));
        }
        for (PodGroup g : a.coschedulingGroups().values()) {
            assertThat(a.members(g)).isEqualTo(b.members(g));
        }
        assertThat(a.snapshot().fabric().origin()).isEqualTo(b.snapshot().fabric().origin());
        assertThat(a.snapshot().fabric().maxTier()).isEqualTo(b.snapshot().fabric().maxTier());
        for (String x : a.snapshot().nodeNames()) {
            for (String y : a.snapshot().nodeNames()) {
                assertThat(a.snapshot().fabric().commonTier(x, y, 0)).isEqualTo(b.snapshot().fabric()
                        .commonTier(x, y, 0));
            }
        }
        // the small kinds' objects as the state keeps them (what explain, pools and the ledger's networks read)
        for (WatchedKind k : WatchedKind.ALL) {
            if (!k.equals(WatchedKind.NODE) && !k.equals(WatchedKind.NODE_TOPOLOGY) && !k.equals(WatchedKind.POD)) {
                assertThat(a.objects().of(k)).as("%s", k).isEqualTo(b.objects().of(k));
            }
        }
    }
}
