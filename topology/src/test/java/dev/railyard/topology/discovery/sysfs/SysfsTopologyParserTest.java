package dev.railyard.topology.discovery.sysfs;

import dev.railyard.api.topology.DiscoverySource;
import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaDistance;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.HcaPort;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.NumaNode;
import dev.railyard.api.topology.PcieBridge;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.topology.InputException;
import dev.railyard.topology.discovery.sysfs.SysfsMachineShapes.Shape;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SysfsTopologyParserTest {
    private final SysfsTopologyParser parser = new SysfsTopologyParser();

    @TempDir
    Path root;

    /** @return the parsed distances as "GPU rows" over the given HCA columns, like the shapes' expected rows */
    static List<String> rows(NodeTopologySpec spec, List<String> hcaColumns) {
        Map<String, PcieDistance> byPair = spec.distances().stream()
                .collect(Collectors.toMap(d -> d.gpu() + "/" + d.hca(), GpuHcaDistance::distance));
        return spec.gpus().stream().map(g -> hcaColumns.stream()
                        .map(h -> String.valueOf(byPair.get(g.index() + "/" + h)))
                        .collect(Collectors.joining(" ")))
                .toList();
    }

    @Test
    void case01ShapeGivesTheNvidiaSmiMatrix() {
        Shape shape = SysfsMachineShapes.dgxH100Case01(root);
        NodeTopologySpec spec = parser.parse(shape.root());

        assertThat(spec.source()).isEqualTo(DiscoverySource.SYSFS);
        assertThat(spec.complete()).isTrue();
        assertThat(spec.warnings()).isEmpty();
        assertThat(rows(spec, shape.hcaNames())).isEqualTo(shape.gpuRows());
        assertThat(spec.distances()).hasSize(64);
        // NVML order = bus id order: the builder put GPU i at bus 0x18, 0x2a, 0x3a, ... (host bus + 3).
        assertThat(spec.gpus()).extracting(Gpu::pciBusId).containsExactly("0000:18:00.0", "0000:2a:00.0",
                "0000:3a:00.0", "0000:5d:00.0", "0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0");
        // case-01 NUMA Affinity column: GPU0-3 on 0, GPU4-7 on 1.
        assertThat(spec.gpus()).extracting(Gpu::numaNode).containsExactly(0, 0, 0, 0, 1, 1, 1, 1);
        assertThat(spec.gpus().getFirst().pcieParent()).isEqualTo("0000:16:00.0");
        assertThat(spec.numaNodes()).containsExactly(new NumaNode(0, 0, "0-47,96-143"),
                new NumaNode(1, 1, "48-95,144-191"));
    }

    @Test
    void case01ShapeReadsHcasPortsNetdevsAndTheTree() {
        SysfsMachineShapes.dgxH100Case01(root);
        NodeTopologySpec spec = parser.parse(root);

        assertThat(spec.hcas()).extracting(Hca::name).containsExactly("mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3",
                "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7");
        Hca first = spec.hcas().getFirst();
        assertThat(first.pciBusId()).isEqualTo("0000:19:00.0");
        assertThat(first.numaNode()).isZero();
        assertThat(first.bondMaster()).isNull();
        assertThat(first.pcieParent()).isEqualTo("0000:16:00.0");
        // Builder: one RoCE port, "4: ACTIVE", "400 Gb/sec (4X NDR)", 2 of 16 GIDs populated, netdev lan0.
        assertThat(first.ports()).containsExactly(new HcaPort(1, "Ethernet", "ACTIVE", 400, List.of("lan0"), 2));
        // Host bridge pci0000:15 -> root port 0000:15:01.0 -> switch (upstream port 0000:16:00.0).
        Map<String, PcieBridge> bridges = spec.pcieBridges().stream()
                .collect(Collectors.toMap(PcieBridge::id, Function.identity()));
        assertThat(bridges.get("pci0000:15")).isEqualTo(new PcieBridge("pci0000:15", PcieBridge.Kind.HOST_BRIDGE,
                null, 0));
        assertThat(bridges.get("0000:15:01.0")).isEqualTo(new PcieBridge("0000:15:01.0", PcieBridge.Kind.ROOT_PORT,
                "pci0000:15", 0));
        assertThat(bridges.get("0000:16:00.0")).isEqualTo(new PcieBridge("0000:16:00.0", PcieBridge.Kind.SWITCH,
                "0000:15:01.0", 0));
        assertThat(bridges.get("pci0000:d8").numaNode()).isEqualTo(1);
        // 8 host bridges, 8 root ports, 8 switches; downstream ports are not bridges of the model.
        assertThat(spec.pcieBridges()).hasSize(24);
        assertThat(spec.pairs()).isEmpty();
        assertThat(spec.excluded()).isEmpty();
    }

    @Test
    void case05ShapeGivesTheNvidiaSmiMatrixAndFlagsTheBond() {
        Shape shape = SysfsMachineShapes.h100TwoGpusPerNicCase05(root);
        NodeTopologySpec spec = parser.parse(shape.root());

        assertThat(spec.complete()).isTrue();
        assertThat(rows(spec, shape.hcaNames())).isEqualTo(shape.gpuRows());
        Map<String, Hca> hcas = spec.hcas().stream().collect(Collectors.toMap(Hca::name, Function.identity()));
        assertThat(hcas.get("mlx5_4").bondMaster()).isEqualTo("bond0");
        assertThat(hcas.get("mlx5_5").bondMaster()).isEqualTo("bond0");
        assertThat(hcas.get("mlx5_0").bondMaster()).isNull();
        assertThat(hcas.get("mlx5_0").numaNode()).isNull();
        assertThat(hcas.get("mlx5_1").ports().getFirst().netdevs()).containsExactly("lan3");
        assertThat(hcas.get("mlx5_5").pciBusId()).isEqualTo("0000:e1:00.1");
    }

    @Test
    void roceLagDeviceServesTheBondAndIsNotAMember() {
        // RoCE LAG: the RDMA device of bond0 sits on the first PF (a bond member) but its GIDs are bond0's.
        SysfsMachineShapes.h100TwoGpusPerNicCase05(root).builder()
                .gid("mlx5_4", 1, 0, "fe80:0000:0000:0000:0000:00ff:fe00:0000", "IB/RoCE v1", "bond0")
                .gid("mlx5_4", 1, 1, "fe80:0000:0000:0000:0000:00ff:fe00:0000", "RoCE v2", "bond0");
        NodeTopologySpec spec = parser.parse(root);

        Map<String, Hca> hcas = spec.hcas().stream().collect(Collectors.toMap(Hca::name, Function.identity()));
        assertThat(hcas.get("mlx5_4").bondMaster()).isNull();
        assertThat(hcas.get("mlx5_5").bondMaster()).isEqualTo("bond0");
    }

    @Test
    void case07ShapeGivesTheNvidiaSmiMatrix() {
        Shape shape = SysfsMachineShapes.rtx6000AdaCase07(root);
        NodeTopologySpec spec = parser.parse(shape.root());

        assertThat(spec.complete()).isTrue();
        assertThat(rows(spec, shape.hcaNames())).isEqualTo(shape.gpuRows());
        // RTX 6000 Ada is class 0x030000 (VGA), still a GPU; bus order 01, 41, c1, e1 per the fixture's lspci.
        assertThat(spec.gpus()).extracting(Gpu::pciBusId)
                .containsExactly("0000:01:00.0", "0000:41:00.0", "0000:c1:00.0", "0000:e1:00.0");
        // Directly on a root port: the nearest bridge is the root port itself.
        assertThat(spec.gpus().getFirst().pcieParent()).isEqualTo("0000:00:01.1");
    }

    @Test
    void case03ShapeGivesTheNvidiaSmiMatrixWithFourNumaNodes() {
        Shape shape = SysfsMachineShapes.a100FourNumaCase03(root);
        NodeTopologySpec spec = parser.parse(shape.root());

        assertThat(rows(spec, shape.hcaNames())).isEqualTo(shape.gpuRows());
        // case-03 NUMA Affinity column: 1, 0, 3, 2.
        assertThat(spec.gpus()).extracting(Gpu::numaNode).containsExactly(1, 0, 3, 2);
        assertThat(spec.numaNodes()).extracting(NumaNode::socket).containsExactly(0, 0, 1, 1);
        assertThat(spec.hcas().getFirst().ports())
                .containsExactly(new HcaPort(1, "InfiniBand", "ACTIVE", 200, List.of("ib0"), 2));
    }

    @Test
    void acceptsTheSysDirectoryItself() {
        Shape shape = SysfsMachineShapes.rtx6000AdaCase07(root);
        NodeTopologySpec viaRoot = parser.parse(shape.root());
        NodeTopologySpec viaSys = parser.parse(shape.root().resolve("sys"));
        assertThat(viaSys).isEqualTo(viaRoot);
    }

    @Test
    void portDownIsReported() {
        SysfsMachineShapes.dgxH100Case01(root).builder()
                .port("mlx5_0", 1, "1: DOWN", "Ethernet", "400 Gb/sec (4X NDR)", "lan0");
        NodeTopologySpec spec = parser.parse(root);

        HcaPort port = spec.hcas().getFirst().ports().getFirst();
        assertThat(port.state()).isEqualTo("DOWN");
        assertThat(port.isUp()).isFalse();
        assertThat(spec.complete()).isTrue();
    }

    @Test
    void softwareRdmaDeviceIsListedWithoutPciDeviceOrDistances() {
        // case-43: a SoftiWARP device siw_eth0 next to real HCAs; sysfs has no PCI device for it.
        SysfsMachineShapes.rtx6000AdaCase07(root).builder()
                .virtualNetdev("eth0")
                .softwareHca("siw_eth0", "eth0");
        NodeTopologySpec spec = parser.parse(root);

        Hca siw = spec.hcas().stream().filter(h -> h.name().equals("siw_eth0")).findFirst().orElseThrow();
        assertThat(siw.pciBusId()).isNull();
        assertThat(siw.numaNode()).isNull();
        assertThat(siw.pcieParent()).isNull();
        assertThat(siw.isSoftware()).isTrue();
        assertThat(siw.ports()).extracting(HcaPort::state).containsExactly("ACTIVE");
        assertThat(spec.distances()).noneMatch(d -> d.hca().equals("siw_eth0"));
        assertThat(spec.distances()).hasSize(16);
        assertThat(spec.complete()).isTrue();
        assertThat(spec.warnings()).isEmpty();
    }

    @Test
    void unknownNumaNodeGivesSysAcrossHostBridgesButKeepsPixUnderOneSwitch() {
        // GPU0 of case-01 with numa_node -1: still PIX to mlx5_0 (same switch), but NODE to mlx5_1..3 becomes SYS
        // because its NUMA node is unknown (docs/formats/node-topology.md §4 step 5).
        SysfsMachineShapes.dgxH100Case01(root).builder()
                .overwrite("bus/pci/devices/0000:18:00.0/numa_node", "-1");
        NodeTopologySpec spec = parser.parse(root);

        assertThat(spec.gpus().getFirst().numaNode()).isNull();
        assertThat(rows(spec, List.of("mlx5_0", "mlx5_1", "mlx5_4")).getFirst()).isEqualTo("PIX SYS SYS");
        assertThat(spec.complete()).isTrue();
    }

    @Test
    void unknownNumaNodeOnASingleNodeHostIsThatNode() {
        SysfsTreeBuilder b = new SysfsTreeBuilder(root).numaNode(0, "0-63", 0);
        b.gpu(SysfsMachineShapes.gpuUnderSwitch(0x15), null);
        b.hca("mlx5_0", SysfsMachineShapes.nicUnderSwitch(0x27), null, "lan0");
        NodeTopologySpec spec = parser.parse(root);

        // Different host bridges, both numa_node -1, one NUMA node on the host: NODE, not SYS.
        assertThat(spec.distances()).containsExactly(
                new GpuHcaDistance(0, "mlx5_0", PcieDistance.NODE));
        assertThat(spec.gpus().getFirst().numaNode()).isNull();
    }

    @Test
    void brokenSymlinkIsAWarningNamingThePath() {
        SysfsMachineShapes.dgxH100Case01(root).builder()
                .breakLink("class/infiniband/mlx5_3/device", "../../../0000:5e:00.7");
        NodeTopologySpec spec = parser.parse(root);

        assertThat(spec.complete()).isFalse();
        assertThat(spec.warnings()).anySatisfy(w -> assertThat(w)
                .contains("mlx5_3/device").contains("broken symlink to ../../../0000:5e:00.7"));
        // mlx5_3 is still listed, without a PCI device or distances; the others are intact.
        assertThat(spec.hcas()).extracting(Hca::name).contains("mlx5_3");
        assertThat(spec.distances()).noneMatch(d -> d.hca().equals("mlx5_3")).hasSize(56);
    }

    @Test
    void brokenPciDeviceLinkIsAWarning() {
        SysfsMachineShapes.dgxH100Case01(root).builder()
                .breakLink("bus/pci/devices/0000:db:00.0", "../../../devices/pci0000:d8/gone");
        NodeTopologySpec spec = parser.parse(root);

        assertThat(spec.complete()).isFalse();
        assertThat(spec.warnings()).anySatisfy(w -> assertThat(w)
                .endsWith("sys/bus/pci/devices/0000:db:00.0: broken symlink to ../../../devices/pci0000:d8/gone"));
        assertThat(spec.warnings()).anySatisfy(w -> assertThat(w).endsWith("sys/bus/pci/devices/0000:db:00.0: PCI "
                + "class unknown, cannot tell whether it is a GPU; GPU indices of GPUs above 0000:db:00.0 may be one "
                + "too low"));
        assertThat(spec.gpus()).hasSize(7);
    }

    @Test
    void unreadableFileIsAWarningNamingThePath() {
        SysfsMachineShapes.dgxH100Case01(root).builder()
                .makeUnreadable("class/infiniband/mlx5_2/ports/1/state");
        NodeTopologySpec spec = parser.parse(root);

        assertThat(spec.complete()).isFalse();
        assertThat(spec.warnings()).singleElement().satisfies(w -> assertThat(w)
                .contains("infiniband/mlx5_2/ports/1/state: cannot read (is a directory"));
        assertThat(spec.hcas().get(2).ports().getFirst().state()).isNull();
        assertThat(spec.hcas().get(2).ports().getFirst().isUp()).isTrue();
    }

    @Test
    void garbageNumaNodeIsAWarning() {
        SysfsMachineShapes.dgxH100Case01(root).builder()
                .overwrite("bus/pci/devices/0000:18:00.0/numa_node", "zero");
        NodeTopologySpec spec = parser.parse(root);

        assertThat(spec.complete()).isFalse();
        assertThat(spec.warnings()).singleElement().satisfies(w -> assertThat(w)
                .endsWith("0000:18:00.0/numa_node: \"zero\" is not an integer"));
        assertThat(spec.gpus().getFirst().numaNode()).isNull();
    }

    @Test
    void narrowPcieLinkIsAnInformationalWarning() {
        SysfsMachineShapes.rtx6000AdaCase07(root).builder()
                .overwrite("bus/pci/devices/0000:41:00.0/current_link_width", "8");
        NodeTopologySpec spec = parser.parse(root);

        assertThat(spec.complete()).isTrue();
        assertThat(spec.warnings()).singleElement().satisfies(w -> assertThat(w)
                .contains("GPU1 (0000:41:00.0) runs its PCIe link at x8, below its maximum x16"));
    }

    @Test
    void gidEntriesAreReadWithTypeAndOwner() {
        // A macvlan child of lan0 added its IPv4 GID pair at 2/3 (docs/formats/node-topology.md §3: 192.168.4.12).
        SysfsMachineShapes.dgxH100Case01(root).builder()
                .virtualNetdev("net1")
                .gid("mlx5_0", 1, 2, "0000:0000:0000:0000:0000:ffff:c0a8:040c", "IB/RoCE v1", "net1")
                .gid("mlx5_0", 1, 3, "0000:0000:0000:0000:0000:ffff:c0a8:040c", "RoCE v2", "net1");
        SysfsDiscovery discovery = parser.discover(SysfsTree.open(root));

        assertThat(discovery.spec().hcas().getFirst().ports().getFirst().gidTableSize()).isEqualTo(4);
        assertThat(discovery.gids()).filteredOn(g -> g.hca().equals("mlx5_0")).containsExactly(
                new SysfsDiscovery.GidEntry("mlx5_0", 1, 0, "fe80:0000:0000:0000:0000:00ff:fe00:0000", "IB/RoCE v1",
                        "lan0"),
                new SysfsDiscovery.GidEntry("mlx5_0", 1, 1, "fe80:0000:0000:0000:0000:00ff:fe00:0001", "RoCE v2",
                        "lan0"),
                new SysfsDiscovery.GidEntry("mlx5_0", 1, 2, "0000:0000:0000:0000:0000:ffff:c0a8:040c", "IB/RoCE v1",
                        "net1"),
                new SysfsDiscovery.GidEntry("mlx5_0", 1, 3, "0000:0000:0000:0000:0000:ffff:c0a8:040c", "RoCE v2",
                        "net1"));
        // 8 GPUs + 8 HCAs, in bus id order.
        assertThat(discovery.devices()).hasSize(16);
        assertThat(discovery.devices().getFirst().busId()).isEqualTo("0000:18:00.0");
        assertThat(discovery.devices().getFirst().linkWidth()).isEqualTo(16);
    }

    @Test
    void absoluteSymlinkTargetsResolveInsideTheSnapshot() throws Exception {
        SysfsMachineShapes.rtx6000AdaCase07(root);
        // Some copies of /sys (cp -a from a live host through a tool) end up with absolute links.
        Path link = root.resolve("sys/bus/pci/devices/0000:01:00.0");
        Files.delete(link);
        Files.createSymbolicLink(link, Path.of("/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0"));
        NodeTopologySpec spec = parser.parse(root);

        assertThat(spec.complete()).isTrue();
        assertThat(spec.gpus().getFirst().pciBusId()).isEqualTo("0000:01:00.0");
        assertThat(spec.distances().getFirst()).isEqualTo(new GpuHcaDistance(0, "mlx5_0", PcieDistance.NODE));
    }

    @Test
    void symlinkLoopIsAWarning() throws Exception {
        SysfsMachineShapes.rtx6000AdaCase07(root);
        Path a = root.resolve("sys/class/net/loop_a");
        Files.createSymbolicLink(a, Path.of("loop_b"));
        Files.createSymbolicLink(root.resolve("sys/class/net/loop_b"), Path.of("loop_a"));
        NodeTopologySpec spec = parser.parse(root);

        assertThat(spec.warnings()).anySatisfy(w -> assertThat(w).contains("too many levels of symbolic links"));
        assertThat(spec.gpus()).hasSize(4);
    }

    @Test
    void missingDirectoryIsAnInputErrorNamingThePath() {
        Path missing = root.resolve("nope");
        assertThatThrownBy(() -> parser.parse(missing)).isInstanceOf(InputException.class)
                .hasMessage(missing + ": no such file or directory");
    }

    @Test
    void emptyDirectoryIsAnInputErrorNamingThePath() {
        assertThatThrownBy(() -> parser.parse(root)).isInstanceOf(InputException.class)
                .hasMessageStartingWith(root + ": empty directory, expected a sysfs tree");
    }

    @Test
    void directoryWithoutSysfsIsAnInputError() throws Exception {
        Files.writeString(root.resolve("notes.txt"), "hello");
        assertThatThrownBy(() -> parser.parse(root)).isInstanceOf(InputException.class)
                .hasMessageContaining(root + ": not a sysfs tree: neither " + root.resolve("sys/bus/pci/devices"));
    }

    @Test
    void treeWithoutGpuOrHcaIsAnInputError() {
        new SysfsTreeBuilder(root).pciFunction("pci0000:00/0000:00:1f.0", "0x060100", "0x8086", "0x1234", 0);
        assertThatThrownBy(() -> parser.parse(root)).isInstanceOf(InputException.class)
                .hasMessageContaining("no NVIDIA GPU").hasMessageContaining("no RDMA device");
    }

    @Test
    void nonNvidiaDisplayDeviceIsNotAGpu() {
        SysfsTreeBuilder b = new SysfsTreeBuilder(root);
        // A BMC's VGA controller (ASPEED, vendor 0x1a03) on every server board.
        b.pciFunction("pci0000:00/0000:00:1c.0/0000:02:00.0", "0x030000", "0x1a03", "0x2000", 0);
        b.gpu(SysfsMachineShapes.gpuUnderSwitch(0x15), 0);
        NodeTopologySpec spec = parser.parse(root);
        assertThat(spec.gpus()).extracting(Gpu::pciBusId).containsExactly("0000:18:00.0");
    }
}
