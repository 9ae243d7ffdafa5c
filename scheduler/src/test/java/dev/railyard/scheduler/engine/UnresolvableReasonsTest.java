package dev.railyard.scheduler.engine;

import dev.railyard.api.topology.PcieDistance;
import dev.railyard.scheduler.ipam.PodNetworksRequest;
import dev.railyard.topology.fabric.FabricModel;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.railyard.scheduler.engine.EngineFixtures.node;
import static dev.railyard.scheduler.engine.EngineFixtures.pod;
import static dev.railyard.scheduler.engine.EngineFixtures.seedShape;
import static dev.railyard.scheduler.engine.EngineFixtures.spec;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which refusals preemption can fix (Unschedulable) and which it cannot (UnschedulableAndUnresolvable), as
 * docs/adr/0012-one-verdict-vocabulary-and-unresolvable-reasons.md decides, through {@link PlacementEngine#filter}:
 * the code each real refusal gets is what Volcano (predicate code 2 or 3) and kube-scheduler ({@code FailedNodes} or
 * {@code FailedAndUnresolvableNodes}) receive.
 */
class UnresolvableReasonsTest {
    private final PlacementEngine engine = new PlacementEngine();

    private NodeVerdict filter(ClusterSnapshot snap, PodRequest pod, String node) {
        return engine.filter(snap, pod, PlacementPolicy.defaults(), node, GangContext.none());
    }

    private static ClusterSnapshot seed(NodeState... nodes) {
        return new ClusterSnapshot(List.of(nodes), List.of(
                new SecondaryNetwork("prod", "rdma-net-ipam-lan2", "lan2", "192.168.4.0/22", "192.168.4.0-22"),
                new SecondaryNetwork("prod", "rdma-net-ipam-lan5", "lan5", "192.168.16.0/22", "192.168.16.0-22")),
                FabricModel.empty(), new PlacementEngineTest.FixedPools(0, 1022));
    }

    @Test
    void aNodeWithoutTheRdmaResourceIsUnresolvable() {
        NodeState a = new NodeState("a", Map.of(), seedShape(), Set.of(), List.of(), true);
        PodRequest p = new PodRequest("prod", "p", 2, Map.of("nvidia.com/mlx5_3", 1L), null, false);
        NodeVerdict v = filter(seed(a), p, "a");
        assertThat(v.reasons()).extracting(Reason::code).containsExactly(ReasonCode.HCA_RESOURCE_MISSING);
        assertThat(v.code()).isEqualTo(Status.Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    }

    @Test
    void aFullRdmaResourceIsUnschedulable() {
        // 100 slots, all held by pods on the node: evicting one frees a slot
        NodeState a = new NodeState("a", Map.of(), seedShape(), Set.of(), List.of(
                new HcaResource("nvidia.com/mlx5_0", "mlx5_0", 100, 100)), true);
        PodRequest p = new PodRequest("prod", "p", 2, Map.of("nvidia.com/mlx5_0", 1L), null, false);
        NodeVerdict v = filter(seed(a), p, "a");
        assertThat(v.reasons()).extracting(Reason::code).containsExactly(ReasonCode.HCA_RESOURCE_FULL);
        assertThat(v.code()).isEqualTo(Status.Code.UNSCHEDULABLE);
    }

    @Test
    void noNodeTopologyIsUnresolvable() {
        NodeVerdict v = filter(seed(new NodeState("a", Map.of(), null, Set.of(), List.of(), true)), pod("p", 2), "a");
        assertThat(v.reasons()).extracting(Reason::code).containsExactly(ReasonCode.NO_NODE_TOPOLOGY);
        assertThat(v.code()).isEqualTo(Status.Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    }

    @Test
    void aNodeThePodsAffinityForbidsAndACordonedNodeAreUnresolvable() {
        PodRequest pinned = new PodRequest("prod", "p", 2, Map.of(), null, false,
                new RequiredNodeAffinity(Map.of("pool", "gpu-b"), null));
        NodeVerdict v = filter(seed(node("a", seedShape())), pinned, "a");
        assertThat(v.reasons()).extracting(Reason::code).containsExactly(ReasonCode.NODE_AFFINITY_MISMATCH);
        assertThat(v.code()).isEqualTo(Status.Code.UNSCHEDULABLE_AND_UNRESOLVABLE);

        NodeState cordoned = new NodeState("c", Map.of(), seedShape(), Set.of(), List.of(), false);
        assertThat(filter(seed(cordoned), pod("p", 2), "c").code())
                .isEqualTo(Status.Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    }

    @Test
    void gpusHeldByOtherPodsAreUnschedulable() {
        // seed shape, GPUs 0-5 held: 2 free, 4 asked
        NodeVerdict v = filter(seed(node("a", seedShape(), Set.of(0, 1, 2, 3, 4, 5))), pod("p", 4), "a");
        assertThat(v.reasons()).extracting(Reason::code).containsExactly(ReasonCode.INSUFFICIENT_GPUS);
        assertThat(v.code()).isEqualTo(Status.Code.UNSCHEDULABLE);
    }

    @Test
    void moreGpusThanTheNodeHasIsUnresolvable() {
        NodeVerdict v = filter(seed(node("a", seedShape())), pod("p", 16), "a");
        assertThat(v.reasons()).extracting(Reason::code).containsExactly(ReasonCode.GPUS_EXCEED_NODE);
        assertThat(v.reasons().get(0).detail()).isEqualTo("16 needed, the node has 8");
        assertThat(v.code()).isEqualTo(Status.Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    }

    @Test
    void pairsBeyondTheMaximumDistanceInHardwareAreUnresolvableButHeldPairsAreNot() {
        // 4 GPUs, 2 HCAs: GPUs 0 and 1 PIX to mlx5_0, GPUs 2 and 3 SYS to both HCAs. A 2-GPU pod at ≤ PXB.
        PcieDistance[][] m = {{PcieDistance.PIX, PcieDistance.SYS}, {PcieDistance.PIX, PcieDistance.SYS},
                {PcieDistance.SYS, PcieDistance.SYS}, {PcieDistance.SYS, PcieDistance.SYS}};
        var shape = spec(m, new int[]{0, 0, 1, 1}, null);
        // GPUs 0 and 1 held by a pod: the two that pair at PXB would come back if it left
        NodeVerdict held = filter(seed(node("a", shape, Set.of(0, 1))), pod("p", 2), "a");
        assertThat(held.reasons()).extracting(Reason::code).containsExactly(ReasonCode.GPU_PAIRS_HELD);
        assertThat(held.reasons().get(0).summary()).isEqualTo("no free GPU pair at ≤ PXB");
        assertThat(held.reasons().get(0).detail()).endsWith("; 2 more pair so but are held by pods on the node");
        assertThat(held.code()).isEqualTo(Status.Code.UNSCHEDULABLE);
        // the same node empty, a 3-GPU pod: only 2 of its 4 GPUs ever pair at PXB
        NodeVerdict hardware = filter(seed(node("a", shape)), pod("p", 3), "a");
        assertThat(hardware.reasons()).extracting(Reason::code).containsExactly(ReasonCode.NO_GPU_PAIR_WITHIN_DISTANCE);
        assertThat(hardware.reasons().get(0).detail()).endsWith("; 2 of the node's 4 GPUs pair so, free or not");
        assertThat(hardware.code()).isEqualTo(Status.Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    }

    @Test
    void anExhaustedPoolIsUnschedulableAloneAndUnresolvableBesideAMissingResource() {
        PodRequest onLan5 = new PodRequest("prod", "p", 2, Map.of(),
                PodNetworksRequest.ofAnnotation("prod", "rdma-net-ipam-lan5"), false);
        NodeVerdict dry = filter(seed(node("a", seedShape())), onLan5, "a");
        assertThat(dry.reasons()).extracting(Reason::code).containsExactly(ReasonCode.POOL_EXHAUSTED);
        assertThat(dry.code()).isEqualTo(Status.Code.UNSCHEDULABLE);

        // one reason no eviction removes makes the node unresolvable, whatever else is wrong with it
        PodRequest alsoMlx53 = new PodRequest("prod", "p", 2, Map.of("nvidia.com/mlx5_3", 1L),
                PodNetworksRequest.ofAnnotation("prod", "rdma-net-ipam-lan5"), false);
        NodeVerdict both = filter(seed(node("a", seedShape())), alsoMlx53, "a");
        assertThat(both.reasons()).extracting(Reason::code)
                .containsExactly(ReasonCode.HCA_RESOURCE_MISSING, ReasonCode.POOL_EXHAUSTED);
        assertThat(both.code()).isEqualTo(Status.Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    }

    @Test
    void aNeutralPassIsASuccessThatSaysWhy() {
        NodeVerdict v = NodeVerdict.neutral("n", "node n has no NodeTopology");
        assertThat(v.feasible()).isTrue();
        assertThat(v.neutral()).isTrue();
        assertThat(v.code()).isEqualTo(Status.Code.SUCCESS);
        assertThat(v.describe()).isEqualTo("node n has no NodeTopology");
        assertThat(NodeVerdict.pass("n").neutral()).isFalse();
        assertThat(NodeVerdict.pass("n").describe()).isEqualTo("fits");
    }
}
