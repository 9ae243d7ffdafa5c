package dev.railyard.scheduler.engine;

import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.api.hints.FabricScope;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.api.volcano.HyperNode;
import dev.railyard.api.volcano.PodGroup;
import dev.railyard.topology.fabric.FabricModel;
import dev.railyard.topology.fabric.HyperNodeFabric;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.railyard.scheduler.engine.EngineFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

class GangPlannerTest {
    private final GangPlanner planner = new GangPlanner();

    /** case-40's Example 1, written with the final API shape (the document's YAML is malformed). */
    static List<HyperNode> case40() {
        List<HyperNode> h = new ArrayList<>();
        for (int s = 0; s < 4; s++) {
            h.add(new HyperNode("s" + s, 1, null, List.of(HyperNode.Member.node("node" + (2 * s)),
                    HyperNode.Member.node("node" + (2 * s + 1)))));
        }
        h.add(new HyperNode("s4", 2, null, List.of(HyperNode.Member.hyperNode("s0"), HyperNode.Member.hyperNode("s1"))));
        h.add(new HyperNode("s5", 2, null, List.of(HyperNode.Member.hyperNode("s2"), HyperNode.Member.hyperNode("s3"))));
        h.add(new HyperNode("s6", 3, null, List.of(HyperNode.Member.hyperNode("s4"), HyperNode.Member.hyperNode("s5"))));
        return h;
    }

    private static ClusterSnapshot case40Cluster() {
        Map<String, Map<String, String>> labels = new LinkedHashMap<>();
        List<NodeState> nodes = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            labels.put("node" + i, Map.of());
            nodes.add(node("node" + i, dgx()));
        }
        return cluster(nodes, HyperNodeFabric.build(case40(), labels));
    }

    @Test
    void case40FourNodeJobCannotFitInTierOneButFitsInsideOneTierTwoHyperNode() {
        // case-40 expected result: highestTierAllowed 1 cannot fit (tier-1 HyperNodes hold 2 nodes); with 2 the job
        // lands inside s4 (node0-3) or s5 (node4-7), never split across them.
        ClusterSnapshot snap = case40Cluster();
        PodGroup hard1 = new PodGroup("prod", "pytorch-job", 4,
                new PodGroup.NetworkTopology(PodGroup.NetworkTopologyMode.HARD, 1, null), Map.of());
        PlacementPolicy p1 = PlacementPolicy.resolve(Map.of(), hard1, Map.of(), snap.fabric());
        PlanOutcome o1 = planner.plan(snap, gang("pytorch-job", 4, 8, p1));
        assertThat(o1.schedulable()).isFalse();
        assertThat(o1.reasons()).extracting(Reason::code).containsExactly(ReasonCode.SCOPE_TOO_SMALL);
        assertThat(o1.summary()).contains("fits in one spine domain (tier 2) at the smallest")
                .contains("allows leaf (tier 1)");

        PodGroup hard2 = new PodGroup("prod", "pytorch-job", 4,
                new PodGroup.NetworkTopology(PodGroup.NetworkTopologyMode.HARD, 2, null), Map.of());
        PlacementPolicy p2 = PlacementPolicy.resolve(Map.of(), hard2, Map.of(), snap.fabric());
        PlanOutcome o2 = planner.plan(snap, gang("pytorch-job", 4, 8, p2));
        assertThat(o2.schedulable()).isTrue();
        GangPlan plan = o2.plan();
        assertThat(plan.tier()).isEqualTo(2);
        // tie between s4 and s5 goes to the first in node order
        assertThat(plan.nodes()).containsExactly("node0", "node1", "node2", "node3");
        assertThat(plan.domain()).isEqualTo("s4");
        // hops: (node0,node1) and (node2,node3) share a tier-1 HyperNode: 1 switch each; the 4 cross pairs go
        // through s4: 3 switches each -> 1 + 1 + 4*3 = 14
        assertThat(plan.cost().hops()).isEqualTo(14);
        // every GPU on its own PIX HCA: penalty 0; nodes full: no leftover, no broken group
        assertThat(plan.cost().local()).isZero();
        // ranks follow the fabric: consecutive ranks share a tier-1 HyperNode
        assertThat(plan.pods()).extracting(PlannedPod::node)
                .containsExactly("node0", "node1", "node2", "node3");
    }

    @Test
    void softScopeIsRelaxedWithANotice() {
        ClusterSnapshot snap = case40Cluster();
        PodGroup soft = new PodGroup("prod", "j", 4,
                new PodGroup.NetworkTopology(PodGroup.NetworkTopologyMode.SOFT, 1, null), Map.of());
        PlanOutcome o = planner.plan(snap, gang("j", 4, 8, PlacementPolicy.resolve(null, soft, null, snap.fabric())));
        assertThat(o.schedulable()).isTrue();
        assertThat(o.plan().cost().relaxations()).isEqualTo(PlanCost.SCOPE_RELAXED);
        assertThat(o.plan().notices()).anyMatch(n -> n.startsWith("relaxed fabric scope"));
    }

    @Test
    void smallPodsShareANodeBeforeTheyShareALeaf() {
        // 2 pods x 4 GPUs on empty DGX nodes: both fit on node0 (tier 0, 0 hops): one NUMA half each. Rail
        // alignment (preferred by default) is void on one node: no traffic leaves it.
        ClusterSnapshot snap = case40Cluster();
        PlanOutcome o = planner.plan(snap, gang("small", 2, 4, PlacementPolicy.defaults()));
        assertThat(o.schedulable()).isTrue();
        assertThat(o.plan().tier()).isZero();
        assertThat(o.plan().nodes()).containsExactly("node0");
        assertThat(o.plan().cost().hops()).isZero();
    }

    @Test
    void fillsAPartlyUsedNodeBeforeAnEmptyOne() {
        // node1 has GPUs 0-3 taken; a 4-GPU pod fits whole on either node. Tightness: node1 is left with 0 free
        // GPUs, node0 with 4, so node1 wins (local cost 0 against 4 + the broken-group penalties).
        List<NodeState> nodes = List.of(node("node0", dgx()), node("node1", dgx(), Set.of(0, 1, 2, 3)));
        PlanOutcome o = planner.plan(cluster(nodes, FabricModel.empty()), gang("one", 1, 4, PlacementPolicy.defaults()));
        assertThat(o.plan().nodes()).containsExactly("node1");
        assertThat(o.plan().pods().get(0).gpuIndices()).containsExactly(4, 5, 6, 7);
        assertThat(o.plan().cost().local()).isZero();
        assertThat(o.notices()).anyMatch(n -> n.contains("all nodes are treated as equidistant"));
    }

    @Test
    void seedShapeNodePairsTwoGpusPerHca() {
        // docs/seed-setup.md: 8 GPUs, 4 HCAs, each HCA serves the two GPUs under its PCIe switch
        List<NodeState> nodes = List.of(node("a", seedShape()));
        PlanOutcome o = planner.plan(cluster(nodes, FabricModel.empty()), gang("rdma-test", 1, 8,
                PlacementPolicy.defaults()));
        PlannedPod p = o.plan().pods().get(0);
        assertThat(p.rails().toString()).isEqualTo("{0×2,1×2,2×2,3×2}");
        assertThat(p.gpus()).extracting(GpuBinding::hca).containsExactly("mlx5_0", "mlx5_0", "mlx5_1", "mlx5_1",
                "mlx5_2", "mlx5_2", "mlx5_3", "mlx5_3");
        assertThat(p.gpus()).allMatch(b -> b.distance() == PcieDistance.PIX);
    }

    @Test
    void unschedulableGangSaysWhyPerNode() {
        // node0: 2 GPUs free; node1: GPUs whose HCAs are SYS only (a case-05-like odd GPU row)
        PcieDistance[][] far = {{PcieDistance.SYS, PcieDistance.SYS}, {PcieDistance.SYS, PcieDistance.SYS},
                {PcieDistance.SYS, PcieDistance.PIX}, {PcieDistance.PIX, PcieDistance.SYS}};
        List<NodeState> nodes = List.of(node("node0", dgx(), Set.of(0, 1, 2, 3, 4, 5)),
                node("node1", spec(far, new int[]{0, 1, 1, 0}, null)));
        PlanOutcome o = planner.plan(cluster(nodes, FabricModel.empty()), gang("big", 1, 4, PlacementPolicy.defaults()));
        assertThat(o.schedulable()).isFalse();
        assertThat(o.summary()).contains("0/2 nodes available: 1 insufficient free GPUs, 1 too few GPUs pair at ≤ PXB");
        NodeVerdict v1 = o.verdicts().get(1);
        assertThat(v1.reasons().get(0).detail()).contains("GPU0 SYS to mlx5_0").contains("GPU1 SYS to mlx5_1");
    }

    @Test
    void preferredAffinityFallsBackToFartherPairsAndSaysSo() {
        PcieDistance[][] far = {{PcieDistance.SYS}, {PcieDistance.PIX}};
        List<NodeState> nodes = List.of(node("n", spec(far, new int[]{0, 0}, null)));
        PlacementPolicy p = policy(AffinityPolicy.PREFERRED, AffinityPolicy.PREFERRED, FabricScope.ANY);
        PlanOutcome o = planner.plan(cluster(nodes, FabricModel.empty()), gang("x", 1, 2, p));
        assertThat(o.schedulable()).isTrue();
        assertThat(o.plan().cost().relaxations()).isEqualTo(PlanCost.AFFINITY_RELAXED);
        // penalties SYS 8 + PIX 0 -> 10 * 8 = 80
        assertThat(o.plan().cost().local()).isEqualTo(80);
    }

    @Test
    void planIsDeterministic() {
        ClusterSnapshot snap = case40Cluster();
        GangRequest g = gang("d", 3, 2, PlacementPolicy.defaults());
        GangPlan a = planner.plan(snap, g).plan();
        GangPlan b = planner.plan(snap, g).plan();
        assertThat(a).isEqualTo(b);
    }
}
