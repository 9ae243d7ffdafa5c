package dev.railyard.scheduler.hints;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.api.hints.FabricScope;
import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.api.hints.PlacementHint;
import dev.railyard.api.topology.DiscoverySource;
import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaDistance;
import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.HcaPort;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.GangPlan;
import dev.railyard.scheduler.engine.GangPlanner;
import dev.railyard.scheduler.engine.GangRequest;
import dev.railyard.scheduler.engine.NodeState;
import dev.railyard.scheduler.engine.PlacementPolicy;
import dev.railyard.scheduler.engine.PodRequest;
import dev.railyard.scheduler.engine.SecondaryNetwork;
import dev.railyard.scheduler.ipam.PodNetworksRequest;
import dev.railyard.topology.fabric.FabricModel;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class PlacementHintsTest {
    /**
     * The seed shape (docs/seed-setup.md): 8 GPUs, mlx5_0..3 on lan2..lan5, GPUs 2k and 2k+1 PIX to mlx5_k; the other
     * HCA of the same socket NODE, the far socket SYS.
     */
    static NodeTopologySpec seedNode() {
        List<Gpu> gpus = new ArrayList<>();
        List<Hca> hcas = new ArrayList<>();
        List<GpuHcaDistance> ds = new ArrayList<>();
        List<GpuHcaPair> pairs = new ArrayList<>();
        for (int h = 0; h < 4; h++) {
            hcas.add(new Hca("mlx5_" + h, null, null, List.of(new HcaPort(1, "Ethernet", "ACTIVE", 200,
                    List.of("lan" + (h + 2)), null)), null, null));
        }
        for (int g = 0; g < 8; g++) {
            gpus.add(new Gpu(g, "GPU-" + g, String.format("0000:%02x:00.0", 0x18 + g), g / 4, "H100", List.of(), null));
            for (int h = 0; h < 4; h++) {
                ds.add(new GpuHcaDistance(g, "mlx5_" + h, g / 2 == h ? PcieDistance.PIX
                        : g / 4 == h / 2 ? PcieDistance.NODE : PcieDistance.SYS));
            }
            pairs.add(new GpuHcaPair(g, "mlx5_" + g / 2, PcieDistance.PIX, g / 2));
        }
        return new NodeTopologySpec(DiscoverySource.SYSFS, true, List.of(), gpus, hcas, List.of(), List.of(), ds, pairs,
                List.of());
    }

    static ClusterSnapshot cluster(Set<Integer> busy) {
        FabricModel.Builder f = FabricModel.builder(FabricModel.Source.GENERATED, "test");
        for (int r = 0; r < 4; r++) {
            f.addSwitch("su1-leaf-r" + r, null, 1, List.of());
            f.attach("gpu-a1", r, "su1-leaf-r" + r);
        }
        List<SecondaryNetwork> nets = new ArrayList<>();
        String[] ranges = {"192.168.4.0/22", "192.168.8.0/22", "192.168.12.0/22", "192.168.16.0/22"};
        for (int i = 0; i < 4; i++) {
            nets.add(new SecondaryNetwork("prod", "rdma-net-ipam-lan" + (i + 2), "lan" + (i + 2), ranges[i],
                    ranges[i].replace('/', '-')));
        }
        return new ClusterSnapshot(List.of(new NodeState("gpu-a1", Map.of(), seedNode(), busy, List.of(), true)),
                nets, f.build(), null);
    }

    static PodRequest pod(String networks, int gpus) {
        return new PodRequest("prod", "w-0", gpus, Map.of(), PodNetworksRequest.ofAnnotation("prod", networks), false);
    }

    @Test
    void fourGpusOnTwoNetworksGetAnExactHcaListAndTheCoveringRange() throws Exception {
        ClusterSnapshot snap = cluster(Set.of());
        PodRequest p = pod("rdma-net-ipam-lan2,rdma-net-ipam-lan3", 4);
        GangPlan plan = new GangPlanner().plan(snap, new GangRequest("prod", "job", List.of(p),
                PlacementPolicy.defaults())).plan();
        PlacementHint h = PlacementHints.hint(snap, plan, plan.pods().get(0), p);
        // lan2/lan3 are mlx5_0/mlx5_1, the HCAs of GPUs 0-3 (PIX)
        assertThat(h.gpus()).extracting(PlacementHint.GpuHint::gpu).containsExactly(0, 1, 2, 3);
        assertThat(h.gpus()).extracting(PlacementHint.GpuHint::hca)
                .containsExactly("mlx5_0", "mlx5_0", "mlx5_1", "mlx5_1");
        assertThat(h.gpus().get(2)).isEqualTo(new PlacementHint.GpuHint(2, "GPU-2", "0000:1a:00.0", "mlx5_1", 1,
                "lan3", 1, PcieDistance.PIX, "prod/rdma-net-ipam-lan3", "net2"));
        assertThat(h.nccl().ibHca()).isEqualTo("=mlx5_0:1,mlx5_1:1");
        assertThat(h.nccl().socketIfname()).isEqualTo("=eth0");
        // 192.168.4.0/22 and 192.168.8.0/22: third octets 00000100 and 00001000 share 4 bits -> /20
        assertThat(h.nccl().ibAddrRange()).isEqualTo("192.168.0.0/20");
        assertThat(h.nccl().ibAddrFamily()).isEqualTo("AF_INET");
        assertThat(h.nccl().netGdrLevel()).isNull();
        assertThat(h.fabric()).containsExactly(new PlacementHint.RailLeaf(0, "su1-leaf-r0"),
                new PlacementHint.RailLeaf(1, "su1-leaf-r1"));
        assertThat(h.rank()).isZero();
        // the node's whole rail map, networks only where the pod attaches
        assertThat(h.nodeGpus()).hasSize(8);
        assertThat(h.nodeGpus().get(6).hca()).isEqualTo("mlx5_3");
        assertThat(h.nodeGpus().get(6).network()).isNull();
        assertThat(h.nodeGpus().get(6).netdev()).isEqualTo("lan5");

        Map<String, String> a = PlacementHints.annotations(h);
        assertThat(a).containsEntry(HintAnnotations.NCCL_IB_HCA, "=mlx5_0:1,mlx5_1:1")
                .containsEntry(HintAnnotations.NCCL_IB_ADDR_RANGE, "192.168.0.0/20")
                .containsEntry(HintAnnotations.RANK, "0")
                .containsEntry(HintAnnotations.RAILS, "0,0,1,1")
                .doesNotContainKey(HintAnnotations.NCCL_NET_GDR_LEVEL);
        PlacementHint back = new ObjectMapper().readValue(a.get(HintAnnotations.PLACEMENT), PlacementHint.class);
        assertThat(back).isEqualTo(h);
    }

    @Test
    void farPairsSetTheGdrLevel() {
        // GPUs 0-3 busy: a 2-GPU pod on lan2 (mlx5_0, socket 0) must use GPUs of socket 1: SYS to mlx5_0
        ClusterSnapshot snap = cluster(Set.of(0, 1, 2, 3));
        PodRequest p = pod("rdma-net-ipam-lan2", 2);
        PlacementPolicy pol = new PlacementPolicy(AffinityPolicy.PREFERRED, PcieDistance.PXB, null, FabricScope.ANY,
                null, null);
        GangPlan plan = new GangPlanner().plan(snap, new GangRequest("prod", "job", List.of(p), pol)).plan();
        PlacementHint h = PlacementHints.hint(snap, plan, plan.pods().get(0), p);
        assertThat(h.gpus()).allMatch(g -> g.distance() == PcieDistance.SYS && g.hca().equals("mlx5_0"));
        assertThat(h.nccl().netGdrLevel()).isEqualTo("SYS");
        assertThat(h.nccl().ibAddrRange()).isEqualTo("192.168.4.0/22");

        // with lan3 reachable too, GPUs 4,5 reach mlx5_0/mlx5_1 only across the socket; on lan4 (mlx5_2, socket 1)
        // GPUs 6,7 are NODE: NCCL has no NODE class, the hint says PHB
        PodRequest q = pod("rdma-net-ipam-lan4", 2);
        ClusterSnapshot snap2 = cluster(Set.of(0, 1, 2, 3, 4, 5));
        GangPlan plan2 = new GangPlanner().plan(snap2, new GangRequest("prod", "job", List.of(q), pol)).plan();
        PlacementHint h2 = PlacementHints.hint(snap2, plan2, plan2.pods().get(0), q);
        assertThat(h2.gpus()).extracting(PlacementHint.GpuHint::distance)
                .containsOnly(PcieDistance.NODE);
        assertThat(h2.nccl().netGdrLevel()).isEqualTo("PHB");
    }
}
