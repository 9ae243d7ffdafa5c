package dev.railyard.scheduler.simulate;

import dev.railyard.api.hints.AffinityPolicy;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The baselines decide as their upstreams do (docs/simulation.md, "Baselines", names the files and versions the
 * expected values come from).
 */
class BaselinesTest {
    private static TraceJob job(int pods, int gpus) {
        return new TraceJob("j", 0, 100, pods, gpus, AffinityPolicy.PREFERRED);
    }

    private static List<String> nodes(List<PlacementStrategy.PodUse> pods) {
        return pods.stream().map(PlacementStrategy.PodUse::node).toList();
    }

    @Test
    void ufmDiscoveryMergesTheRailLeavesOfAScalableUnitIntoOneGroup() {
        // volcano pkg/controllers/hypernode/discovery/ufm/ufm.go: leaves that share a node are one leaf group;
        // every node of an SU is cabled to all 8 rail leaves of that SU: 3 SUs → 3 groups of 32 nodes
        SimCluster c = new SimCluster(GeneratedCluster.build(96, 3, "dgx:1"));
        DomainBaselines.Domains g = DomainBaselines.ufmLeafGroups(c);
        assertThat(g.size()).isEqualTo(3);
        assertThat(g.members()[1]).hasSize(32).startsWith(32);
    }

    @Test
    void kaiLevelsAreOneLabelPerNode() {
        // tier 2 on rail 0: groups of 4 SUs (GeneratedCluster.GROUP) → 160 nodes = 128 + 32
        SimCluster c = new SimCluster(GeneratedCluster.build(160, 3, "dgx:1"));
        DomainBaselines.Domains blocks = DomainBaselines.labelDomains(c, 2);
        assertThat(blocks.size()).isEqualTo(2);
        assertThat(blocks.members()[0]).hasSize(128);
        assertThat(blocks.members()[1]).hasSize(32);
    }

    @Test
    void mostAllocatedTakesTheFullestNodeThatFits() {
        // kube-scheduler NodeResourcesFit MostAllocated: score (allocated + request) / allocatable, highest wins
        SimCluster c = new SimCluster(GeneratedCluster.build(3, 1, "dgx:1"));
        c.take("su000-n01", List.of(0, 1, 2, 3));
        c.take("su000-n02", List.of(0, 1, 2, 3, 4, 5));
        // a 4-GPU pod fits n00 (score 4/8) and n01 (8/8), not n02 (2 free): n01
        assertThat(nodes(Baselines.binPacking().place(c, job(1, 4), 0))).containsExactly("su000-n01");
        // its GPUs are the lowest free ones, each through its own HCA
        assertThat(Baselines.binPacking().place(c, job(1, 4), 0).get(0).gpus())
                .extracting(PlacementStrategy.GpuUse::gpu).containsExactly(4, 5, 6, 7);
    }

    @Test
    void volcanoTakesTheFullestLeafGroupThatHoldsTheJob() {
        // network_topology_aware.go HyperNode score (used + request) / allocatable: of SU 0 (8 GPUs used) and
        // SU 1 (16 used), a 2 × 8 job goes to SU 1; a job no tier-1 group holds falls back to the cluster
        SimCluster c = new SimCluster(GeneratedCluster.build(96, 3, "dgx:1"));
        c.take("su000-n00", List.of(0, 1, 2, 3, 4, 5, 6, 7));
        c.take("su001-n00", List.of(0, 1, 2, 3, 4, 5, 6, 7));
        c.take("su001-n01", List.of(0, 1, 2, 3, 4, 5, 6, 7));
        PlacementStrategy v = DomainBaselines.volcano();
        assertThat(nodes(v.place(c, job(2, 8), 0))).allMatch(n -> n.startsWith("su001-"));
        assertThat(nodes(v.place(c, job(40, 8), 0))).hasSize(40);
    }

    @Test
    void kaiTakesTheRackWithFewestIdleGpusThatHoldsTheJob() {
        // KAI docs/topology/README.md: domain selection bin-packs (fewest available first)
        SimCluster c = new SimCluster(GeneratedCluster.build(96, 3, "dgx:1"));
        c.take("su002-n00", List.of(0, 1, 2, 3, 4, 5, 6, 7));
        assertThat(nodes(DomainBaselines.kai().place(c, job(2, 8), 0))).allMatch(n -> n.startsWith("su002-"));
    }

    @Test
    void koordinatorJointAllocationNeedsANicOnEveryChosenGpuSwitch() {
        // allocator_gpu.go allocateFromScope: deepest scope holding the request, used scopes first, then the first;
        // device_allocator.go validateJointAllocation: the RDMA devices' PCIe switches must equal the GPUs'
        SimCluster c = new SimCluster(GeneratedCluster.build(64, 1, "dgx:1,hgx4:1"));
        int hgx = c.indexOf("su001-n00");
        int dgx = c.indexOf("su000-n00");
        // empty hgx4 node, one GPU: GPU 0's switch (with mlx5_0) is the first scope
        assertThat(KoordinatorBaseline.allocate(c, hgx, 1, Set.of())).containsExactly(0);
        // with GPU 0 taken, GPU 1's switch sits under the used NUMA node and comes first: it has no NIC, fail
        assertThat(KoordinatorBaseline.allocate(c, hgx, 1, Set.of(0))).isNull();
        // two GPUs: NUMA node 0 (GPUs 0–3) gives 0 and 1; GPU 1 has no NIC on its switch: fail
        assertThat(KoordinatorBaseline.allocate(c, hgx, 2, Set.of())).isNull();
        // a DGX node: every GPU has its own NIC; four GPUs come from NUMA node 0
        assertThat(KoordinatorBaseline.allocate(c, dgx, 4, Set.of())).containsExactly(0, 1, 2, 3);
        // so a 1 × 2 job lands on a DGX node
        assertThat(nodes(new KoordinatorBaseline().place(c, job(1, 2), 0))).allMatch(n -> n.startsWith("su000-"));
    }
}
