package dev.railyard.topology.discovery.sysfs;

import dev.railyard.api.topology.ExcludedHca;
import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaDistance;
import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.topology.discovery.NvidiaSmiTopoParser;
import dev.railyard.topology.discovery.nccl.NcclTopoXmlParser;
import dev.railyard.topology.pairing.RailPairing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * "The same machine gives the same classes from every source" (issue 2): the sysfs trees of
 * {@link SysfsMachineShapes} against the fixtures' {@code nvidia-smi topo -m} dumps, parsed by
 * {@link NvidiaSmiTopoParser}, and against hand-written NCCL XML of the same machines; then the same rail map from
 * {@link RailPairing}.
 */
class SysfsMatchesOtherSourcesTest {
    private final RailPairing pairing = new RailPairing();

    @TempDir
    Path root;

    private static Path resource(String path) {
        try {
            return Path.of(SysfsMatchesOtherSourcesTest.class.getResource(path).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static SysfsMachineShapes.Shape shape(String name, Path root) {
        return switch (name) {
            case "case-01" -> SysfsMachineShapes.dgxH100Case01(root);
            case "case-03" -> SysfsMachineShapes.a100FourNumaCase03(root);
            case "case-05" -> SysfsMachineShapes.h100TwoGpusPerNicCase05(root);
            case "case-07" -> SysfsMachineShapes.rtx6000AdaCase07(root);
            default -> throw new IllegalArgumentException(name);
        };
    }

    /** nvidia-smi's name for an HCA (NICk when the dump has no NIC Legend) to the sysfs name. */
    private static Function<String, String> sysfsName(SysfsMachineShapes.Shape shape) {
        return name -> {
            int column = shape.nicNames().indexOf(name);
            return column < 0 ? name : shape.hcaNames().get(column);
        };
    }

    private static List<GpuHcaDistance> renamed(List<GpuHcaDistance> distances, Function<String, String> name) {
        return distances.stream().map(d -> new GpuHcaDistance(d.gpu(), name.apply(d.hca()), d.distance())).toList();
    }

    private static List<GpuHcaPair> renamedPairs(List<GpuHcaPair> pairs, Function<String, String> name) {
        return pairs.stream().map(p -> new GpuHcaPair(p.gpu(), name.apply(p.hca()), p.distance(), p.rail()))
                .toList();
    }

    @ParameterizedTest
    @ValueSource(strings = {"case-01", "case-03", "case-05", "case-07"})
    void everyClassNvidiaSmiPrintsIsTheClassSysfsGives(String name) {
        SysfsMachineShapes.Shape shape = shape(name, root);
        NodeTopologySpec sysfs = new SysfsTopologyParser().parse(shape.root());
        NodeTopologySpec smi = new NvidiaSmiTopoParser().parse(resource("/fixtures/" + shape.fixture()));

        List<GpuHcaDistance> smiDistances = renamed(smi.distances(), sysfsName(shape));
        assertThat(sysfs.distances()).containsAll(smiDistances);
        // Every GPU x NIC cell is in the dump except case-05's row GPU7, cut after 5 cells (GPU7 x 6 NICs).
        int cut = name.equals("case-05") ? 6 : 0;
        assertThat(smiDistances).hasSize(sysfs.distances().size() - cut);
        // NUMA Affinity column = numa_node; case-05's GPU7 row is cut before that column.
        for (Gpu gpu : smi.gpus()) {
            if (!(name.equals("case-05") && gpu.index() == 7)) {
                assertThat(gpu.numaNode()).as("GPU%d NUMA", gpu.index()).isNotNull()
                        .isEqualTo(sysfs.gpus().get(gpu.index()).numaNode());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"case-01", "case-03", "case-07"})
    void completeDumpsGiveTheSameRailMapAsSysfs(String name) {
        SysfsMachineShapes.Shape shape = shape(name, root);
        NodeTopologySpec sysfs = pairing.pair(new SysfsTopologyParser().parse(shape.root()));
        NodeTopologySpec smi = pairing.pair(new NvidiaSmiTopoParser().parse(resource("/fixtures/" + shape.fixture())));

        assertThat(sysfs.pairs()).isNotEmpty().isEqualTo(renamedPairs(smi.pairs(), sysfsName(shape)));
        assertThat(sysfs.excluded()).isEqualTo(smi.excluded());
    }

    @Test
    void case05TruncatedDumpAgreesWithSysfsOnEveryGpuItCanPair() {
        SysfsMachineShapes.Shape shape = shape("case-05", root);
        NodeTopologySpec sysfs = pairing.pair(new SysfsTopologyParser().parse(shape.root()));
        NodeTopologySpec smi = pairing.pair(new NvidiaSmiTopoParser().parse(resource("/fixtures/" + shape.fixture())));

        // case-05 header: rails GPU0->NIC0, GPU2->NIC1, GPU4->NIC2, GPU6->NIC3 (PIX); odd GPUs share their even
        // neighbour's NIC at SYS (2 GPUs per HCA = ceil(8/4)). nvidia-smi cannot pair GPU7 (row cut short);
        // sysfs knows GPU7 and gives it mlx5_3, the one rail HCA with room left.
        List<GpuHcaPair> expected = List.of(
                new GpuHcaPair(0, "mlx5_0", PcieDistance.PIX, 0), new GpuHcaPair(1, "mlx5_0", PcieDistance.SYS, 0),
                new GpuHcaPair(2, "mlx5_1", PcieDistance.PIX, 1), new GpuHcaPair(3, "mlx5_1", PcieDistance.SYS, 1),
                new GpuHcaPair(4, "mlx5_2", PcieDistance.PIX, 2), new GpuHcaPair(5, "mlx5_2", PcieDistance.SYS, 2),
                new GpuHcaPair(6, "mlx5_3", PcieDistance.PIX, 3), new GpuHcaPair(7, "mlx5_3", PcieDistance.SYS, 3));
        assertThat(sysfs.pairs()).isEqualTo(expected);
        assertThat(renamedPairs(smi.pairs(), sysfsName(shape))).isEqualTo(expected.subList(0, 7));
        // The front-end ports: sysfs sees the bond; the cut dump leaves them undecided (their GPU7 cells unknown).
        assertThat(sysfs.excluded()).extracting(ExcludedHca::hca).containsExactly("mlx5_4", "mlx5_5");
        assertThat(sysfs.excluded()).allMatch(e -> e.reason().contains("bond0"));
        assertThat(smi.excluded()).isEmpty();
    }

    @Test
    void dgxLikeNcclXmlAndCase01SysfsDescribeTheSameMachine() {
        SysfsMachineShapes.dgxH100Case01(root);
        NodeTopologySpec sysfs = pairing.pair(new SysfsTopologyParser().parse(root));
        NodeTopologySpec xml = pairing.pair(new NcclTopoXmlParser().parse(resource("/nccl/dgx-h100-like-8gpu-8nic.xml")));

        assertThat(xml.distances()).isEqualTo(sysfs.distances());
        assertThat(xml.gpus()).extracting(Gpu::pciBusId)
                .containsExactlyElementsOf(sysfs.gpus().stream().map(Gpu::pciBusId).toList());
        assertThat(xml.pairs()).isEqualTo(sysfs.pairs());
        assertThat(xml.excluded()).isEqualTo(sysfs.excluded());
    }

    @Test
    void twoGpusPerNicNcclXmlAndItsSysfsTreeDescribeTheSameMachine() {
        // The machine of a100-like-2gpu-per-nic.xml as sysfs shows it: root port, upper switch (USP x), its
        // downstream ports, lower switch (USP x+2) below one of them, GPUs below the lower switch's ports.
        SysfsTreeBuilder b = new SysfsTreeBuilder(root).numaNode(0, "0-31", 0).numaNode(1, "32-63", 1);
        int[][] groups = {{0x07, 0}, {0x47, 0}, {0x87, 1}, {0xc7, 1}};
        for (int k = 0; k < groups.length; k++) {
            int x = groups[k][0];
            int numa = groups[k][1];
            String upper = String.format("pci0000:%02x/0000:%02x:01.0/0000:%02x:00.0", x - 2, x - 2, x);
            String lower = upper + String.format("/0000:%02x:00.0/0000:%02x:00.0", x + 1, x + 2);
            b.gpu(lower + String.format("/0000:%02x:00.0/0000:%02x:00.0", x + 6, x + 3), numa);
            b.gpu(lower + String.format("/0000:%02x:01.0/0000:%02x:00.0", x + 6, x + 5), numa);
            b.hca("mlx5_" + k, upper + String.format("/0000:%02x:01.0/0000:%02x:00.0", x + 1, x + 4), numa,
                    "ib" + k);
        }
        b.hca("mlx5_4", "pci0000:28/0000:28:01.0/0000:2a:00.0", 0, "eno1np0");
        NodeTopologySpec sysfs = pairing.pair(new SysfsTopologyParser().parse(root));
        NodeTopologySpec xml = pairing.pair(new NcclTopoXmlParser().parse(resource("/nccl/a100-like-2gpu-per-nic.xml")));

        assertThat(sysfs.distances()).isEqualTo(xml.distances());
        assertThat(sysfs.gpus()).extracting(Gpu::pciBusId)
                .containsExactlyElementsOf(xml.gpus().stream().map(Gpu::pciBusId).toList());
        assertThat(sysfs.pairs()).isEqualTo(xml.pairs());
        // By hand: GPUs 2k and 2k+1 -> mlx5_k (PXB), rail k; mlx5_4 shares no switch with a GPU while the others
        // do, so it is a front-end port, not a rail.
        assertThat(xml.pairs()).extracting(GpuHcaPair::hca).containsExactly("mlx5_0", "mlx5_0", "mlx5_1",
                "mlx5_1", "mlx5_2", "mlx5_2", "mlx5_3", "mlx5_3");
        assertThat(xml.pairs()).allMatch(p -> p.distance() == PcieDistance.PXB);
        assertThat(xml.excluded()).extracting(ExcludedHca::hca).containsExactly("mlx5_4");
        assertThat(sysfs.excluded()).isEqualTo(xml.excluded());
    }

    @Test
    void portDownAndSoftwareDevicesAreExcludedByThePairing() {
        // case-16: a PIX HCA whose port is down must not be a rail; case-43: siw is never a rail.
        SysfsMachineShapes.dgxH100Case01(root).builder()
                .port("mlx5_0", 1, "1: DOWN", "InfiniBand", "400 Gb/sec (4X NDR)", "lan0")
                .virtualNetdev("eth0")
                .softwareHca("siw_eth0", "eth0");
        NodeTopologySpec spec = pairing.pair(new SysfsTopologyParser().parse(root));

        assertThat(spec.excluded()).extracting(ExcludedHca::hca).containsExactlyInAnyOrder("mlx5_0", "siw_eth0");
        assertThat(spec.pairs()).noneMatch(p -> p.hca().equals("mlx5_0") || p.hca().equals("siw_eth0"));
        assertThat(spec.pairs()).hasSize(8);
    }
}
