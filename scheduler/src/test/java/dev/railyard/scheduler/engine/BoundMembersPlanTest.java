package dev.railyard.scheduler.engine;

import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.api.hints.FabricScope;
import dev.railyard.api.topology.PcieDistance;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static dev.railyard.scheduler.engine.EngineFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Gangs with members already bound (issue 5, docs/adr/0005): the planner places only the other pods and keeps the
 * bound ones' rail set, fabric domain and ranks.
 *
 * <p>Cluster: seed-shaped nodes (8 GPUs; GPUs 2k and 2k+1 PIX to mlx5_k, rail k; {@link EngineFixtures#seedShape})
 * on a rail-optimised fabric of two scalable units, su0 = n0..n3 and su1 = n4..n7, one spine group. The gang has 4
 * pods × 4 GPUs: x-0 is bound to n0 and x-1 to n1, each on GPUs 0..3 (rails 0 and 1, two GPUs each). n2 and n3 have
 * GPUs 4..7 taken by another job, so su0 offers rails 0 and 1 only there; su1 is empty.
 */
class BoundMembersPlanTest {
    private final GangPlanner planner = new GangPlanner();

    private static ClusterSnapshot cluster() {
        List<NodeState> nodes = new ArrayList<>();
        nodes.add(node("n0", seedShape(), Set.of(0, 1, 2, 3)));
        nodes.add(node("n1", seedShape(), Set.of(0, 1, 2, 3)));
        nodes.add(node("n2", seedShape(), Set.of(4, 5, 6, 7)));
        nodes.add(node("n3", seedShape(), Set.of(4, 5, 6, 7)));
        for (int i = 4; i < 8; i++) {
            nodes.add(node("n" + i, seedShape()));
        }
        return EngineFixtures.cluster(nodes, railOptimised(List.of(List.of("n0", "n1", "n2", "n3"),
                List.of("n4", "n5", "n6", "n7")), 4, 2));
    }

    /** GPUs of the seed shape as a hint names them: GPU g on mlx5_(g/2), rail g/2, PIX. */
    private static List<GpuBinding> seedGpus(int... gpus) {
        List<GpuBinding> out = new ArrayList<>();
        for (int g : gpus) {
            out.add(new GpuBinding(g, "mlx5_" + g / 2, g / 2, PcieDistance.PIX, true));
        }
        return out;
    }

    private static BoundMember bound(String pod, String node, Integer rank) {
        return BoundMember.hinted(pod(pod, 4), node, rank, seedGpus(0, 1, 2, 3));
    }

    /** x-2 and x-3 still to place; x-0 and x-1 bound as given. */
    private static GangRequest rest(FabricScope scope, AffinityPolicy alignment, List<BoundMember> bound) {
        return new GangRequest("prod", "x", List.of(pod("x-2", 4), pod("x-3", 4)),
                policy(AffinityPolicy.REQUIRED, alignment, scope), bound);
    }

    @Test
    void withoutTheBoundMembersTheTwoPodsWouldShareOneEmptyNodeWithRanksZeroAndOne() {
        // the state a restarted Railyard had before issue 5: the rest planned as a gang of its own. One empty node
        // holds both (tier 0, no rails crossed, so alignment is void): n4, the first in node order.
        PlanOutcome o = planner.plan(cluster(), rest(new FabricScope(1, true), AffinityPolicy.REQUIRED, List.of()));

        assertThat(o.plan().pods()).extracting(PlannedPod::node).containsExactly("n4", "n4");
        assertThat(o.plan().pods()).extracting(PlannedPod::rank).containsExactly(0, 1);
    }

    @Test
    void theRestTakesTheBoundMembersRailsUnderTheirLeavesWithRanksTwoAndThree() {
        // by hand: rails {0,1} (two GPUs each) with a leaf scope means su0; in su0 only n2 and n3 have GPUs 0..3
        // free, one pod each (n0 and n1 have rails 2 and 3 left). One leaf per rail holds all four: tier 1.
        for (FabricScope scope : List.of(new FabricScope(1, true), FabricScope.ANY)) {
            PlanOutcome o = planner.plan(cluster(), rest(scope, AffinityPolicy.REQUIRED,
                    List.of(bound("x-0", "n0", 0), bound("x-1", "n1", 1))));

            assertThat(o.schedulable()).as(o.summary()).isTrue();
            GangPlan plan = o.plan();
            assertThat(plan.pods()).extracting(PlannedPod::node).as("scope %s", scope).containsExactly("n2", "n3");
            assertThat(plan.pods()).extracting(p -> p.rails().toString()).containsExactly("{0×2,1×2}", "{0×2,1×2}");
            assertThat(plan.pods()).extracting(PlannedPod::gpuIndices)
                    .containsExactly(List.of(0, 1, 2, 3), List.of(0, 1, 2, 3));
            assertThat(plan.pods()).extracting(PlannedPod::rank).containsExactly(2, 3);
            assertThat(plan.tier()).isEqualTo(1);
            assertThat(plan.domain()).isEqualTo("su0-leaf-r0+su0-leaf-r1");
            assertThat(plan.gangSize()).isEqualTo(4);
            assertThat(plan.bound()).extracting(BoundMember::node).containsExactly("n0", "n1");
            // hops: n2–n3 1 (same leaves), each of n2, n3 to n0 and n1 1: 1 + 4 = 5
            assertThat(plan.cost().hops()).isEqualTo(5);
            assertThat(plan.notices()).contains("kept the members already bound: prod/x-0 on n0 {0×2,1×2}, "
                    + "prod/x-1 on n1 {0×2,1×2}");
            // Filter/Score context of x-2: the other three members' nodes and the bound rail vector
            GangContext ctx = GangContext.of(plan, 0);
            assertThat(ctx.placed()).containsExactly("n0", "n1", "n3");
            assertThat(ctx.rails().toString()).isEqualTo("{0×2,1×2}");
        }
    }

    @Test
    void requiredAlignmentTheFreeGpusCannotGiveOnTheBoundRailsIsUnschedulable() {
        // n2 and n3 lose GPUs 0..3 as well: no node of the cluster keeps rails 0 and 1 free except su1's, which a
        // leaf scope rules out; the bound rail set fits 0 of the pods there
        List<NodeState> nodes = new ArrayList<>(cluster().nodes());
        nodes.set(2, node("n2", seedShape(), Set.of(0, 1, 2, 3, 4, 5, 6, 7)));
        nodes.set(3, node("n3", seedShape(), Set.of(0, 1, 2, 3, 4, 5, 6, 7)));
        for (int i = 4; i < 8; i++) {
            nodes.set(i, node("n" + i, seedShape(), Set.of(0, 1, 2, 3)));
        }
        ClusterSnapshot snap = EngineFixtures.cluster(nodes, cluster().fabric());

        PlanOutcome o = planner.plan(snap, rest(FabricScope.ANY, AffinityPolicy.REQUIRED,
                List.of(bound("x-0", "n0", 0), bound("x-1", "n1", 1))));

        assertThat(o.schedulable()).isFalse();
        assertThat(o.reasons()).extracting(Reason::code).containsExactly(ReasonCode.NO_COMMON_RAIL_SET);
        assertThat(o.reasons().get(0).detail()).isEqualTo("with rail alignment the 2 pods of shape 4 GPUs still to "
                + "place need the rail set of the 2 bound members, {0×2,1×2}, which fits 0 of them");

        // with alignment preferred the rest is placed on rails 2 and 3, and the plan says it relaxed alignment
        PlanOutcome relaxed = planner.plan(snap, rest(FabricScope.ANY, AffinityPolicy.PREFERRED,
                List.of(bound("x-0", "n0", 0), bound("x-1", "n1", 1))));
        assertThat(relaxed.plan().cost().relaxations()).isEqualTo(PlanCost.ALIGNMENT_RELAXED);
        assertThat(relaxed.plan().pods()).extracting(p -> p.rails().toString()).containsOnly("{2×2,3×2}");
    }

    @Test
    void aMemberBoundWithoutAHintCountsByItsNodeOnly() {
        // x-0 hinted on n0 (rank 0), x-1 bound to n1 with no hint: the rail set comes from x-0 alone, n1 still counts
        // in the fabric domain, and rank 1 is set aside for x-1 (lowest rank left), so the rest gets 2 and 3
        PlanOutcome o = planner.plan(cluster(), rest(new FabricScope(1, true), AffinityPolicy.REQUIRED,
                List.of(bound("x-0", "n0", 0), BoundMember.nodeOnly(pod("x-1", 4), "n1"))));

        GangPlan plan = o.plan();
        assertThat(plan.pods()).extracting(PlannedPod::node).containsExactly("n2", "n3");
        assertThat(plan.pods()).extracting(p -> p.rails().toString()).containsOnly("{0×2,1×2}");
        assertThat(plan.pods()).extracting(PlannedPod::rank).containsExactly(2, 3);
        assertThat(plan.notices()).contains("member prod/x-1 is bound to n1 without a placement hint: counted by its "
                + "node only (rails and rank unknown)");
    }

    @Test
    void anUnhintedMemberInTheOtherUnitWidensALeafScopeToTheSpineInsteadOfRefusingTheRest() {
        // x-1 (no hint) is bound to n4 in su1 and holds its GPUs 0..3 (NodeStateConverter's lowest-index rule): the
        // bound members alone span the spine (tier 2). The rest cannot undo that, so it stays inside that spine domain
        // on x-0's rails {0,1}. One pod per node fits there (2 GPUs per rail): n2, n3, n5, n6, n7. Hops by hand (1 per
        // shared leaf, 3 across the spine): a pod on n2 or n3 is 1 from n0 and 3 from n4, one on n5..n7 3 and 1, so
        // 4 each; the two pods add 1 under one leaf pair, 3 across. n2+n3 and n5+n6 both cost 4 + 4 + 1 = 9; n2 and
        // n3 have GPUs 4..7 taken, so they leave no GPU stranded and win on the node-local cost.
        List<NodeState> nodes = new ArrayList<>(cluster().nodes());
        nodes.set(4, node("n4", seedShape(), Set.of(0, 1, 2, 3)));
        ClusterSnapshot snap = EngineFixtures.cluster(nodes, cluster().fabric());

        PlanOutcome o = planner.plan(snap, rest(new FabricScope(1, true), AffinityPolicy.REQUIRED,
                List.of(bound("x-0", "n0", 0), BoundMember.nodeOnly(pod("x-1", 4), "n4"))));

        assertThat(o.schedulable()).as(o.summary()).isTrue();
        assertThat(o.plan().tier()).isEqualTo(2);
        assertThat(o.plan().pods()).extracting(PlannedPod::node).containsExactly("n2", "n3");
        assertThat(o.plan().pods()).extracting(p -> p.rails().toString()).containsOnly("{0×2,1×2}");
        assertThat(o.plan().cost().hops()).isEqualTo(9);
        assertThat(o.plan().notices()).anyMatch(n -> n.startsWith("the members already bound span a spine domain "
                + "(tier 2), more than the fabric scope leaf (required) allows"));
    }

    @Test
    void ranksContinueAroundTheBoundMembersWhateverTheirPlaceInTheOrder() {
        List<PodRequest> two = List.of(pod("x-0", 4), pod("x-1", 4));
        PlacementPolicy p = PlacementPolicy.defaults();
        // x-2 and x-3 were bound first, with ranks 2 and 3: the rest takes 0 and 1
        assertThat(GangPlanner.ranks(new GangRequest("prod", "x", two, p,
                List.of(bound("x-2", "n0", 2), bound("x-3", "n1", 3))))).containsExactly(0, 1);
        // ranks 0 and 2 taken: 1 and 3 are left
        assertThat(GangPlanner.ranks(new GangRequest("prod", "x", two, p,
                List.of(bound("x-2", "n0", 0), bound("x-3", "n1", 2))))).containsExactly(1, 3);
        // a rank two members claim counts once; the other member's rank is unknown and takes the lowest left (1)
        assertThat(GangPlanner.ranks(new GangRequest("prod", "x", two, p,
                List.of(bound("x-2", "n0", 0), bound("x-3", "n1", 0))))).containsExactly(2, 3);
        // a rank outside the gang (a stale hint of a larger gang) is unknown too
        assertThat(GangPlanner.ranks(new GangRequest("prod", "x", two, p,
                List.of(bound("x-2", "n0", 7), bound("x-3", "n1", 1))))).containsExactly(2, 3);
        // no member bound: rank = index
        assertThat(GangPlanner.ranks(new GangRequest("prod", "x", two, p))).containsExactly(0, 1);
    }
}
