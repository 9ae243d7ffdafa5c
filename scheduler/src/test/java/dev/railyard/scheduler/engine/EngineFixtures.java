package dev.railyard.scheduler.engine;

import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.api.hints.FabricScope;
import dev.railyard.api.topology.DiscoverySource;
import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaDistance;
import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.HcaPort;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.topology.fabric.FabricModel;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Hand-made node topologies and clusters for engine tests. */
final class EngineFixtures {
    private EngineFixtures() {
    }

    /**
     * A node topology built from a GPU × HCA distance matrix; GPU i's pair is {@code home[i]} (an HCA index, or -1),
     * and rails are numbered by HCA index.
     */
    static NodeTopologySpec spec(PcieDistance[][] matrix, int[] home, String[] netdevs) {
        int gpus = matrix.length;
        int hcas = matrix[0].length;
        List<Gpu> gs = new ArrayList<>();
        for (int g = 0; g < gpus; g++) {
            gs.add(new Gpu(g, null, null, null, null, List.of(), null));
        }
        List<Hca> hs = new ArrayList<>();
        for (int h = 0; h < hcas; h++) {
            List<String> nd = netdevs == null ? List.of() : List.of(netdevs[h]);
            hs.add(new Hca("mlx5_" + h, null, null, List.of(new HcaPort(1, "Ethernet", "ACTIVE", 400, nd, null)),
                    null, null));
        }
        List<GpuHcaDistance> ds = new ArrayList<>();
        for (int g = 0; g < gpus; g++) {
            for (int h = 0; h < hcas; h++) {
                ds.add(new GpuHcaDistance(g, "mlx5_" + h, matrix[g][h]));
            }
        }
        List<GpuHcaPair> pairs = new ArrayList<>();
        for (int g = 0; g < gpus; g++) {
            if (home[g] >= 0) {
                pairs.add(new GpuHcaPair(g, "mlx5_" + home[g], matrix[g][home[g]], home[g]));
            }
        }
        return new NodeTopologySpec(DiscoverySource.NVIDIA_SMI, true, List.of(), gs, hs, List.of(), List.of(), ds,
                pairs, List.of());
    }

    /**
     * The case-01 shape (DGX H100): 8 GPUs, 8 HCAs, GPU i PIX to mlx5_i, NODE to the other HCAs of its socket
     * (GPUs/HCAs 0–3 on NUMA 0, 4–7 on NUMA 1), SYS across sockets; netdevs lan2..lan9.
     */
    static NodeTopologySpec dgx() {
        PcieDistance[][] m = new PcieDistance[8][8];
        int[] home = new int[8];
        String[] nd = new String[8];
        for (int g = 0; g < 8; g++) {
            home[g] = g;
            nd[g] = "lan" + (g + 2);
            for (int h = 0; h < 8; h++) {
                m[g][h] = g == h ? PcieDistance.PIX : (g / 4 == h / 4) ? PcieDistance.NODE : PcieDistance.SYS;
            }
        }
        return spec(m, home, nd);
    }

    /** Seed shape: 8 GPUs, 4 HCAs (lan2..lan5), GPUs 2k and 2k+1 PIX to mlx5_k, NODE/SYS otherwise. */
    static NodeTopologySpec seedShape() {
        PcieDistance[][] m = new PcieDistance[8][4];
        int[] home = new int[8];
        for (int g = 0; g < 8; g++) {
            home[g] = g / 2;
            for (int h = 0; h < 4; h++) {
                m[g][h] = g / 2 == h ? PcieDistance.PIX : (g / 4 == h / 2) ? PcieDistance.NODE : PcieDistance.SYS;
            }
        }
        return spec(m, home, new String[]{"lan2", "lan3", "lan4", "lan5"});
    }

    static NodeState node(String name, NodeTopologySpec spec, Set<Integer> allocated) {
        return new NodeState(name, Map.of(), spec, allocated, List.of(), true);
    }

    static NodeState node(String name, NodeTopologySpec spec) {
        return node(name, spec, Set.of());
    }

    static PodRequest pod(String name, int gpus) {
        return new PodRequest("prod", name, gpus, Map.of(), null, false);
    }

    static GangRequest gang(String name, int pods, int gpus, PlacementPolicy policy) {
        List<PodRequest> ps = new ArrayList<>();
        for (int i = 0; i < pods; i++) {
            ps.add(pod(name + "-" + i, gpus));
        }
        return new GangRequest("prod", name, ps, policy);
    }

    static PlacementPolicy policy(AffinityPolicy affinity, AffinityPolicy alignment, FabricScope scope) {
        return new PlacementPolicy(affinity, PcieDistance.PXB, alignment, scope, null, null);
    }

    static ClusterSnapshot cluster(List<NodeState> nodes, FabricModel fabric) {
        return new ClusterSnapshot(nodes, List.of(), fabric, null);
    }

    /**
     * A rail-optimised fabric: SU {@code s} holds the listed nodes; rail r of each node goes to leaf
     * {@code su<s>-leaf-r<r>}; leaves of rail r go to spine {@code spine-<group>-r<r>} where SUs are grouped
     * {@code susPerSpine} at a time; all spines go to {@code core}.
     */
    static FabricModel railOptimised(List<List<String>> sus, int rails, int susPerSpine) {
        FabricModel.Builder b = FabricModel.builder(FabricModel.Source.GENERATED, "test fabric");
        b.addSwitch("core", "core", 3, List.of());
        int groups = (sus.size() + susPerSpine - 1) / susPerSpine;
        for (int g = 0; g < groups; g++) {
            for (int r = 0; r < rails; r++) {
                b.addSwitch("spine-" + g + "-r" + r, null, 2, List.of("core"));
            }
        }
        for (int s = 0; s < sus.size(); s++) {
            for (int r = 0; r < rails; r++) {
                b.addSwitch("su" + s + "-leaf-r" + r, null, 1, List.of("spine-" + (s / susPerSpine) + "-r" + r));
            }
            for (String n : sus.get(s)) {
                for (int r = 0; r < rails; r++) {
                    b.attach(n, r, "su" + s + "-leaf-r" + r);
                }
            }
        }
        return b.build();
    }
}
