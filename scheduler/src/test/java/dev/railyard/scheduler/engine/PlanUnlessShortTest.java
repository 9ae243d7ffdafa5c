package dev.railyard.scheduler.engine;

import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.api.hints.FabricScope;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.topology.fabric.FabricModel;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static dev.railyard.scheduler.engine.EngineFixtures.cluster;
import static dev.railyard.scheduler.engine.EngineFixtures.gang;
import static dev.railyard.scheduler.engine.EngineFixtures.node;
import static dev.railyard.scheduler.engine.EngineFixtures.pod;
import static dev.railyard.scheduler.engine.EngineFixtures.policy;
import static dev.railyard.scheduler.engine.EngineFixtures.seedShape;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link GangPlanner#planUnlessShort}: a gang the cluster's free GPUs cannot hold is answered without a search
 * ({@link FreeGpuBound}), and every other answer is {@link GangPlanner#plan}'s. The seed shape has 8 GPUs
 * ({@link EngineFixtures#seedShape}).
 */
class PlanUnlessShortTest {
    private static final String SHORT = "the cluster's free GPUs hold at most ";
    private final GangPlanner planner = new GangPlanner();
    private final NodeTopologySpec seed = seedShape();
    private final PlacementPolicy preferred = policy(AffinityPolicy.PREFERRED, AffinityPolicy.PREFERRED,
            FabricScope.ANY);

    @Test
    void freeGpusCountPerNodeNotInSum() {
        // 6 free GPUs on each of 3 nodes: 18 free in all, enough for 2 × 8 by sum, but no node holds an 8-GPU pod
        ClusterSnapshot snap = cluster(List.of(node("a", seed, Set.of(0, 1)), node("b", seed, Set.of(0, 1)),
                node("c", seed, Set.of(0, 1))), FabricModel.empty());
        GangRequest gang = gang("g", 2, 8, preferred);
        PlanOutcome quick = planner.planUnlessShort(snap, gang);
        PlanOutcome full = planner.plan(snap, gang);
        assertThat(quick.schedulable()).isFalse();
        assertThat(quick.reasons()).singleElement().satisfies(r -> {
            assertThat(r.code()).isEqualTo(ReasonCode.GANG_TOO_LARGE);
            assertThat(r.detail()).endsWith(SHORT + 0);
        });
        assertThat(quick.verdicts()).isEmpty();
        // the summary: the reason, then the nodes with room for one pod of the shape (6 free GPUs each: none)
        assertThat(quick.summary()).isEqualTo(quick.reasons().get(0) + "; 0/3 nodes have 8 free GPUs or more");
        assertThat(quick.pools()).isEqualTo(full.pools());
        assertThat(quick.notices()).isEqualTo(full.notices());
        // the full plan names every node
        assertThat(full.schedulable()).isFalse();
        assertThat(full.verdicts()).hasSize(3);
    }

    @Test
    void oneFreeNodeHoldsOneEightGpuPod() {
        ClusterSnapshot snap = cluster(List.of(node("a", seed), node("b", seed, Set.of(3))), FabricModel.empty());
        assertThat(planner.planUnlessShort(snap, gang("two", 2, 8, preferred)).reasons())
                .singleElement().satisfies(r -> assertThat(r.detail()).endsWith(SHORT + 1));
        // a: 8 free, b: 7 free (GPU 3 used), so one node of two has room for an 8-GPU pod
        assertThat(planner.planUnlessShort(snap, gang("two", 2, 8, preferred)).summary())
                .endsWith(SHORT + "1; 1/2 nodes have 8 free GPUs or more");
        // one GPU per pod: 8 + 7 = 15 pods fit, so 16 are short, and both nodes have room for one
        assertThat(planner.planUnlessShort(snap, gang("small", 16, 1, preferred)).summary())
                .endsWith(SHORT + "15; 2/2 nodes have 1 free GPU or more");
        GangRequest one = gang("one", 1, 8, preferred);
        PlanOutcome quick = planner.planUnlessShort(snap, one);
        assertThat(quick.schedulable()).isTrue();
        assertThat(quick).isEqualTo(planner.plan(snap, one));
        assertThat(quick.plan().pods().get(0).node()).isEqualTo("a");
    }

    @Test
    void podsWithoutGpusAreNeverShort() {
        ClusterSnapshot snap = cluster(List.of(node("a", seed, Set.of(0, 1, 2, 3, 4, 5, 6, 7))),
                FabricModel.empty());
        GangRequest gang = gang("cpu", 3, 0, preferred);
        assertThat(planner.planUnlessShort(snap, gang)).isEqualTo(planner.plan(snap, gang));
    }

    @Test
    void boundCountsWholePodsPerNodeForEachSnapshot() {
        FreeGpuBound bound = new FreeGpuBound();
        // free GPUs 8, 7, 3 and 0
        ClusterSnapshot snap = cluster(List.of(node("a", seed), node("b", seed, Set.of(0)),
                node("c", seed, Set.of(0, 1, 2, 3, 4)), node("d", seed, Set.of(0, 1, 2, 3, 4, 5, 6, 7))),
                FabricModel.empty());
        assertThat(bound.pods(snap, 1)).isEqualTo(8 + 7 + 3);
        assertThat(bound.pods(snap, 2)).isEqualTo(4 + 3 + 1);
        assertThat(bound.pods(snap, 4)).isEqualTo(2 + 1);
        assertThat(bound.pods(snap, 8)).isEqualTo(1);
        assertThat(bound.pods(snap, 9)).isZero();
        // the next snapshot (worked out from this one's counts): node a lost a GPU
        ClusterSnapshot next = snap.withNodes(List.of(node("a", seed, Set.of(5))));
        assertThat(bound.pods(next, 8)).isZero();
        assertThat(bound.pods(next, 1)).isEqualTo(7 + 7 + 3);
    }

    @Test
    void aSnapshotOfAsManyNodesIsCountedFromTheLastOne() {
        FreeGpuBound bound = new FreeGpuBound();
        List<String> names = List.of("a", "b", "c");
        Map<String, Integer> index = Map.of("a", 0, "b", 1, "c", 2);
        // free GPUs 8, 8, 2: the way the incremental cluster state makes snapshots (one names list instance)
        NodeState[] first = {node("a", seed), node("b", seed), node("c", seed, Set.of(0, 1, 2, 3, 4, 5))};
        ClusterSnapshot s1 = ClusterSnapshot.sorted(first, index, names, List.of(), FabricModel.empty(), null);
        assertThat(bound.pods(s1, 8)).isEqualTo(2);
        assertThat(bound.pods(s1, 2)).isEqualTo(4 + 4 + 1);
        // b takes 4 GPUs, c frees all: free 8, 4, 8
        NodeState[] second = {first[0], node("b", seed, Set.of(0, 1, 2, 3)), node("c", seed)};
        ClusterSnapshot s2 = ClusterSnapshot.sorted(second, index, names, List.of(), FabricModel.empty(), null);
        assertThat(bound.pods(s2, 8)).isEqualTo(2);
        assertThat(bound.pods(s2, 4)).isEqualTo(2 + 1 + 2);
        assertThat(bound.pods(s2, 3)).isEqualTo(2 + 1 + 2);
        // a new instance of an unchanged node, and a node whose NodeTopology is gone (no free GPUs): free 8, 4, 0
        NodeState[] third = {node("a", seed), second[1], node("c", null)};
        ClusterSnapshot s3 = ClusterSnapshot.sorted(third, index, names, List.of(), FabricModel.empty(), null);
        assertThat(bound.pods(s3, 4)).isEqualTo(2 + 1);
        // the older snapshot asked again is counted again, not mistaken for the last
        assertThat(bound.pods(s1, 8)).isEqualTo(2);
        assertThat(bound.pods(s1, 2)).isEqualTo(4 + 4 + 1);
        // a node gone: counted in full
        ClusterSnapshot s4 = cluster(List.of(first[0], first[2]), FabricModel.empty());
        assertThat(bound.pods(s4, 2)).isEqualTo(4 + 1);
    }

    /**
     * On seeded random clusters (GangPlanOptimalityTest's generator: up to 8 nodes of 2–8 GPUs, 30 % held, random
     * pairing distances, fabric, policy and scope), the gang scaled up to overflow the cluster often and a second pod
     * shape added to some: whether there is a plan, the plan and the pools' verdict are always the full search's.
     */
    @Test
    void sameAnswerAsTheFullSearchOnRandomClusters() {
        int shortCount = 0;
        int searchedUnschedulable = 0;
        for (long seedValue = 0; seedValue < 1500; seedValue++) {
            Random rnd = new Random(seedValue);
            GangPlanOptimalityTest.Instance in = GangPlanOptimalityTest.generate(rnd);
            GangRequest base = in.gang();
            List<PodRequest> pods = new ArrayList<>();
            int copies = 1 + rnd.nextInt(4);
            for (int c = 0; c < copies; c++) {
                for (PodRequest p : base.pods()) {
                    pods.add(pod(p.name() + "-" + c, p.gpus()));
                }
            }
            if (rnd.nextInt(3) == 0) {
                pods.add(pod("other", 1 + rnd.nextInt(8)));
            }
            GangRequest gang = new GangRequest("prod", "g", pods, base.policy());
            PlanOutcome quick = planner.planUnlessShort(in.snapshot(), gang);
            PlanOutcome full = planner.plan(in.snapshot(), gang);
            String where = "seed " + seedValue;
            assertThat(quick.schedulable()).as(where).isEqualTo(full.schedulable());
            assertThat(quick.pools()).as(where).isEqualTo(full.pools());
            if (full.schedulable()) {
                assertThat(quick).as(where).isEqualTo(full);
            } else if (quick.verdicts().isEmpty() && !full.verdicts().isEmpty()) {
                shortCount++;
            } else {
                assertThat(quick).as(where).isEqualTo(full);
                searchedUnschedulable++;
            }
        }
        // both kinds of unschedulable answer were exercised, and the short one often
        assertThat(shortCount).isGreaterThan(200);
        assertThat(searchedUnschedulable).isGreaterThan(20);
    }
}
