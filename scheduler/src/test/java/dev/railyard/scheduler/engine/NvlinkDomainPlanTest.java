package dev.railyard.scheduler.engine;

import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.api.hints.FabricScope;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.api.volcano.HyperNode;
import dev.railyard.topology.fabric.FabricModel;
import dev.railyard.topology.fabric.HyperNodeFabric;
import dev.railyard.topology.fabric.NvlinkDomains;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.railyard.scheduler.engine.EngineFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * NVLink domains ({@code nvidia.com/gpu.clique}) as the innermost fabric tier: a gang goes inside one domain when it
 * fits, and across domains with the fewest pod pairs crossing between them otherwise. Nodes are GB200-like trays (4
 * GPUs, each paired at P2C with its own NIC: the default policy, GPU–HCA affinity required at ≤ PXB, admits P2C).
 * All nodes hang under one leaf per rail, so without NVLink domains every placement under that leaf costs the same
 * switch hops and the node order decides.
 */
class NvlinkDomainPlanTest {
    private final GangPlanner planner = new GangPlanner();

    /** A GB200 tray: GPU i P2C to mlx5_i and to the other NIC of its socket, SYS to the other socket's NICs. */
    static dev.railyard.api.topology.NodeTopologySpec tray() {
        PcieDistance[][] m = new PcieDistance[4][4];
        int[] home = new int[4];
        for (int g = 0; g < 4; g++) {
            home[g] = g;
            for (int h = 0; h < 4; h++) {
                m[g][h] = g / 2 == h / 2 ? PcieDistance.P2C : PcieDistance.SYS;
            }
        }
        return spec(m, home, new String[]{"ib0", "ib1", "ib2", "ib3"});
    }

    /** Nodes in the given order, each in the given NVLink domain (null: none), all under leaf su0 on 4 rails. */
    private static ClusterSnapshot cluster(String... nodeDomain) {
        List<NodeState> nodes = new ArrayList<>();
        Map<String, Map<String, String>> labels = new LinkedHashMap<>();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < nodeDomain.length; i++) {
            String name = "n" + i;
            names.add(name);
            nodes.add(node(name, tray()));
            labels.put(name, nodeDomain[i] == null ? Map.of() : Map.of(NvlinkDomains.CLIQUE_LABEL, nodeDomain[i]));
        }
        FabricModel fabric = NvlinkDomains.overlay(railOptimised(List.of(names), 4, 1), labels);
        return EngineFixtures.cluster(nodes, fabric);
    }

    @Test
    void aGangThatFitsInOneNvlinkDomainIsPlacedInsideIt() {
        // Domains interleave in node order: A = n0, n2, n4; B = n1, n3, n5. Three 4-GPU pods need three trays: A or
        // B holds them (level 1, 0 switch hops); A comes first in node order. Without domains the first three nodes
        // (n0, n1, n2) would tie with any three and win on order.
        ClusterSnapshot snap = cluster("uuid-a.1", "uuid-b.2", "uuid-a.1", "uuid-b.2", "uuid-a.1", "uuid-b.2");
        PlanOutcome o = planner.plan(snap, gang("train", 3, 4, PlacementPolicy.defaults()));

        assertThat(o.schedulable()).isTrue();
        assertThat(o.plan().nodes()).containsExactlyInAnyOrder("n0", "n2", "n4");
        assertThat(o.plan().domain()).isEqualTo("NVLink uuid-a.1");
        assertThat(o.plan().cost().hops()).isZero();
        assertThat(o.plan().pods()).allMatch(p -> p.gpus().stream().allMatch(g -> g.distance() == PcieDistance.P2C));
    }

    @Test
    void hintsSayWhichRanksTalkOverNvlinkAndAskForGpuDirectOverC2c() {
        // the 4-pod plan of the next test: n0, n2, n4 (domain A) and one more tray; ranks follow the domain tree,
        // so the three pods in A hold three consecutive ranks
        ClusterSnapshot snap = cluster("uuid-a.1", "uuid-b.2", "uuid-a.1", "uuid-b.2", "uuid-a.1", "uuid-c.3");
        GangPlan plan = planner.plan(snap, gang("big", 4, 4, PlacementPolicy.defaults())).plan();
        List<Integer> ranksInA = plan.pods().stream()
                .filter(p -> "uuid-a.1".equals(snap.fabric().nvlinkDomain(p.node()))).map(PlannedPod::rank).sorted()
                .toList();
        assertThat(ranksInA).hasSize(3);

        PlannedPod inA = plan.pods().stream().filter(p -> p.node().equals("n0")).findFirst().orElseThrow();
        dev.railyard.api.hints.PlacementHint h = dev.railyard.scheduler.hints.PlacementHints.hint(snap, plan, inA,
                gang("big", 4, 4, PlacementPolicy.defaults()).pods().get(inA.index()));
        assertThat(h.nvlink()).isEqualTo(new dev.railyard.api.hints.PlacementHint.NvlinkPeers("uuid-a.1",
                ranksInA, 3));
        // every GPU pairs at P2C: GPUDirect over C2C, no GDR level
        assertThat(h.nccl().netGdrC2c()).isEqualTo("1");
        assertThat(h.nccl().netGdrLevel()).isNull();
        Map<String, String> a = dev.railyard.scheduler.hints.PlacementHints.annotations(h);
        assertThat(a).containsEntry("railyard.dev/nvlink-domain", "uuid-a.1")
                .containsEntry("railyard.dev/nccl-net-gdr-c2c", "1");

        // the pod alone in its domain gets the domain but no flat annotation (nobody to talk to over NVLink)
        PlannedPod alone = plan.pods().stream().filter(p -> !"uuid-a.1".equals(snap.fabric().nvlinkDomain(p.node())))
                .findFirst().orElseThrow();
        dev.railyard.api.hints.PlacementHint lone = dev.railyard.scheduler.hints.PlacementHints.hint(snap, plan,
                alone, gang("big", 4, 4, PlacementPolicy.defaults()).pods().get(alone.index()));
        assertThat(lone.nvlink().peers()).isEqualTo(1);
        assertThat(dev.railyard.scheduler.hints.PlacementHints.annotations(lone))
                .doesNotContainKey("railyard.dev/nvlink-domain");
    }

    @Test
    void aGangLargerThanAnyDomainCrossesTheFewestDomainBoundaries() {
        // A = n0, n2, n4 (3 trays), B = n1, n3 (2), C = n5 (1); 4 pods x 4 GPUs fit in no domain. Pod pairs on
        // different domains cross the leaf (1 hop each), pairs in one domain none: A(3)+B(1) or A(3)+C(1) cost
        // 3 x 1 = 3 hops; A(2)+B(2) costs 4; two domains of 2+1+1 cost 5. So all of A is used plus one more tray,
        // and the plan spans the leaf (tier 1). Without domains any 4 trays under the leaf cost C(4,2) = 6 hops.
        ClusterSnapshot snap = cluster("uuid-a.1", "uuid-b.2", "uuid-a.1", "uuid-b.2", "uuid-a.1", "uuid-c.3");
        PlanOutcome o = planner.plan(snap, gang("big", 4, 4, PlacementPolicy.defaults()));

        assertThat(o.schedulable()).isTrue();
        assertThat(o.plan().nodes()).contains("n0", "n2", "n4").hasSize(4);
        assertThat(o.plan().cost().hops()).isEqualTo(3);
        assertThat(o.plan().tier()).isEqualTo(1);

        ClusterSnapshot plain = cluster(null, null, null, null, null, null);
        assertThat(planner.plan(plain, gang("big", 4, 4, PlacementPolicy.defaults())).plan().cost().hops())
                .isEqualTo(6);
    }

    @Test
    void aLeafScopeAdmitsAPlanInsideAnNvlinkDomain() {
        // an NVLink domain lies inside one leaf, so fabric-scope leaf (tier 1) holds a plan at the NVLink level
        ClusterSnapshot snap = cluster("uuid-a.1", "uuid-a.1", "uuid-b.2", "uuid-b.2");
        PlanOutcome leaf = planner.plan(snap, gang("j", 2, 4, policy(AffinityPolicy.REQUIRED,
                AffinityPolicy.PREFERRED, new FabricScope(1, true))));
        assertThat(leaf.schedulable()).isTrue();
        assertThat(leaf.plan().nodes()).containsExactly("n0", "n1");
        assertThat(leaf.plan().tier()).isEqualTo(1);
        assertThat(leaf.plan().domain()).isEqualTo("NVLink uuid-a.1");
    }

    @Test
    void aHyperNodeSelectingNodesByTheCliqueLabelIsAnNvlinkDomain() {
        // Volcano HyperNodes for GB200 racks: rack-a selects the nodes labelled with clique a (matchLabels) and also
        // lists n4 by name; rack-b selects clique b; both under one tier-2 HyperNode. Labelled nodes take their
        // label's value as domain; n4, which carries no clique label, takes the name of the rack that lists it.
        HyperNode.LabelMatch a = new HyperNode.LabelMatch(Map.of(NvlinkDomains.CLIQUE_LABEL, "a"), List.of());
        HyperNode.LabelMatch b = new HyperNode.LabelMatch(Map.of(NvlinkDomains.CLIQUE_LABEL, "b"), List.of());
        List<HyperNode> hyper = List.of(
                new HyperNode("rack-a", 1, "rack", List.of(HyperNode.Member.nodesLabelled(a),
                        HyperNode.Member.node("n4"))),
                new HyperNode("rack-b", 1, "rack", List.of(HyperNode.Member.nodesLabelled(b))),
                new HyperNode("spine", 2, "spine", List.of(HyperNode.Member.hyperNode("rack-a"),
                        HyperNode.Member.hyperNode("rack-b"))));
        Map<String, Map<String, String>> labels = new LinkedHashMap<>();
        List<NodeState> nodes = new ArrayList<>();
        String[] clique = {"a", "b", "a", "b", null};
        for (int i = 0; i < clique.length; i++) {
            labels.put("n" + i, clique[i] == null ? Map.of() : Map.of(NvlinkDomains.CLIQUE_LABEL, clique[i]));
            nodes.add(node("n" + i, tray()));
        }
        FabricModel fabric = HyperNodeFabric.build(hyper, labels);
        assertThat(fabric.nvlinkDomains()).containsExactly(Map.entry("n0", "a"), Map.entry("n1", "b"),
                Map.entry("n2", "a"), Map.entry("n3", "b"), Map.entry("n4", "rack-a"));

        // A 2-pod gang fits in NVLink domain a (n0, n2) or b (n1, n3), each with no GPU left over; the enclosing
        // rack decides (the planner's "enclosing" slack): rack-a keeps n4's 4 GPUs free, rack-b is left full, so b.
        PlanOutcome o = planner.plan(EngineFixtures.cluster(nodes, fabric), gang("r", 2, 4, PlacementPolicy.defaults()));
        assertThat(o.plan().nodes()).containsExactly("n1", "n3");
        assertThat(o.plan().domain()).isEqualTo("NVLink b");
        assertThat(o.plan().cost().hops()).isZero();
    }
}
