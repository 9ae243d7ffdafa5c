package dev.railyard.topology;

import dev.railyard.api.topology.DiscoverySource;
import dev.railyard.api.topology.ExcludedHca;
import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaDistance;
import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.Locality;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.topology.discovery.TopologyFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

import static dev.railyard.topology.FixturePairingTest.pairs;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 17's fixtures, one test each: 2025–2026 hardware and the inputs users paste. Every fixture cites its public
 * source in its own header comment; the expected pairs are read off the text by hand, as the comment of each test
 * says. Formats: {@code docs/formats/}.
 */
class HardwareFixturePairingTest {

    @Test
    void gb200TrayMatrixCannotTellWhichNicIsOnWhichGraceSocket() {
        // sglang#11208: GPU rows say NV18 between the 4 GPUs, SYS to all 6 NICs, NUMA Affinity "0,3-9,11-17" (GPU0,
        // GPU1: CPU node 0) and "1,19-25,27-33" (GPU2: node 1), GPU NUMA ID 2/10/18 (coherent GPU memory: C2C).
        // nvidia-smi gives no NIC affinity, and GPU3's row stops after NIC0 (line 9), NIC rows are missing. A person
        // reading it knows the GPUs' sockets but not the NICs': no pair can be given.
        NodeTopologySpec node = read("fixtures/gb200-4gpu-tray-topo-m.txt");

        assertThat(node.pairs()).isEmpty();
        assertThat(node.excluded()).isEmpty();
        assertThat(node.locality().basis()).isEqualTo(Locality.Basis.UNDETERMINED);
        assertThat(node.locality().reason()).startsWith("GPU0, GPU1, GPU2 reach the CPU over NVLink-C2C")
                .contains("no NIC's NUMA node").contains("pair from sysfs");
        assertThat(node.gpus()).extracting(Gpu::numaNode).containsExactly(0, 0, 1, null);
        assertThat(node.gpus()).extracting(Gpu::c2c).containsExactly(true, true, true, null);
        assertThat(node.distances()).extracting(GpuHcaDistance::distance).containsOnly(PcieDistance.SYS)
                .hasSize(3 * 6 + 1);
        assertThat(node.complete()).isFalse();
        assertWarnings(node, ":9:44: row GPU3 ends after 5 of 10 cells", "no row for NIC0",
                "pairing: not paired: GPU0, GPU1, GPU2 reach the CPU over NVLink-C2C");
    }

    @Test
    void gb200MatrixWithNodeCellsPairsEachGpuWithANicOfItsOwnGraceAtP2c(@TempDir Path dir) throws IOException {
        // Hand-edited from the sglang#11208 matrix (not a real output: public GB200 matrices are all SYS): GPU3's row
        // completed like GPU2's with GPU NUMA ID 26, and NODE where a NIC is on the GPU's own Grace (NIC0/NIC1 on
        // CPU node 0 with GPU0/GPU1, NIC2/NIC3 on node 1 with GPU2/GPU3); NIC4/NIC5 SYS to every GPU. A C2C GPU's
        // NODE cell is NCCL's P2C (docs/formats/nvidia-smi-topo.md), so each GPU takes a NIC of its socket, and the
        // two NICs with no GPU nearer than SYS, fewer than the GPUs, are excluded as front-end ports.
        String text = """
                        GPU0    GPU1    GPU2    GPU3    NIC0    NIC1    NIC2    NIC3    NIC4    NIC5    CPU Affinity    NUMA Affinity   GPU NUMA ID
                GPU0     X      NV18    NV18    NV18    NODE    NODE    SYS     SYS     SYS     SYS     0-71    0,3-9,11-17             2
                GPU1    NV18     X      NV18    NV18    NODE    NODE    SYS     SYS     SYS     SYS     0-71    0,3-9,11-17             10
                GPU2    NV18    NV18     X      NV18    SYS     SYS     NODE    NODE    SYS     SYS     72-143  1,19-25,27-33           18
                GPU3    NV18    NV18    NV18     X      SYS     SYS     NODE    NODE    SYS     SYS     72-143  1,19-25,27-33           26

                NIC Legend:

                  NIC0: mlx5_0
                  NIC1: mlx5_1
                  NIC2: mlx5_2
                  NIC3: mlx5_3
                  NIC4: mlx5_4
                  NIC5: mlx5_5
                """;
        Path file = Files.writeString(dir.resolve("gb200-node.txt"), text);
        NodeTopologySpec node = new TopologyReader().read(file, TopologyFormat.AUTO);

        assertThat(node.distances()).filteredOn(d -> d.gpu() == 0).extracting(GpuHcaDistance::distance)
                .containsExactly(PcieDistance.P2C, PcieDistance.P2C, PcieDistance.SYS, PcieDistance.SYS,
                        PcieDistance.SYS, PcieDistance.SYS);
        assertThat(node.pairs()).containsExactlyElementsOf(pairs("0 mlx5_0 P2C 0", "1 mlx5_1 P2C 1",
                "2 mlx5_2 P2C 2", "3 mlx5_3 P2C 3"));
        assertThat(node.excluded()).extracting(ExcludedHca::hca).containsExactly("mlx5_4", "mlx5_5");
        assertThat(node.locality().basis()).isEqualTo(Locality.Basis.NUMA);
        // the NIC rows are left out of the text: known only from the GPU rows, which the reader says
        assertThat(node.complete()).isFalse();
        assertWarnings(node, "no row for NIC0");
    }

    @Test
    void b300WithConnectX8PairsEachGpuWithTheNicOnItsOwnSwitchAtPxb() {
        // case-47: each GPU row has one PXB (GPUi -> NICi), no PIX anywhere; rows GPU6/GPU7 and the NIC rows are not
        // in the stored copy. PXB is the best class here and keeps GPUDirect RDMA. NIC6/NIC7 are SYS to GPU0-3 and
        // NODE to GPU4/5, their distance to GPU6/7 unknown: neither rail nor excluded (the header's expectation).
        NodeTopologySpec node = read("fixtures/case-47-b300-cx8-gpu-behind-nic-switch-pxb.txt");

        assertThat(node.pairs()).containsExactlyElementsOf(pairs("0 NIC0 PXB 0", "1 NIC1 PXB 1", "2 NIC2 PXB 2",
                "3 NIC3 PXB 3", "4 NIC4 PXB 4", "5 NIC5 PXB 5"));
        assertThat(node.pairs()).allMatch(p -> p.distance().gpuDirectByDefault());
        assertThat(node.excluded()).isEmpty();
        assertThat(node.locality()).isEqualTo(Locality.PCIE);
        assertThat(node.complete()).isFalse();
        assertWarnings(node, ":9:5: row GPU6 ends after 0 of 16 cells", "no row for GPU7", "pairing: GPU6 not paired",
                "pairing: GPU7 not paired",
                "pairing: NIC6, NIC7 are neither rail nor excluded");
    }

    @Test
    void h200NcclXmlCutMidElementIsReadAsFarAsItGoes() {
        // nccl-tests#256: the dump ends inside the start tag of the second switch (line 22). What was read: GPU0
        // (18:00.0) and mlx5_0 (19:00.0) under switch 16:00.0: PIX. The warning names the open elements.
        NodeTopologySpec node = read("nccl/h200-cut-mid-element.xml");

        assertThat(node.source()).isEqualTo(DiscoverySource.NCCL_XML);
        assertThat(node.pairs()).containsExactly(new GpuHcaPair(0, "mlx5_0", PcieDistance.PIX, 0));
        assertThat(node.complete()).isFalse();
        assertWarnings(node, "h200-cut-mid-element.xml:22:", "the file ends inside <cpu numaid=\"0\"> (opened at line 6)"
                + " and 1 enclosing element: a cut dump, read as far as it goes");
    }

    @Test
    void lspciTreeOfAnHgxPairsEachGpuWithTheNicOnItsSwitch() {
        // Each GPU (buses 18, 29, 3a, 4b, 9a, ab, b8, d9) shares a switch with one ConnectX-7 (the bus after it):
        // PIX. The NVSwitch (bus 01) is not a GPU. The dual-port card on bus 65 is under a root port of its own: SYS
        // to every GPU (no NUMA in lspci) while the others are PIX: front-end, excluded. HCAs are named by bus id.
        NodeTopologySpec node = read("fixtures/lspci-hgx-h100-8gpu-tree.txt");

        assertThat(node.source()).isEqualTo(DiscoverySource.LSPCI);
        assertThat(node.gpus()).extracting(Gpu::pciBusId).containsExactly("0000:18:00.0", "0000:29:00.0",
                "0000:3a:00.0", "0000:4b:00.0", "0000:9a:00.0", "0000:ab:00.0", "0000:b8:00.0", "0000:d9:00.0");
        assertThat(node.pairs()).containsExactlyElementsOf(pairs("0 0000:19:00.0 PIX 0", "1 0000:2a:00.0 PIX 1",
                "2 0000:3b:00.0 PIX 2", "3 0000:4c:00.0 PIX 3", "4 0000:9b:00.0 PIX 4", "5 0000:ac:00.0 PIX 5",
                "6 0000:b9:00.0 PIX 6", "7 0000:da:00.0 PIX 7"));
        assertThat(node.excluded()).extracting(ExcludedHca::hca).containsExactly("0000:65:00.0", "0000:65:00.1");
        assertThat(node.excluded()).allMatch(x -> x.reason().startsWith("SYS to every GPU while 0000:19:00.0 is PIX"));
        assertThat(node.complete()).isTrue();
        assertWarnings(node, "lspci shows no NUMA nodes", "named by PCI bus id");
    }

    @Test
    void lspciTreeOfAVirtualMachineCannotTell() {
        // nccl-tests#256 VM: every GPU and NIC on its own virtual root port of bus 00 (QEMU/virtio devices around
        // them): every GPU-NIC pair is PHB and says nothing about the host. A person reading it cannot pair.
        NodeTopologySpec node = read("fixtures/lspci-vm-guest-h200-8gpu-tree.txt");

        assertThat(node.gpus()).hasSize(8);
        assertThat(node.hcas()).hasSize(8);
        assertThat(node.distances()).extracting(GpuHcaDistance::distance).containsOnly(PcieDistance.PHB);
        assertThat(node.pairs()).isEmpty();
        assertThat(node.excluded()).isEmpty();
        assertThat(node.locality().basis()).isEqualTo(Locality.Basis.UNDETERMINED);
        assertThat(node.locality().reason()).startsWith("a virtual machine's PCIe tree");
        assertThat(node.complete()).isTrue();
    }

    @Test
    void containerViewOfTwoGpusExcludesNoNicForLackOfAVisibleGpu() {
        // sglang#28659/#29162: 2 of 8 B300 GPUs, 24 NICs. GPU0 is PXB to NIC20/NIC21, GPU1 to NIC22/NIC23; every
        // other NIC is NODE or SYS to both. 20 NICs have no visible GPU near them, more than the 2 GPUs: a partial
        // view, so none is excluded. GPU0 -> mlx5_20, GPU1 -> mlx5_22 (the lower of each PXB pair); mlx5_21 and
        // mlx5_23 (each GPU's second ConnectX-8 function) are spares.
        NodeTopologySpec node = read("fixtures/b300-2gpu-container-view-24nic.txt");

        assertThat(node.pairs()).containsExactlyElementsOf(pairs("0 mlx5_20 PXB 0", "1 mlx5_22 PXB 1"));
        assertThat(node.excluded()).isEmpty();
        assertThat(node.complete()).isFalse();
        assertWarnings(node, "no row for NIC0",
                "pairing: this view shows 2 GPUs and 24 candidate HCAs, 20 of which have no GPU nearer",
                "pairing: mlx5_21, mlx5_23 are spares",
                "pairing: mlx5_0, mlx5_1, mlx5_2, mlx5_3, mlx5_4 and 15 more are neither rail nor excluded");
    }

    private static void assertWarnings(NodeTopologySpec node, String... fragments) {
        for (String w : fragments) {
            assertThat(node.warnings()).as("warnings").anySatisfy(actual -> assertThat(actual).contains(w));
        }
    }

    static NodeTopologySpec read(String resource) {
        return new TopologyReader().read(resource(resource), TopologyFormat.AUTO);
    }

    static Path resource(String name) {
        try {
            return Path.of(Objects.requireNonNull(HardwareFixturePairingTest.class.getResource("/" + name), name)
                    .toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static List<GpuHcaPair> none() {
        return List.of();
    }
}
