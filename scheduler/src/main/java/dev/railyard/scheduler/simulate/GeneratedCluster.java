package dev.railyard.scheduler.simulate;

import dev.railyard.api.topology.DiscoverySource;
import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaDistance;
import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.HcaPort;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.NodeState;
import dev.railyard.topology.fabric.FabricModel;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A generated rail-optimised cluster for the simulator and benchmarks.
 *
 * <p>Nodes come in scalable units (SU) of {@value #SU_SIZE}; rail r of every node of an SU is cabled to that SU's leaf
 * r. With 2 tiers or more, the rail-r leaves of {@value #GROUP} consecutive units (or lower-tier groups) share the
 * rail-r switch of the next tier; the top tier joins every rail plane. Machine shapes, by SU in rotation:
 * <ul>
 *   <li>{@code dgx}: the case-01 shape (DGX/HGX H100): 8 GPUs, 8 HCAs, GPU i PIX to HCA i, NODE to the other HCAs of
 *       its socket, SYS across sockets; 8 rails;</li>
 *   <li>{@code hgx4}: the case-05 shape (H100 with 4 GPU NICs): 8 GPUs, 4 HCAs, HCA k PIX to GPU 2k; the odd GPUs
 *       reach every HCA only at SYS (paired with their even neighbour's HCA); 4 rails.</li>
 * </ul>
 */
public final class GeneratedCluster {
    /** Nodes per scalable unit. */
    public static final int SU_SIZE = 32;
    /** Units (or groups) per switch group of the next tier. */
    public static final int GROUP = 4;

    private GeneratedCluster() {
    }

    /**
     * @param nodes    number of nodes, ≥ 1
     * @param tiers    switch tiers, 1..4
     * @param machines machine mix: {@code dgx:3,hgx4:1} means per 4 SUs three dgx and one hgx4
     * @return the cluster (no networks, no pools)
     * @throws IllegalArgumentException on bad arguments
     */
    public static ClusterSnapshot build(int nodes, int tiers, String machines) {
        if (nodes < 1 || tiers < 1 || tiers > 4) {
            throw new IllegalArgumentException("need nodes ≥ 1 and tiers 1..4 (got " + nodes + ", " + tiers + ")");
        }
        List<String> rotation = new ArrayList<>();
        for (String part : machines.split(",")) {
            String[] kv = part.trim().split(":");
            if (kv.length != 2 || !(kv[0].equals("dgx") || kv[0].equals("hgx4"))) {
                throw new IllegalArgumentException("machine mix entry '" + part + "' is not dgx:N or hgx4:N");
            }
            int n;
            try {
                n = Integer.parseInt(kv[1].trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("machine mix entry '" + part + "': count is not a number");
            }
            if (n < 0) {
                throw new IllegalArgumentException("machine mix entry '" + part + "': count must be 0 or more");
            }
            for (int i = 0; i < n; i++) {
                rotation.add(kv[0]);
            }
        }
        if (rotation.isEmpty()) {
            throw new IllegalArgumentException("empty machine mix");
        }
        NodeTopologySpec dgx = dgx();
        NodeTopologySpec hgx4 = hgx4();
        int sus = (nodes + SU_SIZE - 1) / SU_SIZE;
        FabricModel.Builder b = FabricModel.builder(FabricModel.Source.GENERATED,
                String.format(Locale.ROOT, "generated %d-tier rail-optimised fabric", tiers));
        int rails = 8;
        for (int r = 0; r < rails; r++) {
            for (int su = 0; su < sus; su++) {
                b.addSwitch(name(1, su, r, tiers), null, 1, tiers >= 2 ? List.of(name(2, su / GROUP, r, tiers))
                        : List.of());
            }
            int groups = sus;
            for (int t = 2; t <= tiers; t++) {
                groups = (groups + GROUP - 1) / GROUP;
                int count = t == tiers ? 1 : groups;
                for (int g = 0; g < count; g++) {
                    b.addSwitch(name(t, g, r, tiers), null, t, t < tiers ? List.of(name(t + 1, g / GROUP, r, tiers))
                            : List.of());
                }
            }
        }
        List<NodeState> out = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            int su = i / SU_SIZE;
            String type = rotation.get(su % rotation.size());
            NodeTopologySpec spec = type.equals("dgx") ? dgx : hgx4;
            String name = String.format(Locale.ROOT, "su%03d-n%02d", su, i % SU_SIZE);
            out.add(new NodeState(name, Map.of("railyard.dev/machine", type), spec, Set.of(), List.of(), true));
            int nr = type.equals("dgx") ? 8 : 4;
            for (int r = 0; r < nr; r++) {
                b.attach(name, r, name(1, su, r, tiers));
            }
        }
        return new ClusterSnapshot(out, List.of(), b.build(), null);
    }

    private static String name(int tier, int group, int rail, int tiers) {
        if (tier == 1) {
            return String.format(Locale.ROOT, "leaf%03d-r%d", group, rail);
        }
        if (tier == tiers) {
            return "core-r" + rail;
        }
        return String.format(Locale.ROOT, "spine%d-%03d-r%d", tier, group, rail);
    }

    /** The case-01 shape. */
    public static NodeTopologySpec dgx() {
        PcieDistance[][] m = new PcieDistance[8][8];
        int[] home = new int[8];
        for (int g = 0; g < 8; g++) {
            home[g] = g;
            for (int h = 0; h < 8; h++) {
                m[g][h] = g == h ? PcieDistance.PIX : (g / 4 == h / 4) ? PcieDistance.NODE : PcieDistance.SYS;
            }
        }
        return spec(m, home);
    }

    /** The case-05 shape (odd GPUs SYS to every HCA, paired with their even neighbour's HCA). */
    public static NodeTopologySpec hgx4() {
        PcieDistance[][] m = new PcieDistance[8][4];
        int[] home = new int[8];
        for (int g = 0; g < 8; g++) {
            home[g] = g / 2;
            for (int h = 0; h < 4; h++) {
                m[g][h] = g % 2 == 0 && g / 2 == h ? PcieDistance.PIX : PcieDistance.SYS;
            }
        }
        return spec(m, home);
    }

    private static NodeTopologySpec spec(PcieDistance[][] m, int[] home) {
        List<Gpu> gpus = new ArrayList<>();
        List<Hca> hcas = new ArrayList<>();
        List<GpuHcaDistance> ds = new ArrayList<>();
        List<GpuHcaPair> pairs = new ArrayList<>();
        for (int h = 0; h < m[0].length; h++) {
            hcas.add(new Hca("mlx5_" + h, null, null, List.of(new HcaPort(1, "InfiniBand", "ACTIVE", 400,
                    List.of(), null)), null, null));
        }
        for (int g = 0; g < m.length; g++) {
            gpus.add(new Gpu(g, null, null, g < m.length / 2 ? 0 : 1, "H100", List.of(), null));
            for (int h = 0; h < m[0].length; h++) {
                ds.add(new GpuHcaDistance(g, "mlx5_" + h, m[g][h]));
            }
            pairs.add(new GpuHcaPair(g, "mlx5_" + home[g], m[g][home[g]], home[g]));
        }
        return new NodeTopologySpec(DiscoverySource.NVIDIA_SMI, true, List.of(), gpus, hcas, List.of(), List.of(),
                ds, pairs, List.of());
    }
}
