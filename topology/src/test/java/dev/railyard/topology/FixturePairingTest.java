package dev.railyard.topology;

import dev.railyard.api.topology.ExcludedHca;
import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.topology.discovery.TopologyFormat;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Named.named;

/**
 * One case per topology-kind fixture in {@code src/test/resources/fixtures} (public {@code nvidia-smi topo -m}
 * captures, artifact text copied verbatim, multi-node files split per node): the full rail map, every exclusion, the
 * {@code complete} flag and the warnings that must name where the dump is damaged.
 *
 * <p>Expected values are read off the matrices by hand; each case's comment says which cells decide it and where
 * the fixture header's expectation and the matrix differ.
 */
class FixturePairingTest {

    /** Expected outcome of one fixture. */
    record Expected(String file, boolean complete, List<GpuHcaPair> pairs, Map<String, String> excluded,
                    List<String> warnings) {
    }

    static Stream<Arguments> fixtures() {
        return Stream.of(
                // case-01: each GPUi row has exactly one PIX, in column NICi; NIC Legend NICi = mlx5_i. No ties,
                // no exclusions; header expectation "GPU<i> -> mlx5_<i> (PIX)" holds.
                fixture("case-01-dgx-h100-8gpu-8nic-1to1.txt", true,
                        pairs("0 mlx5_0 PIX 0", "1 mlx5_1 PIX 1", "2 mlx5_2 PIX 2", "3 mlx5_3 PIX 3",
                                "4 mlx5_4 PIX 4", "5 mlx5_5 PIX 5", "6 mlx5_6 PIX 6", "7 mlx5_7 PIX 7"),
                        excluded(), warnings()),
                // case-02 node-a (clean copy): rows GPU0..7 are PIX in NIC0,1,2,5,6,7,8,11 = mlx5_0,1,2,5,6,7,8,11
                // (the operator's NCCL_IB_HCA). NIC3/4 and NIC9/10 are PIX only to each other and NODE to every
                // GPU while 8 HCAs share a switch with a GPU: front-end/storage ports, excluded.
                fixture("case-02-h100-12nic-node-a.txt", true, CASE_02_PAIRS,
                        excluded("mlx5_3", "shares no PCIe switch with any GPU (nearest NODE)",
                                "mlx5_4", "shares no PCIe switch with any GPU (nearest NODE)",
                                "mlx5_9", "shares no PCIe switch with any GPU (nearest NODE)",
                                "mlx5_10", "shares no PCIe switch with any GPU (nearest NODE)"),
                        warnings()),
                // case-02 node-b: same machine, paste-corrupted. Line 8 (GPU5) has "PIXNODE" in one tab field
                // (column 80) and line 18 (NIC7) has " X NODE" in one field (NODE at column 83). Splitting the
                // known tokens restores 20 cells, NIC7's row confirms PIX to GPU5, so the rail map equals node-a's
                // (no column shift); complete is false because the text was damaged.
                fixture("case-02-h100-12nic-node-b.txt", false, CASE_02_PAIRS,
                        excluded("mlx5_3", "shares no PCIe switch", "mlx5_4", "shares no PCIe switch",
                                "mlx5_9", "shares no PCIe switch", "mlx5_10", "shares no PCIe switch"),
                        warnings(":8:80: row GPU5: cells glued together as 'PIXNODE'; read as PIX, NODE",
                                ":18:83: row NIC7: cells 'X' and 'NODE' share one tab-separated field")),
                // case-03: GPU1 row PIX to mlx5_0, GPU2 row PIX to mlx5_1; GPU0 and GPU3 are SYS to both.
                // 2 rail HCAs for 4 GPUs => 2 GPUs per HCA; the tie-break puts GPU0 with mlx5_0 and GPU3 with
                // mlx5_1. The header says GPU0/GPU3 must not be "silently given mlx5_0": they are paired, but
                // explicitly at SYS with a note that GPUDirect RDMA is off (NCCL would use one of the two NICs
                // anyway), which is what a placement needs to score them worst.
                fixture("case-03-a100-4gpu-2nic-4numa-old-format.txt", true,
                        pairs("0 mlx5_0 SYS 0", "1 mlx5_0 PIX 0", "2 mlx5_1 PIX 1", "3 mlx5_1 SYS 1"),
                        excluded(), warnings("pairing: GPU0, GPU3 reach their rail HCA only at SYS")),
                // case-05: rows GPU0/2/4/6 are PIX to NIC0/1/2/3; odd GPUs are SYS to every NIC. Row GPU7 is cut
                // at "NV" (line 11, column 41), so GPU7 is unknown and unpaired. 6 candidate HCAs for 8 GPUs
                // => 2 GPUs per HCA; odd GPUs take the second slot of their even neighbour's NIC (rails
                // GPU0->NIC0, GPU2->NIC1, GPU4->NIC2, GPU6->NIC3 as the header expects; odd GPUs at SYS, not
                // rejected, not PIX). The header also says NIC4/NIC5 are not rails: they are not paired, but
                // they are not *excluded* either, because "SYS to every GPU" cannot be proven while GPU7's row
                // is missing; the pairing notes list them as undecided. No NIC Legend: names stay NICk.
                fixture("case-05-h100-6nic-2gpu-per-nic.txt", false,
                        pairs("0 NIC0 PIX 0", "1 NIC0 SYS 0", "2 NIC1 PIX 1", "3 NIC1 SYS 1", "4 NIC2 PIX 2",
                                "5 NIC2 SYS 2", "6 NIC3 PIX 3"),
                        excluded(),
                        warnings(":11:41: row GPU7: unknown cell 'NV' in column GPU4",
                                ":11:43: row GPU7 ends after 5 of 14 cells (row cut short)",
                                "pairing: GPU7 not paired",
                                "pairing: NIC4, NIC5 are neither rail nor excluded: distances to GPU7 unknown")),
                // case-06: GPU0-3 are PIX to NIC1,3,4,5 and GPU4-7 PIX to NIC0,2,6,7, SYS across. Every GPU of a
                // group ties with every NIC of its group; the tie-break matches them in order (lower GPU to lower
                // NIC number): GPU0->NIC1, GPU1->NIC3, GPU2->NIC4, GPU3->NIC5, GPU4->NIC0, GPU5->NIC2,
                // GPU6->NIC6, GPU7->NIC7, 1:1 as the header asks. Row NIC7 (line 18) is cut after 12 cells.
                fixture("case-06-pcie-8gpu-8nic-4per-switch-sriov.txt", false,
                        pairs("0 NIC1 PIX 0", "1 NIC3 PIX 1", "2 NIC4 PIX 2", "3 NIC5 PIX 3", "4 NIC0 PIX 4",
                                "5 NIC2 PIX 5", "6 NIC6 PIX 6", "7 NIC7 PIX 7"),
                        excluded(), warnings(":18:53: row NIC7 ends after 12 of 16 cells (row cut short)")),
                // case-07: no PIX/PXB anywhere; GPU0/1 are NODE to mlx5_0/1, GPU2/3 NODE to mlx5_2/3, SYS across
                // sockets. Fall back to NODE in order, as the header expects; nothing is excluded (no HCA is SYS
                // to every GPU, none shares a switch with a GPU).
                fixture("case-07-rtx6000ada-4gpu-4nic-node-sys-only.txt", true,
                        pairs("0 mlx5_0 NODE 0", "1 mlx5_1 NODE 1", "2 mlx5_2 NODE 2", "3 mlx5_3 NODE 3"),
                        excluded(), warnings("pairing: GPU0, GPU1, GPU2, GPU3 reach their rail HCA only at NODE")),
                // case-09: columns are mlx5_1 then mlx5_0. GPU2 row: PIX under mlx5_0; GPU5 row: PIX under
                // mlx5_1; GPU0/1 NODE to mlx5_0, GPU3/4 NODE to mlx5_1. 2 HCAs for 6 GPUs => 3 per HCA: each
                // socket's GPUs share its HCA.
                fixture("case-09-6gpu-2nic-old-format-unsorted-columns.txt", true,
                        pairs("0 mlx5_0 NODE 0", "1 mlx5_0 NODE 0", "2 mlx5_0 PIX 0", "3 mlx5_1 NODE 1",
                                "4 mlx5_1 NODE 1", "5 mlx5_1 PIX 1"),
                        excluded(), warnings()),
                // case-11: GPU2 row PHB to both NICs, GPU0/GPU1 NODE to both. 2 HCAs for 3 GPUs => 2 per HCA;
                // GPU0 and GPU1 fill mlx5_0, GPU2 takes mlx5_1 at PHB (header: "GPU2 -> mlx5_0/mlx5_1 (PHB)").
                fixture("case-11-3gpu-mixed-nvlink-2nic-phb.txt", true,
                        pairs("0 mlx5_0 NODE 0", "1 mlx5_0 NODE 0", "2 mlx5_1 PHB 1"),
                        excluded(), warnings("pairing: GPU2 reaches its rail HCA only at PHB")),
                // case-12: GPU0 row: SYS NIC0/NIC1, NODE NIC2/NIC3. NIC0 and NIC1 are SYS to the only GPU while
                // NIC2 is NODE: excluded. GPU0 -> NIC2 (tie with NIC3 broken by NIC number); NIC3 is a spare. The
                // stored copy has no NIC Legend, so names stay NICk; the note says GDR needs a level override.
                fixture("case-12-a100-1gpu-4nic-no-pix-gdr-level.txt", true,
                        pairs("0 NIC2 NODE 0"),
                        excluded("NIC0", "SYS to every GPU while NIC2 is NODE to GPU0",
                                "NIC1", "SYS to every GPU while NIC2 is NODE to GPU0"),
                        warnings("no NIC Legend", "pairing: GPU0 reaches its rail HCA only at NODE",
                                "NCCL_NET_GDR_LEVEL", "pairing: NIC3 is a spare")),
                // case-14: nvidia-smi shows 56 of 76 NICs (line 2); only rows GPU0, GPU1 are whole. GPU0's first
                // PXB column is NIC0, GPU1's is NIC3 (GPU1 row: NODE NODE NODE PXB ...). GPU2..7 are unknown and
                // unpaired; nothing can be excluded on a matrix this incomplete.
                fixture("case-14-h100-76nic-sriov-truncated-matrix.txt", false,
                        pairs("0 NIC0 PXB 0", "1 NIC3 PXB 1"),
                        excluded(),
                        warnings(":2:1: nvidia-smi shows only 56 of 76 NICs",
                                ":6:10: row GPU2 ends after 1 of 64 cells (row cut short)",
                                "pairing: GPU2 not paired")),
                // case-16: topo -mp; GPU0..2 PIX to NIC0..2, GPU3 PIX to NIC7; row GPU4 is cut at "SY" (line 7).
                // ibv_devinfo says mlx5_0 port 1 is PORT_DOWN; without a NIC Legend NICk = mlx5_k is assumed (and
                // stated), so NIC0 is excluded and GPU0 falls back to the lowest free NODE HCA, NIC3. GPU1->NIC1,
                // GPU3->NIC7 match the operator's mlx5_1/mlx5_7. The operator's mlx5_9/mlx5_13 serve GPU4-7, whose
                // rows are not in the stored copy, so they stay undecided; GPU2->NIC2 is PIX by the matrix (its
                // port state is not in the stored copy), where the operator's list has none: the matrix wins.
                fixture("case-16-8gpu-14nic-topo-mp-nic-down.txt", false,
                        pairs("0 NIC3 NODE 0", "1 NIC1 PIX 1", "2 NIC2 PIX 2", "3 NIC7 PIX 3"),
                        excluded("NIC0", "port 1 is PORT_DOWN"),
                        warnings(":1:27: matrix from nvidia-smi topo -mp",
                                ":7:129: row GPU4: unknown cell 'SY' in column NIC7",
                                "assuming NICk = mlx5_k", "pairing: GPU4 not paired")));
    }

    private static final List<GpuHcaPair> CASE_02_PAIRS = pairs("0 mlx5_0 PIX 0", "1 mlx5_1 PIX 1",
            "2 mlx5_2 PIX 2", "3 mlx5_5 PIX 3", "4 mlx5_6 PIX 4", "5 mlx5_7 PIX 5", "6 mlx5_8 PIX 6",
            "7 mlx5_11 PIX 7");

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    void pairsEveryGpuAndExplainsEveryExclusion(Expected expected) {
        NodeTopologySpec node = new TopologyReader().read(resource(expected.file()), TopologyFormat.AUTO);

        assertThat(node.pairs()).as("rail map").containsExactlyElementsOf(expected.pairs());
        assertThat(node.excluded()).extracting(ExcludedHca::hca).as("excluded HCAs")
                .containsExactlyElementsOf(expected.excluded().keySet());
        for (ExcludedHca x : node.excluded()) {
            assertThat(x.reason()).as("reason for " + x.hca()).startsWith(expected.excluded().get(x.hca()));
        }
        assertThat(node.complete()).as("complete").isEqualTo(expected.complete());
        for (String w : expected.warnings()) {
            assertThat(node.warnings()).as("warnings").anySatisfy(actual -> assertThat(actual).contains(w));
        }
        if (expected.complete()) {
            assertThat(node.warnings()).as("a whole matrix has no warning with a line number")
                    .noneMatch(w -> w.matches(".*\\.txt:\\d+:\\d+: .*"));
        }
    }

    static Path resource(String name) {
        try {
            return Path.of(Objects.requireNonNull(FixturePairingTest.class.getResource("/fixtures/" + name),
                    name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Arguments fixture(String file, boolean complete, List<GpuHcaPair> pairs,
                                     Map<String, String> excluded, List<String> warnings) {
        return Arguments.of(named(file, new Expected(file, complete, pairs, excluded, warnings)));
    }

    /** @param specs "gpu hca DISTANCE rail" */
    static List<GpuHcaPair> pairs(String... specs) {
        List<GpuHcaPair> out = new ArrayList<>();
        for (String s : specs) {
            String[] f = s.split(" ");
            out.add(new GpuHcaPair(Integer.parseInt(f[0]), f[1], PcieDistance.valueOf(f[2]),
                    Integer.parseInt(f[3])));
        }
        return out;
    }

    private static Map<String, String> excluded(String... hcaAndReasonStart) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < hcaAndReasonStart.length; i += 2) {
            m.put(hcaAndReasonStart[i], hcaAndReasonStart[i + 1]);
        }
        return m;
    }

    private static List<String> warnings(String... fragments) {
        return List.of(fragments);
    }
}
