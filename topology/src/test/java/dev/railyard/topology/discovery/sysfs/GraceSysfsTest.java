package dev.railyard.topology.discovery.sysfs;

import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaDistance;
import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.Locality;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.NumaNode;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.topology.pairing.RailPairing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A GB200 compute tray read from sysfs ({@link SysfsMachineShapes#gb200Tray}, facts and sources in its comment):
 * the C2C-attached GPUs are told apart by their {@code numa_node}, and each pairs with a NIC of its own Grace socket
 * at P2C, where nvidia-smi's matrix of the same tray cannot tell ({@code HardwareFixturePairingTest}).
 */
class GraceSysfsTest {
    @TempDir
    Path dir;

    @Test
    void gb200TrayPairsEachGpuWithANicOfItsOwnSocketAtP2c() {
        SysfsMachineShapes.gb200Tray(dir);
        NodeTopologySpec node = new RailPairing().pair(new SysfsTopologyParser().parse(dir));

        // GPUs in bus id order 0008, 0009 (NUMA 0), 0018, 0019 (NUMA 1); every one is alone on its root port of a
        // host with CPU-less NUMA nodes and an arm64 CPU: C2C-attached.
        assertThat(node.gpus()).extracting(Gpu::pciBusId).containsExactly("0008:01:00.0", "0009:01:00.0",
                "0018:01:00.0", "0019:01:00.0");
        assertThat(node.gpus()).extracting(Gpu::numaNode).containsExactly(0, 0, 1, 1);
        assertThat(node.gpus()).extracting(Gpu::c2c).containsOnly(true);
        // same NUMA node, different host bridges: P2C (NCCL's PATH_P2C); the other socket: SYS
        assertThat(node.distances()).contains(new GpuHcaDistance(0, "mlx5_0", PcieDistance.P2C),
                new GpuHcaDistance(0, "mlx5_4", PcieDistance.P2C), new GpuHcaDistance(0, "mlx5_2", PcieDistance.SYS),
                new GpuHcaDistance(3, "mlx5_3", PcieDistance.P2C), new GpuHcaDistance(3, "mlx5_1", PcieDistance.SYS));
        // Each socket's two GPUs tie on its P2C NICs; HCAs in bus id order are mlx5_0 (0000), mlx5_1 (0002),
        // mlx5_4/5 (0006), mlx5_2 (0010), mlx5_3 (0012), and the rank tie-break sends GPU i to the i-th of its
        // socket's NICs in that order: GPU0 -> mlx5_0, GPU1 -> mlx5_1, GPU2 -> mlx5_2 (rank 2 vs slot 4, cost 4,
        // better than slot 5 with GPU3 on slot 4, cost 9 + 1), GPU3 -> mlx5_3. The BlueField-3 ports are spares.
        assertThat(node.pairs()).containsExactly(new GpuHcaPair(0, "mlx5_0", PcieDistance.P2C, 0),
                new GpuHcaPair(1, "mlx5_1", PcieDistance.P2C, 1), new GpuHcaPair(2, "mlx5_2", PcieDistance.P2C, 2),
                new GpuHcaPair(3, "mlx5_3", PcieDistance.P2C, 3));
        assertThat(node.pairs()).allMatch(p -> p.distance().gpuDirectByDefault());
        assertThat(node.excluded()).isEmpty();
        assertThat(node.locality().basis()).isEqualTo(Locality.Basis.NUMA);
        assertThat(node.locality().reason()).startsWith("GPU0, GPU1, GPU2, GPU3 reach the CPU over NVLink-C2C");
        assertThat(node.numaNodes()).filteredOn(n -> n.cpus() != null).extracting(NumaNode::id).containsExactly(0, 1);
        assertThat(node.complete()).isTrue();
        assertThat(node.warnings()).contains("pairing: mlx5_4, mlx5_5 are spares: a candidate the balanced "
                + "minimum-cost pairing did not need");
    }

    @Test
    void withoutTheArm64MarkerTheSameTreeIsReadAsPcieGpus() throws Exception {
        // An x86 host with CXL memory also has CPU-less NUMA nodes; only the arm64 marker makes GPUs C2C. Without
        // it the same tree gives what PCIe GPUs on separate host bridges give: NODE on one socket.
        SysfsMachineShapes.gb200Tray(dir);
        Files.delete(dir.resolve("sys/devices/system/cpu/cpu0/regs/identification/midr_el1"));
        NodeTopologySpec node = new RailPairing().pair(new SysfsTopologyParser().parse(dir));

        assertThat(node.gpus()).extracting(Gpu::c2c).containsOnly((Boolean) null);
        assertThat(node.distances()).contains(new GpuHcaDistance(0, "mlx5_0", PcieDistance.NODE));
        assertThat(node.locality()).isEqualTo(Locality.PCIE);
        assertThat(node.pairs()).extracting(GpuHcaPair::distance).containsOnly(PcieDistance.NODE);
    }

    @Test
    void aHostWhoseFirmwareGivesNoNumaNodeCannotTell() throws Exception {
        // numa_node -1 everywhere on a two-socket host (SysfsTopologyParser: unknown NUMA across host bridges is
        // SYS): every GPU-HCA class is SYS and no NUMA node is known, so nothing is paired.
        SysfsMachineShapes.gb200Tray(dir);
        try (var files = Files.walk(dir.resolve("sys/devices"))) {
            for (Path p : files.filter(f -> f.getFileName().toString().equals("numa_node")).toList()) {
                Files.writeString(p, "-1");
            }
        }
        NodeTopologySpec node = new RailPairing().pair(new SysfsTopologyParser().parse(dir));

        assertThat(node.distances()).extracting(GpuHcaDistance::distance).containsOnly(PcieDistance.SYS);
        assertThat(node.pairs()).isEmpty();
        assertThat(node.locality().basis()).isEqualTo(Locality.Basis.UNDETERMINED);
        assertThat(node.locality().reason()).startsWith("every GPU-HCA distance is SYS and no HCA's NUMA node");
        assertThat(List.of(node.warnings().getLast())).allMatch(w -> w.startsWith("pairing: not paired:"));
    }
}
