package dev.railyard.scheduler.engine;

import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.api.hints.FabricScope;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.scheduler.ipam.AddressPools;
import dev.railyard.scheduler.ipam.NetworkVerdict;
import dev.railyard.scheduler.ipam.PodNetworksRequest;
import dev.railyard.scheduler.ipam.PodPlacement;
import dev.railyard.scheduler.ipam.PoolAudit;
import dev.railyard.scheduler.ipam.PoolDemand;
import dev.railyard.scheduler.ipam.PoolReason;
import dev.railyard.scheduler.ipam.PoolStatus;
import dev.railyard.scheduler.ipam.PoolVerdict;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.railyard.scheduler.engine.EngineFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

class PlacementEngineTest {
    private final PlacementEngine engine = new PlacementEngine();

    /** Pools with a fixed free count for one pool name, per node when {@code perNode}. */
    record FixedPools(long free, long usable) implements AddressPools {
        @Override
        public PoolVerdict check(List<PoolDemand> demands) {
            long need = demands.stream().mapToLong(PoolDemand::pods).sum();
            PoolStatus s = new PoolStatus("192.168.16.0-22", "kube-system", null, "192.168.16.0/22",
                    "192.168.16.1-192.168.19.254", usable, usable - free, 0, 0, free, need, List.of(), List.of());
            boolean ok = s.enough();
            NetworkVerdict nv = new NetworkVerdict("prod/rdma-net-ipam-lan5", "net1", "lan5",
                    ok ? PoolReason.OK : PoolReason.POOL_EXHAUSTED, "network prod/rdma-net-ipam-lan5 (net1): "
                    + s.describe(), List.of(s), List.<String>of());
            return new PoolVerdict(ok ? PoolReason.OK : PoolReason.POOL_EXHAUSTED, nv.message(), List.of(nv));
        }

        @Override
        public PoolVerdict reserve(List<PodPlacement> placements) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int release(String podRef) {
            return 0;
        }

        @Override
        public List<PoolAudit> audit() {
            return List.of();
        }
    }

    private static ClusterSnapshot seedCluster(AddressPools pools, NodeState... nodes) {
        return new ClusterSnapshot(List.of(nodes), List.of(
                new SecondaryNetwork("prod", "rdma-net-ipam-lan2", "lan2", "192.168.4.0/22", "192.168.4.0-22"),
                new SecondaryNetwork("prod", "rdma-net-ipam-lan5", "lan5", "192.168.16.0/22", "192.168.16.0-22"),
                new SecondaryNetwork("prod", "storage", "ens9", "10.9.0.0/16", "10.9.0.0-16")),
                railOptimised(List.of(List.of("a", "b"), List.of("c")), 4, 2), pools);
    }

    private static PodRequest seedPod(String networks, Map<String, Long> res, int gpus) {
        return new PodRequest("prod", "p", gpus, res, PodNetworksRequest.ofAnnotation("prod", networks), false);
    }

    @Test
    void filterNamesMissingResourcesNetdevsAndDryPools() {
        NodeState a = new NodeState("a", Map.of(), seedShape(), Set.of(), List.of(
                new HcaResource("nvidia.com/mlx5_0", "mlx5_0", 100, 100)), true);
        ClusterSnapshot snap = seedCluster(new FixedPools(0, 1022), a);
        PodRequest pod = seedPod("rdma-net-ipam-lan2,storage", Map.of("nvidia.com/mlx5_0", 1L,
                "nvidia.com/mlx5_3", 1L), 2);
        NodeVerdict v = engine.filter(snap, pod, PlacementPolicy.defaults(), "a", GangContext.none());
        assertThat(v.reasons()).extracting(Reason::code).containsExactly(ReasonCode.HCA_RESOURCE_FULL,
                ReasonCode.HCA_RESOURCE_MISSING, ReasonCode.NETWORK_MASTER_MISSING, ReasonCode.POOL_EXHAUSTED);
        assertThat(v.reasons().get(0).detail()).isEqualTo("nvidia.com/mlx5_0: 0 of 100 slots free, 1 needed");
        assertThat(v.reasons().get(2).detail()).isEqualTo("network prod/storage: master ens9 is not on the node");
        assertThat(v.reasons().get(3).detail()).contains("0 of 1022 free");
    }

    @Test
    void filterChecksTheGangsRailSetAndScope() {
        ClusterSnapshot snap = seedCluster(null, node("a", seedShape(), Set.of(0, 1)), node("b", seedShape()),
                node("c", seedShape()));
        PodRequest pod = pod("p", 2);
        PlacementPolicy strict = policy(AffinityPolicy.REQUIRED, AffinityPolicy.REQUIRED,
                new FabricScope(1, true));
        // gang members on rails {0×2} (GPUs 0,1 of their nodes); a has them busy
        GangContext ctx = new GangContext(List.of("b"), new RailVector(new int[]{2}));
        assertThat(engine.filter(snap, pod, strict, "a", ctx).reasons()).extracting(Reason::summary)
                .containsExactly("rail set {0×2} unavailable");
        // c is in another scalable unit: tier 2 from b, scope allows tier 1
        NodeVerdict vc = engine.filter(snap, pod, strict, "c", ctx);
        assertThat(vc.reasons()).extracting(Reason::code).containsExactly(ReasonCode.OUTSIDE_FABRIC_SCOPE);
        assertThat(vc.reasons().get(0).detail()).isEqualTo("tier 2 (spine) from the gang's members, scope allows "
                + "leaf (required)");
        assertThat(engine.filter(snap, pod, strict, "b", ctx).feasible()).isTrue();
    }

    @Test
    void membersAlreadySpanningMoreThanTheScopeWidenItToTheirDomainInFilterAsInThePlanner() {
        // the fabric of the test above: a and b share a leaf (scalable unit 1), c is in another unit (tier 2, spine).
        // Members bound on b and c (one bound elsewhere than planned) already span the spine: a required leaf scope
        // would refuse every node and leave the gang half placed, so Filter allows the spine, as GangPlanner does
        ClusterSnapshot snap = seedCluster(null, node("a", seedShape()), node("b", seedShape()),
                node("c", seedShape()));
        PodRequest pod = pod("p", 2);
        PlacementPolicy strict = policy(AffinityPolicy.REQUIRED, AffinityPolicy.REQUIRED,
                new FabricScope(1, true));
        GangContext spread = new GangContext(List.of("b", "c"), new RailVector(new int[]{2}));
        assertThat(engine.filter(snap, pod, strict, "a", spread).feasible()).isTrue();
        assertThat(engine.filter(snap, pod, strict, "c", spread).feasible()).isTrue();
        // members inside the scope: not widened (the test above: c is refused next to b alone)
        assertThat(engine.filter(snap, pod, strict, "c", new GangContext(List.of("a", "b"),
                new RailVector(new int[]{2}))).reasons()).extracting(Reason::code)
                .containsExactly(ReasonCode.OUTSIDE_FABRIC_SCOPE);
    }

    @Test
    void scoreBreaksDown() {
        ClusterSnapshot snap = seedCluster(new FixedPools(511, 1022), node("a", seedShape()),
                node("b", seedShape(), Set.of(0, 1, 2, 3, 4, 5)), node("c", seedShape()));
        PodRequest pod = seedPod("rdma-net-ipam-lan5", Map.of(), 2);
        GangContext ctx = new GangContext(List.of("a"), null);
        NodeScore sb = engine.score(snap, pod, PlacementPolicy.defaults(), "b", ctx);
        NodeScore sc = engine.score(snap, pod, PlacementPolicy.defaults(), "c", ctx);
        Map<String, Integer> b = terms(sb);
        Map<String, Integer> c = terms(sc);
        // lan5 is mlx5_3: GPUs 6,7 PIX on both nodes
        assertThat(b.get("pairing")).isEqualTo(100);
        // b shares a's leaves (1 hop of max 2*4-1 = 7); c is in the other unit, under the same spines (3 hops)
        assertThat(b.get("proximity")).isEqualTo(86);
        assertThat(c.get("proximity")).isEqualTo(57);
        // fragmentation = 50·(1 − broken groups / groups) + 50·(1 − free GPUs left / GPUs): b is left with none
        // free: 100; c takes the whole group {6,7} (no broken group) and keeps 6 of 8: 50 + 50·2/8 = 62.5 -> 63
        assertThat(b.get("fragmentation")).isEqualTo(100);
        assertThat(c.get("fragmentation")).isEqualTo(63);
        // (511 - 1) / 1022 of the pool left
        assertThat(b.get("ipHeadroom")).isEqualTo(50);
        assertThat(sb.score()).isGreaterThan(sc.score());
        // weighted mean: (35*100 + 25*86 + 20*100 + 10*100 + 10*50) / 100 = 91.5 -> 92 (rounded half up)
        assertThat(sb.score()).isEqualTo(92);
    }

    private static Map<String, Integer> terms(NodeScore s) {
        Map<String, Integer> m = new java.util.HashMap<>();
        s.terms().forEach(t -> m.put(t.name(), t.value()));
        return m;
    }

    @Test
    void filterWithPreferredAffinityDoesNotRejectFarPairs() {
        PcieDistance[][] far = {{PcieDistance.SYS}, {PcieDistance.SYS}};
        ClusterSnapshot snap = cluster(List.of(node("n", spec(far, new int[]{0, 0}, null))),
                dev.railyard.topology.fabric.FabricModel.empty());
        PlacementPolicy preferred = policy(AffinityPolicy.PREFERRED, AffinityPolicy.PREFERRED, FabricScope.ANY);
        assertThat(engine.filter(snap, pod("p", 2), preferred, "n", GangContext.none()).feasible()).isTrue();
        NodeVerdict required = engine.filter(snap, pod("p", 2), PlacementPolicy.defaults(), "n", GangContext.none());
        assertThat(required.reasons()).extracting(Reason::summary).containsExactly("too few GPUs pair at ≤ PXB");
        // both GPUs are free and reach the only HCA at SYS: the hardware, not other pods, is in the way
        assertThat(required.code()).isEqualTo(Status.Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
    }

    @Test
    void oneGpuIsSaidInTheSingular() {
        // two GPUs, both SYS from the only HCA: a 1-GPU pod finds none within PXB (was: "1 GPUs needed")
        PcieDistance[][] far = {{PcieDistance.SYS}, {PcieDistance.SYS}};
        ClusterSnapshot snap = cluster(List.of(node("n", spec(far, new int[]{0, 0}, null))),
                dev.railyard.topology.fabric.FabricModel.empty());
        assertThat(engine.filter(snap, pod("p", 1), PlacementPolicy.defaults(), "n", GangContext.none()).reasons())
                .extracting(Reason::detail).singleElement().asString()
                .startsWith("1 GPU needed at ≤ PXB from the pod's HCAs, 0 qualify (");
    }
}
