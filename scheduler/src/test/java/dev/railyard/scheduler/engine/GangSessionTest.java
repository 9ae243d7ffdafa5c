package dev.railyard.scheduler.engine;

import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.api.hints.FabricScope;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static dev.railyard.scheduler.engine.EngineFixtures.cluster;
import static dev.railyard.scheduler.engine.EngineFixtures.node;
import static dev.railyard.scheduler.engine.EngineFixtures.pod;
import static dev.railyard.scheduler.engine.EngineFixtures.policy;
import static dev.railyard.scheduler.engine.EngineFixtures.railOptimised;
import static dev.railyard.scheduler.engine.EngineFixtures.seedShape;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gang session: one plan per gang kept across snapshots while it still describes the gang, tentative
 * allocations as context, and the score steering. Cluster: four seed-shaped nodes (8 GPUs, 4 rails), n1 and n2
 * under SU 0, n3 and n4 under SU 1 ({@code EngineFixtures.railOptimised}).
 */
class GangSessionTest {
    private static final PlacementPolicy POLICY = policy(AffinityPolicy.REQUIRED, AffinityPolicy.REQUIRED,
            FabricScope.ANY);
    private final PlacementEngine engine = new PlacementEngine();
    private final GangSession session = new GangSession(engine);

    private static ClusterSnapshot snapshot() {
        return snapshot(null);
    }

    /** @param full a node whose 8 GPUs a bound member holds, or null */
    private static ClusterSnapshot snapshot(String full) {
        List<NodeState> nodes = new ArrayList<>();
        for (String n : List.of("n1", "n2", "n3", "n4")) {
            nodes.add(n.equals(full) ? node(n, seedShape(), Set.of(0, 1, 2, 3, 4, 5, 6, 7)) : node(n, seedShape()));
        }
        return cluster(nodes, railOptimised(List.of(List.of("n1", "n2"), List.of("n3", "n4")), 4, 2));
    }

    /** A gang of two 8-GPU pods; {@code bound} maps pod names to the node the cluster shows them on. */
    private static GangSession.Gang gang(Map<String, String> bound) {
        List<GangSession.Member> members = new ArrayList<>();
        for (String name : List.of("w-0", "w-1")) {
            members.add(new GangSession.Member("prod/" + name, name, bound.get(name), pod(name, 8)));
        }
        return new GangSession.Gang("prod/g", "prod", "g", POLICY, members,
                () -> bound.entrySet().stream().map(e -> BoundMember.nodeOnly(pod(e.getKey(), 8), e.getValue()))
                        .toList(), bound::get);
    }

    @Test
    void theGangKeepsItsFirstPlanAcrossSnapshotsWhileItStillNamesThePod() {
        GangSession.Decision first = session.decide(snapshot(), "prod/w-0", "w-0", gang(Map.of()));
        assertThat(first.planned()).isNotNull();
        // two 8-GPU pods on four free 8-GPU nodes: the tightest plan puts them on two nodes of one SU (tier 1)
        List<String> planned = first.outcome().plan().pods().stream().map(PlannedPod::node).toList();
        assertThat(Set.copyOf(planned)).hasSize(2).isSubsetOf("n1", "n2");

        GangSession.Decision again = session.decide(snapshot(), "prod/w-1", "w-1", gang(Map.of()));
        assertThat(again.outcome()).isSameAs(first.outcome());
        // the context of w-1 is w-0's planned node (no member placed yet), and the plan's rail vector
        assertThat(again.context().placed()).containsExactly(first.planned().node());
        assertThat(again.context().rails()).isEqualTo(again.planned().rails());
    }

    @Test
    void aGangTheFreeGpusCannotHoldIsAnsweredWithoutASearch() {
        // n1..n3 full: one free 8-GPU node for two 8-GPU pods (GangPlanner#planUnlessShort)
        List<NodeState> nodes = new ArrayList<>();
        for (String n : List.of("n1", "n2", "n3")) {
            nodes.add(node(n, seedShape(), Set.of(0, 1, 2, 3, 4, 5, 6, 7)));
        }
        nodes.add(node("n4", seedShape()));
        ClusterSnapshot full = cluster(nodes, railOptimised(List.of(List.of("n1", "n2"), List.of("n3", "n4")), 4, 2));
        GangSession.Decision d = session.decide(full, "prod/w-0", "w-0", gang(Map.of()));
        assertThat(d.planned()).isNull();
        assertThat(d.outcome().schedulable()).isFalse();
        assertThat(d.outcome().reasons()).singleElement().satisfies(r -> assertThat(r.detail())
                .endsWith("the cluster's free GPUs hold at most 1"));
        assertThat(d.outcome().verdicts()).isEmpty();
        // no member placed, no plan: judged on its own
        assertThat(d.context().placed()).isEmpty();
        assertThat(d.context().rails()).isNull();
    }

    @Test
    void aMemberBoundElsewhereThanPlannedMakesANewPlanAroundIt() {
        GangSession.Decision first = session.decide(snapshot(), "prod/w-1", "w-1", gang(Map.of()));
        String w0Planned = first.outcome().plan().pods().get(0).node();
        String elsewhere = w0Planned.equals("n4") ? "n3" : "n4";

        GangSession.Decision after = session.decide(snapshot(elsewhere), "prod/w-1", "w-1",
                gang(Map.of("w-0", elsewhere)));

        assertThat(after.outcome()).isNotSameAs(first.outcome());
        // w-0 is bound in SU 1: the tightest place for w-1 is the other node of that SU
        assertThat(after.planned().node()).isEqualTo(elsewhere.equals("n4") ? "n3" : "n4");
        assertThat(after.context().placed()).containsExactly(elsewhere);
    }

    @Test
    void tentativeAllocationsArePlacedMembersUntilReleased() {
        session.allocated("prod/g", "prod/w-0", "n3");
        GangSession.Decision held = session.decide(snapshot(), "prod/w-1", "w-1", gang(Map.of()));
        assertThat(held.context().placed()).containsExactly("n3");

        session.deallocated("prod/g", "prod/w-0");
        GangSession.Decision released = session.decide(snapshot(), "prod/w-1", "w-1", gang(Map.of()));
        assertThat(released.context().placed()).doesNotContain("n3").hasSize(1);
    }

    @Test
    void aRepeatedQuestionOnOneClusterViewIsAnsweredAgainOnlyWhenAnAllocationChanges() {
        // one gang instance stands for one cluster view, as GangReader gives it to every call on that view
        GangSession.Gang g = gang(Map.of());
        ClusterSnapshot s = snapshot();
        GangSession.Decision first = session.decide(s, "prod/w-1", "w-1", g);
        assertThat(session.decide(s, "prod/w-1", "w-1", g)).isSameAs(first);

        session.allocated("prod/g", "prod/w-0", "n3");
        GangSession.Decision held = session.decide(s, "prod/w-1", "w-1", g);
        assertThat(held.context().placed()).containsExactly("n3");
        assertThat(session.decide(s, "prod/w-1", "w-1", g)).isSameAs(held);

        session.deallocated("prod/g", "prod/w-0");
        GangSession.Decision released = session.decide(s, "prod/w-1", "w-1", g);
        assertThat(released.context().placed()).doesNotContain("n3").hasSize(1);
        // a new view's gang is decided again
        assertThat(session.decide(s, "prod/w-1", "w-1", gang(Map.of()))).isNotSameAs(released);
    }

    @Test
    void aPodTheClusterDoesNotListYetIsJudgedWithoutAPlan() {
        GangSession.Decision d = session.decide(snapshot(), "prod/w-9", "w-9", gang(Map.of("w-0", "n2")));
        assertThat(d.planned()).isNull();
        assertThat(d.outcome()).isNull();
        assertThat(d.context().placed()).containsExactly("n2");
    }

    @Test
    void theScoreSteersToThePlannedNode() {
        // planned node: 100; any other: half its own score, rounded down; no plan: the engine's score
        assertThat(GangSession.steer("n1", "n1", 40)).isEqualTo(100);
        assertThat(GangSession.steer("n1", "n2", 77)).isEqualTo(38);
        assertThat(GangSession.steer(null, "n2", 77)).isEqualTo(77);
    }

    @Test
    void concurrentCallsOnOneSnapshotShareOnePlan() throws Exception {
        ClusterSnapshot s = snapshot();
        int threads = 16;
        CyclicBarrier start = new CyclicBarrier(threads);
        Map<PlanOutcome, Boolean> outcomes = new ConcurrentHashMap<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                String name = i % 2 == 0 ? "w-0" : "w-1";
                done.add(pool.submit(() -> {
                    start.await();
                    outcomes.put(session.decide(s, "prod/" + name, name, gang(new HashMap<>())).outcome(), true);
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        }
        assertThat(outcomes).hasSize(1);
    }
}
