package dev.railyard.topology.discovery;

import dev.railyard.api.topology.DiscoverySource;
import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaDistance;
import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.NumaNode;
import dev.railyard.api.topology.NvLink;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.topology.InputException;
import dev.railyard.topology.pairing.RailPairing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NvidiaSmiTopoParserTest {
    private final NvidiaSmiTopoParser parser = new NvidiaSmiTopoParser();
    private final RailPairing pairing = new RailPairing();

    // ----- layout -----------------------------------------------------------------------------------------

    @Test
    void readsGpusNumaNvlinksAndTheNicLegend() {
        NodeTopologySpec node = parser.parseText("case-01", fixture("case-01-dgx-h100-8gpu-8nic-1to1.txt"));

        assertThat(node.source()).isEqualTo(DiscoverySource.NVIDIA_SMI);
        assertThat(node.complete()).isTrue();
        assertThat(node.warnings()).isEmpty();
        // NIC Legend: NIC0: mlx5_0 .. NIC7: mlx5_7
        assertThat(node.hcas()).extracting(Hca::name)
                .containsExactly("mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7");
        // row GPU0: NUMA Affinity 0, CPU Affinity 0-47,96-143; row GPU4: NUMA Affinity 1
        Gpu gpu0 = node.gpus().getFirst();
        assertThat(gpu0.numaNode()).isEqualTo(0);
        assertThat(node.gpus().get(4).numaNode()).isEqualTo(1);
        assertThat(node.numaNodes()).containsExactly(new NumaNode(0, null, "0-47,96-143"),
                new NumaNode(1, null, "48-95,144-191"));
        // row GPU0: NV18 to every other GPU
        assertThat(gpu0.nvlinks()).containsExactly(new NvLink(1, 18), new NvLink(2, 18), new NvLink(3, 18),
                new NvLink(4, 18), new NvLink(5, 18), new NvLink(6, 18), new NvLink(7, 18));
        // NIC4 is PIX to GPU4 (NUMA 1), so it is on NUMA 1
        assertThat(node.hcas().get(4).numaNode()).isEqualTo(1);
        // 8 x 8 cells known; row GPU0: PIX NODE NODE NODE SYS SYS SYS SYS
        assertThat(node.distances()).hasSize(64);
        assertThat(node.distances().subList(0, 8)).extracting(GpuHcaDistance::distance).containsExactly(
                PcieDistance.PIX, PcieDistance.NODE, PcieDistance.NODE, PcieDistance.NODE,
                PcieDistance.SYS, PcieDistance.SYS, PcieDistance.SYS, PcieDistance.SYS);
        assertThat(node.pairs()).as("the parser leaves pairing to RailPairing").isEmpty();
    }

    @Test
    void mapsColumnsByHeadingNameNotByOrder() {
        // case-09 header: ... GPU5 mlx5_1 mlx5_0 CPU Affinity; row GPU2: "... SYS PIX" = mlx5_1 SYS, mlx5_0 PIX
        NodeTopologySpec node = parser.parseText("case-09",
                fixture("case-09-6gpu-2nic-old-format-unsorted-columns.txt"));

        assertThat(node.hcas()).extracting(Hca::name).containsExactly("mlx5_1", "mlx5_0");
        assertThat(distance(node, 2, "mlx5_0")).isEqualTo(PcieDistance.PIX);
        assertThat(distance(node, 2, "mlx5_1")).isEqualTo(PcieDistance.SYS);
        assertThat(distance(node, 5, "mlx5_1")).isEqualTo(PcieDistance.PIX);
        assertThat(node.gpus()).extracting(Gpu::numaNode).as("old format: CPU Affinity only").containsOnlyNulls();
        assertThat(node.complete()).isTrue();
    }

    @Test
    void readsTabSeparatedRowsWithAnEmptyFieldBeforeGpuNumaId() {
        // case-02 node-a rows end "0-191\t0\t\tN/A": NUMA Affinity 0, then an empty field, then GPU NUMA ID
        NodeTopologySpec node = parser.parseText("node-a", fixture("case-02-h100-12nic-node-a.txt"));

        assertThat(node.gpus()).extracting(Gpu::numaNode).containsOnly(0);
        assertThat(node.numaNodes()).containsExactly(new NumaNode(0, null, "0-191"));
        assertThat(distance(node, 7, "mlx5_11")).isEqualTo(PcieDistance.PIX);
        assertThat(node.complete()).isTrue();
    }

    @Test
    void keepsColumnNamesWithoutNicLegendAndSaysSo() {
        // case-12: stored copy ends inside the Legend; uneven tabs and spaces between cells
        NodeTopologySpec node = parser.parseText("case-12", fixture("case-12-a100-1gpu-4nic-no-pix-gdr-level.txt"));

        assertThat(node.hcas()).extracting(Hca::name).containsExactly("NIC0", "NIC1", "NIC2", "NIC3");
        // row GPU0: "X  SYS SYS NODE NODE 64-127,192-255 1 N/A"
        assertThat(node.distances()).extracting(GpuHcaDistance::distance).containsExactly(PcieDistance.SYS,
                PcieDistance.SYS, PcieDistance.NODE, PcieDistance.NODE);
        assertThat(node.gpus().getFirst().numaNode()).isEqualTo(1);
        assertThat(node.complete()).isTrue();
        assertThat(node.warnings()).singleElement().asString().contains("no NIC Legend");
    }

    @Test
    void readsSocAsSysAndAnsiWrappedHeader() {
        // old drivers print SOC for SYS; a terminal capture may wrap the header in underline escapes
        String text = "\u001B[4m\tGPU0\tGPU1\tmlx4_0\tCPU Affinity\u001B[0m\n"
                + "GPU0\t X \tSOC\tPIX\t0-7\n"
                + "GPU1\tSOC\t X \tSOC\t8-15\n"
                + "mlx4_0\tPIX\tSOC\t X \n";
        NodeTopologySpec node = parser.parseText("old.txt", text);

        assertThat(node.hcas()).extracting(Hca::name).containsExactly("mlx4_0");
        assertThat(distance(node, 0, "mlx4_0")).isEqualTo(PcieDistance.PIX);
        assertThat(distance(node, 1, "mlx4_0")).isEqualTo(PcieDistance.SYS);
        assertThat(node.complete()).isTrue();
        assertThat(node.warnings()).isEmpty();
    }

    @Test
    void readsOnlyTheFirstMatrixOfAFileAndSaysWhereTheNextOneStarts() {
        // node-b's text followed by node-a's: the first matrix (node-b, with its glued cells) is the one read
        String b = fixture("case-02-h100-12nic-node-b.txt");
        String a = fixture("case-02-h100-12nic-node-a.txt");
        NodeTopologySpec node = parser.parseText("both.txt", b + "\n" + a);

        int secondHeaderLine = b.split("\n", -1).length + 2;  // blank separator, then node-a's prompt line
        assertThat(node.warnings()).anySatisfy(w -> assertThat(w).startsWith("both.txt:" + secondHeaderLine
                + ":1: another matrix starts here"));
        assertThat(node.warnings()).anySatisfy(w -> assertThat(w).contains("'PIXNODE'"));
        // the NIC Legend of the first matrix still names the columns
        assertThat(node.hcas()).extracting(Hca::name).contains("mlx5_11");
    }

    @Test
    void skipsGpuOnlyMatricesOfOtherCommands() {
        // a GPU-by-GPU matrix without affinity columns (the shape of nvidia-smi topo -p2p) before the topo -m one
        String text = "$ nvidia-smi topo -p2p r\n \tGPU0\tGPU1\tGPU2\n GPU0\tX\tOK\tOK\n GPU1\tOK\tX\tOK\n"
                + " GPU2\tOK\tOK\tX\n\n" + fixture("case-11-3gpu-mixed-nvlink-2nic-phb.txt");
        NodeTopologySpec node = parser.parseText("p2p.txt", text);

        assertThat(node.complete()).isTrue();
        assertThat(node.hcas()).extracting(Hca::name).containsExactly("mlx5_0", "mlx5_1");
        assertThat(distance(node, 2, "mlx5_0")).isEqualTo(PcieDistance.PHB);
    }

    @Test
    void notesTopoMpAndHiddenNics() {
        NodeTopologySpec mp = parser.parseText("mp.txt", fixture("case-16-8gpu-14nic-topo-mp-nic-down.txt"));
        assertThat(mp.warnings()).anySatisfy(w -> assertThat(w).startsWith("mp.txt:1:27: matrix from nvidia-smi "
                + "topo -mp"));
        assertThat(mp.gpus()).allSatisfy(g -> assertThat(g.nvlinks()).isEmpty());

        NodeTopologySpec hidden = parser.parseText("76.txt", fixture("case-14-h100-76nic-sriov-truncated-matrix.txt"));
        assertThat(hidden.complete()).isFalse();
        assertThat(hidden.hcas()).hasSize(56);
        assertThat(hidden.warnings()).anySatisfy(w -> assertThat(w).startsWith("76.txt:2:1: nvidia-smi shows only "
                + "56 of 76 NICs"));
    }

    @Test
    void appliesIbvDevinfoPortStatesUnderAStatedNicNumberingAssumption() {
        // case-16: ibv_devinfo hca_id mlx5_0, port 1 state PORT_DOWN, link_layer InfiniBand; no NIC Legend
        NodeTopologySpec node = parser.parseText("c16", fixture("case-16-8gpu-14nic-topo-mp-nic-down.txt"));

        Hca nic0 = node.hcas().getFirst();
        assertThat(nic0.name()).isEqualTo("NIC0");
        assertThat(nic0.ports()).singleElement().satisfies(p -> {
            assertThat(p.state()).isEqualTo("PORT_DOWN");
            assertThat(p.linkLayer()).isEqualTo("InfiniBand");
            assertThat(p.isUp()).isFalse();
        });
        assertThat(node.warnings()).anySatisfy(w -> assertThat(w).startsWith("c16:15:1: no NIC Legend: assuming "
                + "NICk = mlx5_k"));
    }

    @Test
    void readsGpuBusIdsAndUuidsFromListingsInTheSameFile() {
        String text = fixture("case-11-3gpu-mixed-nvlink-2nic-phb.txt")
                + "\n$ nvidia-smi -L\n"
                + "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-00000000-0000-0000-0000-000000000000)\n"
                + "$ nvidia-smi --query-gpu=index,pci.bus_id --format=csv\n"
                + "index, pci.bus_id\n"
                + "0, 00000000:1A:00.0\n"
                + "1, 00000000:2B:00.0\n"
                + "2, 00000000:E2:00.0\n"
                + "$ ibdev2netdev -v\n"
                + "0000:e3:00.0 mlx5_0 (MT4123 - MCX653106A-HDAT) CX653106A - ConnectX-6 fw 20.31.1014 port 1 "
                + "(ACTIVE) ==> enp226s0f0 (Up)\n";
        NodeTopologySpec node = parser.parseText("ids.txt", text);

        assertThat(node.gpus()).extracting(Gpu::pciBusId).containsExactly("0000:1a:00.0", "0000:2b:00.0",
                "0000:e2:00.0");
        assertThat(node.gpus().getFirst().uuid()).isEqualTo("GPU-00000000-0000-0000-0000-000000000000");
        assertThat(node.gpus().getFirst().model()).isEqualTo("NVIDIA A100-SXM4-80GB");
        Hca mlx50 = node.hcas().getFirst();
        assertThat(mlx50.pciBusId()).isEqualTo("0000:e3:00.0");
        assertThat(mlx50.ports()).singleElement().satisfies(p -> {
            assertThat(p.state()).isEqualTo("ACTIVE");
            assertThat(p.netdevs()).containsExactly("enp226s0f0");
        });
    }

    // ----- damage: usable, complete == false, never shifted -------------------------------------------------

    @Test
    void splitsGluedTokensWithoutShiftingColumns() {
        // case-02 node-b row GPU5: "... NODE\tPIXNODE\tNODE ..." has 19 fields for 20 NIC columns
        NodeTopologySpec node = parser.parseText("b.txt", fixture("case-02-h100-12nic-node-b.txt"));

        assertThat(distance(node, 5, "mlx5_7")).isEqualTo(PcieDistance.PIX);
        assertThat(distance(node, 5, "mlx5_8")).isEqualTo(PcieDistance.NODE);
        assertThat(distance(node, 5, "mlx5_11")).isEqualTo(PcieDistance.NODE);
        assertThat(node.complete()).isFalse();
        assertThat(node.warnings()).containsExactly(
                "b.txt:8:80: row GPU5: cells glued together as 'PIXNODE'; read as PIX, NODE",
                "b.txt:18:83: row NIC7: cells 'X' and 'NODE' share one tab-separated field; read as two cells");
    }

    @Test
    void alignsARowMissingACellInTheMiddleWithTheSymmetricCellsInsteadOfShifting() {
        // case-07 row GPU0 is "X NODE SYS SYS NODE NODE SYS SYS"; drop NIC1's NODE. Read positionally, NIC1
        // would get NIC2's SYS. The NIC rows (NIC0: NODE, NIC1: NODE to GPU0) leave two alignments possible
        // (gap at NIC0 or NIC1); GPU1..GPU3, NIC2, NIC3 agree in both, NIC0/NIC1 come from the NIC rows.
        String text = fixture("case-07-rtx6000ada-4gpu-4nic-node-sys-only.txt").replace(
                "GPU0     X      NODE    SYS     SYS     NODE    NODE    SYS     SYS     0-31",
                "GPU0     X      NODE    SYS     SYS     NODE    SYS     SYS     0-31");
        NodeTopologySpec node = parser.parseText("gap.txt", text);

        assertThat(distance(node, 0, "mlx5_0")).isEqualTo(PcieDistance.NODE);
        assertThat(distance(node, 0, "mlx5_1")).isEqualTo(PcieDistance.NODE);
        assertThat(distance(node, 0, "mlx5_2")).isEqualTo(PcieDistance.SYS);
        assertThat(node.complete()).isFalse();
        assertThat(node.warnings()).anySatisfy(w -> assertThat(w)
                .isEqualTo("gap.txt:3:10: row GPU0 has 7 cells for 8 columns; aligning on the X cell and the "
                        + "symmetric cells of the other rows"));
        assertThat(node.warnings()).anySatisfy(w -> assertThat(w).isEqualTo("gap.txt:3:17: row GPU0: 5 of 7 cells "
                + "for GPU1..NIC3 placed where all 2 alignments consistent with the other rows agree; the rest "
                + "unknown"));
        assertThat(node.warnings()).anySatisfy(w -> assertThat(w)
                .contains("GPU0: distances to mlx5_0, mlx5_1 taken from the symmetric cells of the HCA rows"));
        assertThat(pairing.pair(node).pairs().getFirst()).isEqualTo(new GpuHcaPair(0, "mlx5_0",
                PcieDistance.NODE, 0));
    }

    @Test
    void leavesAnUnknownTokenUnknownAndRecoversItFromTheHcaRow() {
        // case-07 row GPU2, column NIC2 (line 5): "NODE" typed as "N0DE"; row NIC2 says NODE to GPU2
        String text = fixture("case-07-rtx6000ada-4gpu-4nic-node-sys-only.txt").replace(
                "GPU2    SYS     SYS      X      NODE    SYS     SYS     NODE    NODE",
                "GPU2    SYS     SYS      X      NODE    SYS     SYS     N0DE    NODE");
        NodeTopologySpec node = parser.parseText("tok.txt", text);

        assertThat(node.complete()).isFalse();
        assertThat(node.warnings()).anySatisfy(w -> assertThat(w)
                .startsWith("tok.txt:5:57: row GPU2: unknown cell 'N0DE' in column NIC2; treated as unknown"));
        assertThat(distance(node, 2, "mlx5_2")).isEqualTo(PcieDistance.NODE);
        assertThat(pairing.pair(node).pairs()).hasSize(4);
    }

    @Test
    void anUnknownTokenWithoutHcaRowsLeavesOnlyThatGpuUnpaired() {
        // case-01 without NIC rows; row GPU3's only PIX (column NIC3) garbled: GPU3's nearest HCA is unknown
        String text = withoutNicRows(fixture("case-01-dgx-h100-8gpu-8nic-1to1.txt")).replace(
                "GPU3    NV18    NV18    NV18     X      NV18    NV18    NV18    NV18    NODE    NODE    NODE    PIX",
                "GPU3    NV18    NV18    NV18     X      NV18    NV18    NV18    NV18    NODE    NODE    NODE    P?X");
        NodeTopologySpec node = pairing.pair(parser.parseText("p.txt", text));

        assertThat(node.complete()).isFalse();
        assertThat(node.pairs()).extracting(GpuHcaPair::gpu).containsExactly(0, 1, 2, 4, 5, 6, 7);
        assertThat(node.pairs()).allMatch(p -> p.hca().equals("mlx5_" + p.gpu()) && p.distance() == PcieDistance.PIX);
        assertThat(node.warnings()).anySatisfy(w -> assertThat(w).contains("row GPU3: unknown cell 'P?X' in column "
                + "NIC3"));
        assertThat(node.warnings()).anySatisfy(w -> assertThat(w).contains("GPU3 not paired: distances to mlx5_3 "
                + "unknown"));
    }

    @Test
    void aRowCutShortKeepsItsKnownCellsAndRecoversTheRestFromHcaRows() {
        // case-01 row GPU7 cut after column NIC3 (line 9): NIC4..NIC7 unknown in that row, but row NIC7 says PIX
        String cut = fixture("case-01-dgx-h100-8gpu-8nic-1to1.txt").replace(
                "GPU7    NV18    NV18    NV18    NV18    NV18    NV18    NV18     X      SYS     SYS     SYS     SYS"
                        + "     NODE    NODE    NODE    PIX     48-95,144-191   1               N/A",
                "GPU7    NV18    NV18    NV18    NV18    NV18    NV18    NV18     X      SYS     SYS     SYS     SYS");
        NodeTopologySpec withNicRows = pairing.pair(parser.parseText("cut.txt", cut));
        assertThat(withNicRows.complete()).isFalse();
        assertThat(withNicRows.warnings()).anySatisfy(w -> assertThat(w)
                .startsWith("cut.txt:9:100: row GPU7 ends after 12 of 16 cells (row cut short); NIC4..NIC7 unknown"));
        assertThat(withNicRows.pairs()).contains(new GpuHcaPair(7, "mlx5_7", PcieDistance.PIX, 7));
        assertThat(withNicRows.gpus().get(7).numaNode()).as("affinity columns were cut too").isNull();

        NodeTopologySpec noNicRows = pairing.pair(parser.parseText("cut.txt", withoutNicRows(cut)));
        assertThat(noNicRows.pairs()).extracting(GpuHcaPair::gpu).containsExactly(0, 1, 2, 3, 4, 5, 6);
    }

    @Test
    void aMissingGpuRowIsRebuiltFromTheHcaRows() {
        // case-01 without row GPU2: row NIC2 is PIX to GPU2, rows NIC0/1/3 NODE, NIC4..7 SYS
        String text = fixture("case-01-dgx-h100-8gpu-8nic-1to1.txt").replaceAll("(?m)^GPU2 .*\\n", "");
        NodeTopologySpec node = pairing.pair(parser.parseText("miss.txt", text));

        assertThat(node.complete()).isFalse();
        assertThat(node.warnings()).anySatisfy(w -> assertThat(w).startsWith("miss.txt:1:25: no row for GPU2"));
        assertThat(node.pairs()).contains(new GpuHcaPair(2, "mlx5_2", PcieDistance.PIX, 2));
        assertThat(node.gpus().get(2).numaNode()).isNull();
    }

    @Test
    void saysWhenAGpuRowAndItsHcaRowDisagree() {
        // case-07 row NIC1 (line 8) says SYS to GPU1 while row GPU1 (line 4) says NODE; both rows are whole, so
        // the GPU row is used
        String text = fixture("case-07-rtx6000ada-4gpu-4nic-node-sys-only.txt").replace(
                "NIC1    NODE    NODE    SYS", "NIC1    NODE    SYS     SYS");
        NodeTopologySpec node = parser.parseText("dis.txt", text);

        assertThat(node.complete()).isFalse();
        assertThat(node.warnings()).containsExactly("dis.txt:4:49: row GPU1 says NODE to NIC1 (mlx5_1) but row NIC1 "
                + "(line 8, column 17) says SYS; using NODE from the GPU row");
        assertThat(distance(node, 1, "mlx5_1")).isEqualTo(PcieDistance.NODE);
    }

    @Test
    void ignoresRowsOfDevicesNotInTheHeaderAndDuplicateRows() {
        String text = fixture("case-11-3gpu-mixed-nvlink-2nic-phb.txt").replace(
                "NIC1    NODE    NODE    PHB     PIX      X\n",
                "NIC1    NODE    NODE    PHB     PIX      X\nNIC1    SYS     SYS     SYS     SYS      X\n"
                        + "NIC9    SYS     SYS     SYS     SYS      X\n");
        NodeTopologySpec node = parser.parseText("dup.txt", text);

        assertThat(node.complete()).isFalse();
        assertThat(node.warnings()).contains("dup.txt:8:1: second row for NIC1 (first at line 7); ignored",
                "dup.txt:9:1: row NIC9 is not a column of the header; ignored");
        assertThat(distance(node, 2, "mlx5_1")).isEqualTo(PcieDistance.PHB);
    }

    // ----- no usable matrix: one-line InputException naming file, line and column -------------------------

    @Test
    void rejectsAnEmptyFile(@TempDir Path dir) throws IOException {
        Path empty = Files.writeString(dir.resolve("empty.txt"), "");
        assertOneLineError(empty, empty + ":1:1: empty file, no nvidia-smi topo -m matrix");
    }

    @Test
    void rejectsBinaryGarbage(@TempDir Path dir) throws IOException {
        byte[] garbage = new byte[4096];
        new Random(42).nextBytes(garbage);
        for (int i = 0; i < 20; i++) {
            garbage[i] = (byte) (i == 10 ? '\n' : 'a');
        }
        garbage[20] = 0;
        Path bin = Files.write(dir.resolve("garbage.bin"), garbage);
        // first NUL at offset 20: line 2 (after the newline at offset 10), column 10
        assertOneLineError(bin, bin + ":2:10: binary data (byte 0x00 at offset 20), not a text dump");
    }

    @Test
    void rejectsTextWithoutAHeaderRow(@TempDir Path dir) throws IOException {
        Path text = Files.writeString(dir.resolve("notes.txt"), "GPU0 looked fine\nNIC0 too\n");
        assertOneLineError(text, text + ":1:1: no nvidia-smi topo -m header row (column headings GPU0 GPU1 ... NIC0"
                + " ... CPU Affinity) in 2 lines");
    }

    @Test
    void rejectsAHeaderWithoutRows(@TempDir Path dir) throws IOException {
        Path text = Files.writeString(dir.resolve("header.txt"), "\tGPU0\tGPU1\tNIC0\tCPU Affinity\n\nLegend:\n");
        assertOneLineError(text, text + ":3:1: expected a matrix row (GPU0 followed by its cells) after the header at"
                + " line 1; found 'Legend:'");
    }

    @Test
    void rejectsTenMegabytesOfNoise(@TempDir Path dir) throws IOException {
        Random random = new Random(7);
        String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 \t.,:;-_/=+()[]";
        byte[] noise = new byte[10 * 1024 * 1024];
        for (int i = 0; i < noise.length; i++) {
            noise[i] = (byte) (random.nextInt(100) == 0 ? '\n' : alphabet.charAt(random.nextInt(alphabet.length())));
        }
        Path file = Files.write(dir.resolve("noise.txt"), noise);
        long lines = new String(noise, StandardCharsets.US_ASCII).lines().count();
        assertOneLineError(file, file + ":1:1: no nvidia-smi topo -m header row (column headings GPU0 GPU1 ... NIC0"
                + " ... CPU Affinity) in " + lines + " lines");

        random.nextBytes(noise);
        Path bytes = Files.write(dir.resolve("noise.bin"), noise);
        assertThatThrownBy(() -> parser.parse(bytes)).isInstanceOf(InputException.class)
                .hasMessageStartingWith(bytes + ":").hasMessageContaining("binary data");
    }

    @Test
    void rejectsTheFailedMatrixOfCase43AsUnknownTopology() {
        // case-43: nvidia-smi topo -m aborts with "Failed to run topology matrix" when a siw device is present
        Path file = resource("case-43-topo-matrix-fails-softiwarp-siw-device.txt");
        assertOneLineError(file, file + ":2:22: nvidia-smi reported \"Failed to run topology matrix\": the dump has "
                + "no matrix, GPU-HCA locality is unknown (read the node's sysfs instead)");
    }

    @Test
    void rejectsAnAmbiguousHeader() {
        assertThatThrownBy(() -> parser.parseText("h.txt", "\tGPU0\tNIC0\tNIC0\nGPU0\t X \tPIX\tPIX\n"))
                .isInstanceOf(InputException.class)
                .hasMessage("h.txt:1:12: column heading NIC0 appears twice in the header (first at column 7); the "
                        + "matrix is ambiguous");
    }

    @Test
    void rejectsAMissingFileAndADirectory(@TempDir Path dir) {
        assertOneLineError(dir.resolve("absent.txt"), dir.resolve("absent.txt") + ": no such file");
        assertOneLineError(dir, dir + ": is a directory, expected a text file");
    }

    // ----- helpers ----------------------------------------------------------------------------------------

    private void assertOneLineError(Path file, String message) {
        assertThatThrownBy(() -> parser.parse(file)).isInstanceOf(InputException.class).hasMessage(message)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    private static PcieDistance distance(NodeTopologySpec node, int gpu, String hca) {
        return node.distances().stream().filter(d -> d.gpu() == gpu && d.hca().equals(hca))
                .map(GpuHcaDistance::distance).findFirst().orElse(null);
    }

    private static String withoutNicRows(String text) {
        return text.replaceAll("(?m)^NIC\\d+ .*\\n", "");
    }

    static String fixture(String name) {
        try {
            return Files.readString(resource(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path resource(String name) {
        try {
            return Path.of(Objects.requireNonNull(NvidiaSmiTopoParserTest.class.getResource("/fixtures/" + name))
                    .toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void anEndlessDeviceIsRefusedAtTheSizeLimitNotReadUntilMemoryRunsOut() {
        // `railyard topology pair /dev/zero` (or /dev/urandom) used to end in OutOfMemoryError with a stack trace:
        // Files.size is 0 for a character device, so the size check passed and readAllBytes never stopped
        Path zero = Path.of("/dev/zero");
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isReadable(zero), "needs /dev/zero");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> parser.parse(zero))
                .isInstanceOf(dev.railyard.topology.InputException.class)
                .hasMessage("/dev/zero: more than 67108864 bytes, larger than the limit for a topology dump (a device "
                        + "or pipe that does not end?)");
    }
}
