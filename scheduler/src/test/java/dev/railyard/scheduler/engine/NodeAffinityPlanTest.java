package dev.railyard.scheduler.engine;

import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.api.hints.FabricScope;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.railyard.scheduler.engine.EngineFixtures.cluster;
import static dev.railyard.scheduler.engine.EngineFixtures.policy;
import static dev.railyard.scheduler.engine.EngineFixtures.railOptimised;
import static dev.railyard.scheduler.engine.EngineFixtures.seedShape;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Gang plans keep every pod on nodes its node selector / required node affinity allows: a plan on a node the
 * scheduler will never offer the pod steers nothing and, with rail alignment required, makes the gang's real nodes
 * refuse it (the restart scenario of issue 8 failed this way: "rail set {2×2,3×2} unavailable: qualifying free GPUs
 * per rail [2, 2, 0, 0]" on the allowed nodes for a plan made on free, forbidden ones).
 *
 * <p>Cluster: four seed-shaped nodes (8 GPUs; GPUs 2k, 2k+1 PIX to mlx5_k = rail k) under one leaf per rail. node-a
 * and node-b have GPUs 4..7 (rails 2, 3) taken; node-c and node-d are empty.
 */
class NodeAffinityPlanTest {
    private final GangPlanner planner = new GangPlanner();
    private final PlacementEngine engine = new PlacementEngine();

    private static ClusterSnapshot snapshot() {
        List<NodeState> nodes = List.of(
                new NodeState("node-a", Map.of("pool", "ab"), seedShape(), Set.of(4, 5, 6, 7), List.of(), true),
                new NodeState("node-b", Map.of("pool", "ab"), seedShape(), Set.of(4, 5, 6, 7), List.of(), true),
                new NodeState("node-c", Map.of("pool", "cd"), seedShape(), Set.of(), List.of(), true),
                new NodeState("node-d", Map.of("pool", "cd"), seedShape(), Set.of(), List.of(), true));
        return cluster(nodes, railOptimised(List.of(List.of("node-a", "node-b", "node-c", "node-d")), 4, 1));
    }

    /** One matchFields term per node name (a field expression takes exactly one value; terms are ORed). */
    private static RequiredNodeAffinity hosts(String... names) {
        List<RequiredNodeAffinity.Term> terms = new java.util.ArrayList<>();
        for (String n : names) {
            terms.add(new RequiredNodeAffinity.Term(List.of(),
                    List.of(new RequiredNodeAffinity.Requirement("metadata.name", "In", List.of(n)))));
        }
        return new RequiredNodeAffinity(Map.of(), terms);
    }

    private static PodRequest pod(String name, int gpus, RequiredNodeAffinity affinity) {
        return new PodRequest("prod", name, gpus, Map.of(), null, false, affinity);
    }

    private static final PlacementPolicy ALIGNED = policy(AffinityPolicy.REQUIRED, AffinityPolicy.REQUIRED,
            FabricScope.ANY);

    @Test
    void aGangPinnedToTwoBusyNodesIsPlannedThereOnTheRailsTheyHaveFree() {
        RequiredNodeAffinity ab = new RequiredNodeAffinity(Map.of("pool", "ab"), null);
        PlanOutcome o = planner.plan(snapshot(), new GangRequest("prod", "second",
                List.of(pod("s-0", 4, ab), pod("s-1", 4, ab)), ALIGNED));

        assertThat(o.schedulable()).as(o.summary()).isTrue();
        // by hand: 4 free GPUs on each allowed node, so one pod each, on GPUs 0..3 = rails {0×2,1×2}
        assertThat(o.plan().pods()).extracting(PlannedPod::node).containsExactlyInAnyOrder("node-a", "node-b");
        for (PlannedPod p : o.plan().pods()) {
            assertThat(p.gpuIndices()).containsExactlyInAnyOrder(0, 1, 2, 3);
            assertThat(p.rails().toString()).isEqualTo("{0×2,1×2}");
        }
        // node-c and node-d are ruled out in kube-scheduler's words
        assertThat(o.verdicts()).filteredOn(v -> v.node().equals("node-c") || v.node().equals("node-d"))
                .allSatisfy(v -> assertThat(v.reasons()).extracting(Reason::code)
                        .containsExactly(ReasonCode.NODE_AFFINITY_MISMATCH));
        assertThat(o.summary()).isEqualTo("2/4 nodes available: 2 node(s) didn't match Pod's node affinity/selector");
    }

    @Test
    void withoutAffinityTheSameGangTakesOneEmptyNode() {
        // the control: unconstrained, both 4-GPU pods fit on one empty node (tier 0 beats two nodes)
        PlanOutcome o = planner.plan(snapshot(), new GangRequest("prod", "second",
                List.of(pod("s-0", 4, null), pod("s-1", 4, null)), ALIGNED));

        assertThat(o.plan().nodes()).hasSize(1).first().isIn("node-c", "node-d");
    }

    @Test
    void podsPinnedToDifferentNodesStillShareOneRailSet() {
        // s-0 may use node-a or node-c, s-1 only node-b: different classes of one shape, aligned together. node-b
        // offers only rails 0 and 1, so s-0 must use rails {0×2,1×2} too (on node-c it could have had any rails)
        PlanOutcome o = planner.plan(snapshot(), new GangRequest("prod", "pinned",
                List.of(pod("s-0", 4, hosts("node-a", "node-c")), pod("s-1", 4, hosts("node-b"))), ALIGNED));

        assertThat(o.schedulable()).as(o.summary()).isTrue();
        assertThat(o.plan().pods().get(0).node()).isIn("node-a", "node-c");
        assertThat(o.plan().pods().get(1).node()).isEqualTo("node-b");
        assertThat(o.plan().pods()).extracting(p -> p.rails().toString()).containsOnly("{0×2,1×2}");
    }

    @Test
    void pinnedPodsWithNoRailSetInCommonAreUnschedulableWhenAlignmentIsRequired() {
        // node-b offers rails {0,1} only; a node-e with rails 0, 1 taken offers {2,3} only: no common rail set
        List<NodeState> nodes = List.of(
                new NodeState("node-b", Map.of(), seedShape(), Set.of(4, 5, 6, 7), List.of(), true),
                new NodeState("node-e", Map.of(), seedShape(), Set.of(0, 1, 2, 3), List.of(), true));
        ClusterSnapshot s = cluster(nodes, railOptimised(List.of(List.of("node-b", "node-e")), 4, 1));
        PlanOutcome o = planner.plan(s, new GangRequest("prod", "pinned",
                List.of(pod("s-0", 4, hosts("node-b")), pod("s-1", 4, hosts("node-e"))), ALIGNED));

        assertThat(o.schedulable()).isFalse();

        PlanOutcome free = planner.plan(s, new GangRequest("prod", "pinned",
                List.of(pod("s-0", 4, hosts("node-b")), pod("s-1", 4, hosts("node-e"))),
                policy(AffinityPolicy.REQUIRED, AffinityPolicy.IGNORE, FabricScope.ANY)));
        assertThat(free.schedulable()).as(free.summary()).isTrue();
    }

    @Test
    void filterRefusesANodeThePodMayNotUse() {
        RequiredNodeAffinity ab = new RequiredNodeAffinity(Map.of("pool", "ab"), null);
        NodeVerdict v = engine.filter(snapshot(), pod("s-0", 4, ab), ALIGNED, "node-c", GangContext.none());

        assertThat(v.reasons()).extracting(Reason::code).containsExactly(ReasonCode.NODE_AFFINITY_MISMATCH);
        assertThat(engine.filter(snapshot(), pod("s-0", 4, ab), ALIGNED, "node-a", GangContext.none()).feasible())
                .isTrue();
    }
}
