package dev.railyard.topology.pairing;

import dev.railyard.api.topology.DiscoverySource;
import dev.railyard.api.topology.ExcludedHca;
import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaDistance;
import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.HcaPort;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.PcieDistance;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pairing rules of {@link RailPairing}'s Javadoc on hand-made nodes; each expected map is worked out in the comment.
 */
class RailPairingTest {
    private final RailPairing pairing = new RailPairing();

    @Test
    void neverOffersSoftwareRdmaDevicesEvenWhenTheyLookNear() {
        // case-43: NVML enumerates a SoftiWARP device (siw_eth0) as a NIC; a Soft-RoCE rxe0 likewise. Both are
        // excluded before any distance is looked at, so GPU0 takes mlx5_0 (NODE), not the "PIX" siw device.
        NodeTopologySpec node = pairing.pair(spec(gpus(1), List.of(hca("siw_eth0"), hca("rxe0"), hca("mlx5_0")),
                "0 siw_eth0 PIX", "0 rxe0 PIX", "0 mlx5_0 NODE"));

        assertThat(node.excluded()).containsExactly(
                new ExcludedHca("siw_eth0", "software RDMA device (SoftiWARP): no PCIe locality, never a rail"),
                new ExcludedHca("rxe0", "software RDMA device (Soft-RoCE): no PCIe locality, never a rail"));
        assertThat(node.pairs()).containsExactly(new GpuHcaPair(0, "mlx5_0", PcieDistance.NODE, 0));
    }

    @Test
    void excludesBondMembersAndHcasWhosePortsAreAllDown() {
        // mlx5_0/mlx5_1 are bond members (mlx5_bond_0 is the rail); mlx5_2 has both ports down; mlx5_3 has one
        // port down and one ACTIVE, so it stays a candidate
        List<Hca> hcas = List.of(
                new Hca("mlx5_0", null, 0, List.of(), "mlx5_bond_0", null),
                new Hca("mlx5_1", null, 0, List.of(), "mlx5_bond_0", null),
                new Hca("mlx5_bond_0", null, 0, List.of(), null, null),
                new Hca("mlx5_2", null, 0, List.of(port(1, "DOWN"), port(2, "PORT_DOWN")), null, null),
                new Hca("mlx5_3", null, 0, List.of(port(1, "DOWN"), port(2, "ACTIVE")), null, null));
        NodeTopologySpec node = pairing.pair(spec(gpus(2), hcas,
                "0 mlx5_0 PIX", "0 mlx5_1 PIX", "0 mlx5_bond_0 PIX", "0 mlx5_2 PIX", "0 mlx5_3 PXB",
                "1 mlx5_0 PIX", "1 mlx5_1 PIX", "1 mlx5_bond_0 PIX", "1 mlx5_2 PIX", "1 mlx5_3 PXB"));

        assertThat(node.excluded()).containsExactly(
                new ExcludedHca("mlx5_0", "member of bond mlx5_bond_0: the bond device is the rail"),
                new ExcludedHca("mlx5_1", "member of bond mlx5_bond_0: the bond device is the rail"),
                new ExcludedHca("mlx5_2", "port 1 is DOWN, port 2 is PORT_DOWN"));
        // both GPUs are PIX to the bond: 2 candidates for 2 GPUs, so GPU0 -> mlx5_bond_0, GPU1 -> mlx5_3 (PXB)
        // would cost one PXB; GPU0 -> mlx5_3 and GPU1 -> mlx5_bond_0 costs the same, and the tie-break keeps
        // ranks in order (mlx5_3 sorts before mlx5_bond_0: 3 < b)
        assertThat(node.pairs()).containsExactly(new GpuHcaPair(0, "mlx5_3", PcieDistance.PXB, 0),
                new GpuHcaPair(1, "mlx5_bond_0", PcieDistance.PIX, 1));
    }

    @Test
    void appliesTheDistanceRulesInOrderAndBalancesWhatIsLeft() {
        // 2 GPUs, 3 HCAs: A is PIX to both, B NODE to both, C SYS to both. C is SYS to every GPU while A is PIX;
        // A shares a switch with the GPUs and B shares one with none, so B is a front-end/storage port. One rail
        // HCA for 2 GPUs => ceil(2/1) = 2 GPUs on A, both PIX.
        NodeTopologySpec node = pairing.pair(spec(gpus(2), List.of(hca("A1"), hca("B1"), hca("C1")),
                "0 A1 PIX", "0 B1 NODE", "0 C1 SYS", "1 A1 PIX", "1 B1 NODE", "1 C1 SYS"));
        assertThat(node.excluded()).containsExactly(
                new ExcludedHca("B1", "shares no PCIe switch with any GPU (nearest NODE) while A1 does: a "
                        + "front-end or storage port"),
                new ExcludedHca("C1", "SYS to every GPU while A1 is PIX to GPU0"));
        assertThat(node.pairs()).containsExactly(new GpuHcaPair(0, "A1", PcieDistance.PIX, 0),
                new GpuHcaPair(1, "A1", PcieDistance.PIX, 0));
    }

    @Test
    void dropsSurplusHcasWorseThanEveryGpusNearest() {
        // 1 GPU, 3 HCAs, no switch shared: A PHB, B NODE, C NODE. More candidates (3) than GPUs (1); B and C are
        // worse than GPU0's nearest (PHB), so they are dropped and GPU0 -> A.
        NodeTopologySpec one = pairing.pair(spec(gpus(1), List.of(hca("A1"), hca("B1"), hca("C1")),
                "0 A1 PHB", "0 B1 NODE", "0 C1 NODE"));
        assertThat(one.excluded()).extracting(ExcludedHca::hca).containsExactly("B1", "C1");
        assertThat(one.excluded().getFirst().reason()).isEqualTo("at best NODE to the GPUs, worse than each GPU's "
                + "nearest HCA, with more candidate HCAs (3) than GPUs (1)");
        assertThat(one.pairs()).containsExactly(new GpuHcaPair(0, "A1", PcieDistance.PHB, 0));

        // 2 GPUs, 3 HCAs: A is NODE to GPU0 and SYS to GPU1, B SYS/NODE, C PHB/NODE. Nearest: GPU0 PHB (C),
        // GPU1 NODE (B, C). A is worse than both GPUs' nearest: dropped. B and C are each some GPU's nearest.
        NodeTopologySpec two = pairing.pair(spec(gpus(2), List.of(hca("A1"), hca("B1"), hca("C1")),
                "0 A1 NODE", "1 A1 SYS", "0 B1 SYS", "1 B1 NODE", "0 C1 PHB", "1 C1 NODE"));
        assertThat(two.excluded()).extracting(ExcludedHca::hca).containsExactly("A1");
        assertThat(two.pairs()).containsExactly(new GpuHcaPair(0, "C1", PcieDistance.PHB, 0),
                new GpuHcaPair(1, "B1", PcieDistance.NODE, 1));
    }

    @Test
    void excludesHcasSharingNoSwitchWithAnyGpuWhenOthersDo() {
        // mlx5_2 is NODE to both GPUs while mlx5_0/1 are PIX to one GPU each: a storage card
        NodeTopologySpec node = pairing.pair(spec(gpus(2), List.of(hca("mlx5_0"), hca("mlx5_1"), hca("mlx5_2")),
                "0 mlx5_0 PIX", "0 mlx5_1 NODE", "0 mlx5_2 NODE", "1 mlx5_0 NODE", "1 mlx5_1 PIX", "1 mlx5_2 NODE"));
        assertThat(node.excluded()).containsExactly(new ExcludedHca("mlx5_2", "shares no PCIe switch with any GPU "
                + "(nearest NODE) while mlx5_0 and 1 other HCA do: a front-end or storage port"));
        assertThat(node.pairs()).extracting(GpuHcaPair::hca).containsExactly("mlx5_0", "mlx5_1");
    }

    @Test
    void balancesLoadAtCeilGpusOverHcas() {
        // 8 GPUs, 2 HCAs, all PIX (one switch): ceil(8/2) = 4 GPUs per HCA, in rank order
        List<String> d = new ArrayList<>();
        for (int g = 0; g < 8; g++) {
            d.add(g + " mlx5_0 PIX");
            d.add(g + " mlx5_1 PIX");
        }
        NodeTopologySpec node = pairing.pair(spec(gpus(8), List.of(hca("mlx5_0"), hca("mlx5_1")),
                d.toArray(String[]::new)));
        assertThat(node.pairs()).extracting(p -> p.gpu() + ">" + p.hca() + "@" + p.rail()).containsExactly(
                "0>mlx5_0@0", "1>mlx5_0@0", "2>mlx5_0@0", "3>mlx5_0@0",
                "4>mlx5_1@1", "5>mlx5_1@1", "6>mlx5_1@1", "7>mlx5_1@1");
    }

    @Test
    void avoidsCrossSocketPairsFirst() {
        // GPU0: A PHB, B NODE; GPU1: A NODE, B SYS; one HCA each (no switch shared, so no HCA is excluded).
        // GPU0-A (PHB) forces GPU1-B (SYS); GPU0-B + GPU1-A is NODE + NODE. The cost is lexicographic from the
        // worst class, so no SYS pair is accepted while a pairing without one exists.
        NodeTopologySpec node = pairing.pair(spec(gpus(2), List.of(hca("A1"), hca("B1")),
                "0 A1 PHB", "0 B1 NODE", "1 A1 NODE", "1 B1 SYS"));
        assertThat(node.excluded()).isEmpty();
        assertThat(node.pairs()).containsExactly(new GpuHcaPair(0, "B1", PcieDistance.NODE, 0),
                new GpuHcaPair(1, "A1", PcieDistance.NODE, 1));
    }

    @Test
    void breaksTiesByPciBusIdWhenKnownElseByIndexAndMlx5Number() {
        // 2 GPUs x 2 HCAs, all PIX: a total tie. Without bus ids GPU0 -> mlx5_0 (lower index to lower number);
        // mlx5_10 sorts after mlx5_2 (numbers compare as numbers)
        NodeTopologySpec byName = pairing.pair(spec(gpus(2), List.of(hca("mlx5_10"), hca("mlx5_2")),
                "0 mlx5_10 PIX", "0 mlx5_2 PIX", "1 mlx5_10 PIX", "1 mlx5_2 PIX"));
        assertThat(byName.pairs()).extracting(GpuHcaPair::hca).containsExactly("mlx5_2", "mlx5_10");

        // with bus ids: mlx5_10 at 0000:1a:00.0 comes before mlx5_2 at 0000:9a:00.0, and GPU1 (0000:18:00.0)
        // before GPU0 (0000:8a:00.0): the lower bus ids pair up
        List<Gpu> gpus = List.of(new Gpu(0, null, "0000:8a:00.0", 1, null, List.of(), null),
                new Gpu(1, null, "0000:18:00.0", 0, null, List.of(), null));
        List<Hca> hcas = List.of(new Hca("mlx5_10", "0000:1a:00.0", 0, List.of(), null, null),
                new Hca("mlx5_2", "0000:9a:00.0", 1, List.of(), null, null));
        NodeTopologySpec byBus = pairing.pair(spec(gpus, hcas,
                "0 mlx5_10 PIX", "0 mlx5_2 PIX", "1 mlx5_10 PIX", "1 mlx5_2 PIX"));
        assertThat(byBus.pairs()).containsExactly(new GpuHcaPair(0, "mlx5_2", PcieDistance.PIX, 0),
                new GpuHcaPair(1, "mlx5_10", PcieDistance.PIX, 1));
    }

    @Test
    void givesTheSameRailMapWhateverOrderTheDevicesAreListedIn() {
        // case-06 shape: two 4-GPU/4-NIC PIX groups with interleaved NIC numbering, shuffled 20 times
        List<Hca> hcas = new ArrayList<>();
        List<String> d = new ArrayList<>();
        int[] group = {1, 0, 1, 0, 0, 0, 1, 1};  // NICk -> socket (case-06: NIC1,3,4,5 on socket 0)
        for (int k = 0; k < 8; k++) {
            hcas.add(hca("NIC" + k));
            for (int g = 0; g < 8; g++) {
                d.add(g + " NIC" + k + " " + (group[k] == g / 4 ? "PIX" : "SYS"));
            }
        }
        List<GpuHcaPair> expected = List.of(new GpuHcaPair(0, "NIC1", PcieDistance.PIX, 0),
                new GpuHcaPair(1, "NIC3", PcieDistance.PIX, 1), new GpuHcaPair(2, "NIC4", PcieDistance.PIX, 2),
                new GpuHcaPair(3, "NIC5", PcieDistance.PIX, 3), new GpuHcaPair(4, "NIC0", PcieDistance.PIX, 4),
                new GpuHcaPair(5, "NIC2", PcieDistance.PIX, 5), new GpuHcaPair(6, "NIC6", PcieDistance.PIX, 6),
                new GpuHcaPair(7, "NIC7", PcieDistance.PIX, 7));
        Random random = new Random(3);
        for (int i = 0; i < 20; i++) {
            List<Hca> shuffledHcas = new ArrayList<>(hcas);
            List<Gpu> shuffledGpus = new ArrayList<>(gpus(8));
            List<String> shuffledD = new ArrayList<>(d);
            Collections.shuffle(shuffledHcas, random);
            Collections.shuffle(shuffledGpus, random);
            Collections.shuffle(shuffledD, random);
            assertThat(pairing.pair(spec(shuffledGpus, shuffledHcas, shuffledD.toArray(String[]::new))).pairs())
                    .containsExactlyElementsOf(expected);
        }
    }

    @Test
    void needsEvidenceToExcludeAndLeavesUnknownGpusUnpaired() {
        // GPU1's distances are unknown: mlx5_1 is SYS to GPU0 but might be near GPU1, so it is not excluded;
        // GPU1 is not paired; mlx5_1 is reported undecided
        NodeTopologySpec node = pairing.pair(spec(gpus(2), List.of(hca("mlx5_0"), hca("mlx5_1")),
                "0 mlx5_0 PIX", "0 mlx5_1 SYS"));
        assertThat(node.excluded()).isEmpty();
        assertThat(node.pairs()).containsExactly(new GpuHcaPair(0, "mlx5_0", PcieDistance.PIX, 0));
        assertThat(node.warnings()).containsExactly(
                "pairing: GPU1 not paired: distances to mlx5_0, mlx5_1 unknown",
                "pairing: mlx5_1 is neither rail nor excluded: distances to GPU1 unknown");
    }

    @Test
    void isIdempotentAndKeepsParserWarnings() {
        NodeTopologySpec parsed = new NodeTopologySpec(DiscoverySource.NVIDIA_SMI, false, List.of("f.txt:3:4: x"),
                gpus(1), List.of(hca("mlx5_0")), List.of(), List.of(),
                List.of(new GpuHcaDistance(0, "mlx5_0", PcieDistance.NODE)), List.of(), List.of());
        NodeTopologySpec once = pairing.pair(parsed);
        assertThat(pairing.pair(once)).isEqualTo(once);
        assertThat(once.warnings()).containsExactly("f.txt:3:4: x", "pairing: GPU0 reaches its rail HCA only at "
                + "NODE; NCCL uses GPUDirect RDMA only up to PXB unless NCCL_NET_GDR_LEVEL is raised");
        assertThat(once.complete()).isFalse();
    }

    @Test
    void handlesNodesWithoutGpusOrWithoutHcas() {
        assertThat(pairing.pair(spec(List.of(), List.of(hca("mlx5_0")))).warnings())
                .containsExactly("pairing: no GPUs, nothing to pair");
        NodeTopologySpec noHca = pairing.pair(spec(gpus(2), List.of()));
        assertThat(noHca.pairs()).isEmpty();
        assertThat(noHca.warnings()).containsExactly("pairing: no HCA can serve as a rail; no GPU is paired");
    }

    // ----- helpers ----------------------------------------------------------------------------------------

    private static NodeTopologySpec spec(List<Gpu> gpus, List<Hca> hcas, String... distances) {
        List<GpuHcaDistance> d = new ArrayList<>();
        for (String s : distances) {
            String[] f = s.split(" ");
            d.add(new GpuHcaDistance(Integer.parseInt(f[0]), f[1], PcieDistance.valueOf(f[2])));
        }
        return new NodeTopologySpec(DiscoverySource.NVIDIA_SMI, true, List.of(), gpus, hcas, List.of(), List.of(),
                d, List.of(), List.of());
    }

    private static List<Gpu> gpus(int n) {
        List<Gpu> gpus = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            gpus.add(new Gpu(i, null, null, null, null, List.of(), null));
        }
        return gpus;
    }

    private static Hca hca(String name) {
        return new Hca(name, null, null, List.of(), null, null);
    }

    private static HcaPort port(int number, String state) {
        return new HcaPort(number, "Ethernet", state, null, List.of(), null);
    }
}
