package dev.railyard.scheduler.cluster;

import dev.railyard.api.volcano.PodGroup;
import dev.railyard.scheduler.engine.NodeState;
import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.ipam.PodNetworksRequest;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static dev.railyard.scheduler.cluster.ClusterFixtures.coschedulingGroup;
import static dev.railyard.scheduler.cluster.ClusterFixtures.ipPool;
import static dev.railyard.scheduler.cluster.ClusterFixtures.nad;
import static dev.railyard.scheduler.cluster.ClusterFixtures.node;
import static dev.railyard.scheduler.cluster.ClusterFixtures.object;
import static dev.railyard.scheduler.cluster.ClusterFixtures.pod;
import static dev.railyard.scheduler.cluster.ClusterFixtures.podGroup;
import static dev.railyard.scheduler.cluster.ClusterFixtures.seedShape;
import static dev.railyard.scheduler.cluster.ClusterFixtures.topology;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Any sequence of informer events (adds, updates, deletes, in any order across objects, relists, snapshots taken in
 * between) leaves the incremental {@link ClusterState} equal to a state built from scratch from the objects that
 * remain: nodes, pods, PodGroups, gang members, GPU accounting, warnings, fabric, networks and the pool ledger's
 * view (docs/adr/0008).
 */
class ClusterStatePropertyTest {
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-09-01T00:00:00Z"), ZoneOffset.UTC);
    private static final List<String> NODES = List.of("n1", "n2", "n3");

    /** One informer event. */
    sealed interface Event permits Upsert, Delete, Relist, Snapshot {
    }

    record Upsert(WatchedKind kind, GenericKubernetesResource object) implements Event {
    }

    record Delete(WatchedKind kind, GenericKubernetesResource object) implements Event {
    }

    record Relist(WatchedKind kind, List<GenericKubernetesResource> objects) implements Event {
    }

    record Snapshot() implements Event {
    }

    /** Every variant of every object the events draw from, by kind. */
    private static Map<WatchedKind, List<GenericKubernetesResource>> universe() {
        Map<WatchedKind, List<GenericKubernetesResource>> u = new LinkedHashMap<>();
        List<GenericKubernetesResource> nodes = new ArrayList<>();
        for (String n : NODES) {
            nodes.add(node(n, Map.of("railyard.dev/leaf", "leaf-1"), Map.of("nvidia.com/mlx5_0", "100")));
            nodes.add(node(n, Map.of("railyard.dev/leaf", "leaf-2"), Map.of()));
            GenericKubernetesResource cordoned = node(n, Map.of("railyard.dev/leaf", "leaf-1"), Map.of());
            cordoned.setAdditionalProperty("spec", Map.of("unschedulable", true));
            nodes.add(cordoned);
        }
        u.put(WatchedKind.NODE, nodes);
        List<GenericKubernetesResource> topos = new ArrayList<>();
        for (String n : List.of("n1", "n2", "n3", "n4")) {
            topos.add(topology(n, seedShape(), null));
            topos.add(topology(n, seedShape(), Map.of("allocatedGpus", List.of(7))));
        }
        topos.add(object(WatchedKind.NODE_TOPOLOGY, null, "n2", null, null, Map.of("status", Map.of())));
        u.put(WatchedKind.NODE_TOPOLOGY, topos);
        List<GenericKubernetesResource> pods = new ArrayList<>();
        for (String p : List.of("p1", "p2", "p3", "p4", "p5")) {
            for (String where : new String[]{null, "n1", "n2", "n9"}) {
                pods.add(pod("prod", p, where, Map.of(PodView.GROUP_NAME_ANNOTATION, "pg-a"),
                        Map.of("nvidia.com/gpu", "2")));
                pods.add(pod("prod", p, where, Map.of(PodView.COSCHEDULING_LABEL, "cg"),
                        Map.of("k8s.v1.cni.cncf.io/networks", "rail0"), Map.of("nvidia.com/gpu", "8",
                                "nvidia.com/mlx5_0", "1")));
            }
            GenericKubernetesResource done = pod("prod", p, "n1", Map.of(PodView.GROUP_NAME_ANNOTATION, "pg-b"),
                    Map.of("nvidia.com/gpu", "4"));
            done.setAdditionalProperty("status", Map.of("phase", "Succeeded"));
            pods.add(done);
            pods.add(pod("prod", p, "n2", Map.of(), Map.of("nvidia.com/gpu", "x")));
        }
        u.put(WatchedKind.POD, pods);
        u.put(WatchedKind.POD_GROUP, List.of(podGroup("prod", "pg-a", 2, Map.of()),
                podGroup("prod", "pg-a", 3, Map.of("railyard.dev/rail-alignment", "required")),
                podGroup("prod", "pg-b", 1, Map.of()),
                object(WatchedKind.POD_GROUP, "prod", "pg-b", null, null, Map.of("spec", Map.of("minMember", "two")))));
        u.put(WatchedKind.COSCHEDULING_POD_GROUP, List.of(coschedulingGroup("prod", "cg", 2, Map.of()),
                coschedulingGroup("prod", "cg", 4, Map.of())));
        u.put(WatchedKind.NETWORK_ATTACHMENT_DEFINITION, List.of(nad("prod", "rail0", "lan2", "192.168.4.0/29"),
                nad("prod", "rail0", "lan3", "192.168.4.0/29")));
        u.put(WatchedKind.IP_POOL, List.of(ipPool("kube-system", "192.168.4.0-29", "192.168.4.0/29", List.of()),
                ipPool("kube-system", "192.168.4.0-29", "192.168.4.0/29", List.of("prod/p1", "prod/gone"))));
        u.put(WatchedKind.HYPER_NODE, List.of(hyperNode("leaf-x", List.of("n1", "n2")),
                hyperNode("leaf-x", List.of("n1", "n3")),
                object(WatchedKind.HYPER_NODE, null, "leaf-x", null, null, Map.of("spec", Map.of()))));
        return u;
    }

    private static GenericKubernetesResource hyperNode(String name, List<String> nodes) {
        List<Object> members = new ArrayList<>();
        for (String n : nodes) {
            members.add(Map.of("type", "Node", "selector", Map.of("exactMatch", Map.of("name", n))));
        }
        return object(WatchedKind.HYPER_NODE, null, name, null, null, Map.of("spec", Map.of("tier", 1,
                "members", members)));
    }

    @Provide
    Arbitrary<List<Event>> events() {
        Map<WatchedKind, List<GenericKubernetesResource>> u = universe();
        List<WatchedKind> kinds = List.copyOf(u.keySet());
        Arbitrary<WatchedKind> kind = Arbitraries.of(kinds);
        Arbitrary<Event> upsert = kind.flatMap(k -> Arbitraries.of(u.get(k)).map(o -> new Upsert(k, o)));
        Arbitrary<Event> delete = kind.flatMap(k -> Arbitraries.of(u.get(k)).map(o -> new Delete(k, o)));
        Arbitrary<Event> relist = kind.flatMap(k -> Arbitraries.of(u.get(k)).list().ofMaxSize(4)
                .map(l -> new Relist(k, l)));
        Arbitrary<Event> snapshot = Arbitraries.just(new Snapshot());
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(8, upsert), net.jqwik.api.Tuple.of(3, delete),
                net.jqwik.api.Tuple.of(1, relist), net.jqwik.api.Tuple.of(2, snapshot)).list().ofMaxSize(60);
    }

    @Property(tries = 200)
    void incrementalStateEqualsAFromScratchBuild(@ForAll("events") List<Event> events) {
        IpPoolLedger ledger = new IpPoolLedger(CLOCK);
        ClusterState state = new ClusterState(null, ledger, ledger::update, CLOCK);
        Map<WatchedKind, TreeMap<String, GenericKubernetesResource>> model = new HashMap<>();
        for (WatchedKind k : WatchedKind.ALL) {
            model.put(k, new TreeMap<>());
        }
        for (Event e : events) {
            switch (e) {
                case Upsert u -> {
                    state.upsert(u.kind(), u.object());
                    model.get(u.kind()).put(ClusterState.key(u.kind(), u.object()), u.object());
                }
                case Delete d -> {
                    state.delete(d.kind(), d.object());
                    model.get(d.kind()).remove(ClusterState.key(d.kind(), d.object()));
                }
                case Relist r -> {
                    state.replaceAll(r.kind(), r.objects());
                    TreeMap<String, GenericKubernetesResource> m = model.get(r.kind());
                    m.clear();
                    for (GenericKubernetesResource o : r.objects()) {
                        m.putIfAbsent(ClusterState.key(r.kind(), o), o);
                    }
                }
                case Snapshot s -> state.snapshot();
            }
        }
        Map<WatchedKind, List<GenericKubernetesResource>> lists = new LinkedHashMap<>();
        model.forEach((k, m) -> lists.put(k, List.copyOf(m.values())));
        ClusterObjects objects = new ClusterObjects(CLOCK.instant(), 1, lists, Set.of(), true);
        IpPoolLedger freshLedger = new IpPoolLedger(CLOCK);
        freshLedger.update(IpamSnapshotConverter.convert(objects).value());
        ClusterView fresh = ClusterState.of(objects, freshLedger, null).snapshot();

        assertSame(state.snapshot(), fresh);
        assertThat(ledger.snapshot().livePods()).isEqualTo(freshLedger.snapshot().livePods());
        assertThat(Set.copyOf(ledger.snapshot().boundPods())).isEqualTo(Set.copyOf(freshLedger.snapshot()
                .boundPods()));
        PodNetworksRequest rail0 = PodNetworksRequest.ofAnnotation("prod", "rail0");
        assertThat(ledger.check(rail0, 1, null).message()).isEqualTo(freshLedger.check(rail0, 1, null).message());
        // the whole verdict on every node (stale allocations included), the pools' audit, and the pods not hinted
        for (String node : new String[]{"n1", "n2", "n9", null}) {
            assertThat(ledger.check(rail0, 2, node)).isEqualTo(freshLedger.check(rail0, 2, node));
        }
        assertThat(ledger.audit()).isEqualTo(freshLedger.audit());
        assertThat(Set.copyOf(state.snapshot().unhintedPods())).isEqualTo(Set.copyOf(fresh.unhintedPods()));
        for (PodGroup.Convention c : PodGroup.Convention.values()) {
            assertThat(state.membersIndex(c)).isEqualTo(ClusterState.of(objects, null, null).membersIndex(c));
        }
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
        assertThat(a.objects().of(WatchedKind.POD_GROUP).size()).isEqualTo(b.objects().of(WatchedKind.POD_GROUP)
                .size());
    }
}
