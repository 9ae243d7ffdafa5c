package dev.railyard.topology.discovery.sysfs;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Sysfs trees of machines whose {@code nvidia-smi topo -m} output is in {@code src/test/resources/fixtures}, built so
 * that the PCIe tree explains that matrix. Bus ids are invented (the dumps do not give them) but follow the usual
 * layout: each GPU under its own host bridge, behind a PCIe switch where the matrix has PIX.
 *
 * <p>Each shape also carries the fixture's GPU-by-NIC matrix, copied from the artifact, so tests can compare
 * without the nvidia-smi parser.
 */
final class SysfsMachineShapes {
    private SysfsMachineShapes() {
    }

    /**
     * A shape: where it was built and what nvidia-smi printed for it.
     *
     * @param builder   the builder, for tests that damage the tree afterwards
     * @param fixture   fixture file name
     * @param nicNames  the matrix's NIC column names in order ({@code NIC0} or {@code mlx5_0})
     * @param hcaNames  the sysfs HCA names for those columns, same order
     * @param gpuRows   GPU rows of the matrix restricted to the NIC columns, one string per GPU
     */
    record Shape(SysfsTreeBuilder builder, String fixture, List<String> nicNames, List<String> hcaNames,
                 List<String> gpuRows) {
        Path root() {
            return builder.sys().getParent();
        }
    }

    /**
     * case-01 (DGX H100, 8 GPU, 8 NIC, 1:1): GPU i and mlx5_i share a PCIe switch below host bridge i; host
     * bridges 0-3 on NUMA 0, 4-7 on NUMA 1.
     */
    static Shape dgxH100Case01(Path root) {
        SysfsTreeBuilder b = new SysfsTreeBuilder(root)
                .numaNode(0, "0-47,96-143", 0)
                .numaNode(1, "48-95,144-191", 1);
        int[] hostBuses = {0x15, 0x27, 0x37, 0x5a, 0x97, 0xa8, 0xb7, 0xd8};
        for (int i = 0; i < 8; i++) {
            int numa = i < 4 ? 0 : 1;
            int x = hostBuses[i];
            b.gpu(gpuUnderSwitch(x), numa);
            b.hca("mlx5_" + i, nicUnderSwitch(x), numa, "lan" + i);
        }
        // case-01 artifact, GPU rows, columns NIC0..NIC7 (NIC Legend: NICk = mlx5_k).
        List<String> rows = List.of(
                "PIX NODE NODE NODE SYS SYS SYS SYS",
                "NODE PIX NODE NODE SYS SYS SYS SYS",
                "NODE NODE PIX NODE SYS SYS SYS SYS",
                "NODE NODE NODE PIX SYS SYS SYS SYS",
                "SYS SYS SYS SYS PIX NODE NODE NODE",
                "SYS SYS SYS SYS NODE PIX NODE NODE",
                "SYS SYS SYS SYS NODE NODE PIX NODE",
                "SYS SYS SYS SYS NODE NODE NODE PIX");
        return new Shape(b, "case-01-dgx-h100-8gpu-8nic-1to1.txt", names("NIC", 8), names("mlx5_", 8), rows);
    }

    /**
     * case-05 (H100, 6 NIC, 2 GPUs per NIC): each GPU below its own host bridge; mlx5_k shares the switch of GPU
     * 2k; mlx5_4/mlx5_5 are the two ports of a front-end card on a host bridge of their own, bonded as bond0.
     *
     * <p>The matrix has the odd GPUs SYS to every NIC, even to the NIC of their same-socket neighbour, and NIC4/5
     * SYS to every GPU. Only unknown NUMA on the NICs ({@code numa_node} {@code -1}) explains that: across host
     * bridges an unknown NUMA node is SYS, and that is the one reading under which the matrix is consistent.
     * The stored copy is cut inside row GPU7; its row is GPU5's pattern (odd GPU, other socket).
     */
    static Shape h100TwoGpusPerNicCase05(Path root) {
        SysfsTreeBuilder b = new SysfsTreeBuilder(root)
                .numaNode(0, "0-47,96-143", 0)
                .numaNode(1, "48-95,144-191", 1);
        int[] hostBuses = {0x15, 0x27, 0x37, 0x5a, 0x97, 0xa8, 0xb7, 0xd8};
        for (int i = 0; i < 8; i++) {
            int x = hostBuses[i];
            b.gpu(gpuUnderSwitch(x), i < 4 ? 0 : 1);
            if (i % 2 == 0) {
                b.hca("mlx5_" + (i / 2), nicUnderSwitch(x), null, "lan" + (i / 2 + 2));
            }
        }
        b.hca("mlx5_4", "pci0000:e0/0000:e0:01.0/0000:e1:00.0", null, "ens1f0np0");
        b.hca("mlx5_5", "pci0000:e0/0000:e0:01.0/0000:e1:00.1", null, "ens1f1np1");
        b.bond("bond0", "ens1f0np0", "ens1f1np1");
        // case-05 artifact, GPU rows GPU0..GPU6 as printed, columns NIC0..NIC5; GPU7 cut off (see above).
        List<String> rows = List.of(
                "PIX SYS SYS SYS SYS SYS",
                "SYS SYS SYS SYS SYS SYS",
                "SYS PIX SYS SYS SYS SYS",
                "SYS SYS SYS SYS SYS SYS",
                "SYS SYS PIX SYS SYS SYS",
                "SYS SYS SYS SYS SYS SYS",
                "SYS SYS SYS PIX SYS SYS",
                "SYS SYS SYS SYS SYS SYS");
        return new Shape(b, "case-05-h100-6nic-2gpu-per-nic.txt", names("NIC", 6), names("mlx5_", 6), rows);
    }

    /**
     * case-07 (ASUS ESC8000A-E12, 4x RTX 6000 Ada, 2 dual-port ConnectX-7): every GPU directly on a root port of
     * its own host bridge, each ConnectX-7's two functions on one root port; bus numbers from the fixture's
     * {@code lspci -tv} excerpt, NUMA from its {@code numactl --hardware}.
     */
    static Shape rtx6000AdaCase07(Path root) {
        SysfsTreeBuilder b = new SysfsTreeBuilder(root)
                .numaNode(0, "0-31", 0)
                .numaNode(1, "32-63", 1);
        b.pciFunction("pci0000:00/0000:00:01.1/0000:01:00.0", "0x030000", SysfsTreeBuilder.NVIDIA, "0x26b1", 0);
        b.pciFunction("pci0000:40/0000:40:01.1/0000:41:00.0", "0x030000", SysfsTreeBuilder.NVIDIA, "0x26b1", 0);
        b.pciFunction("pci0000:c0/0000:c0:01.1/0000:c1:00.0", "0x030000", SysfsTreeBuilder.NVIDIA, "0x26b1", 1);
        b.pciFunction("pci0000:e0/0000:e0:01.1/0000:e1:00.0", "0x030000", SysfsTreeBuilder.NVIDIA, "0x26b1", 1);
        b.hca("mlx5_0", "pci0000:20/0000:20:03.1/0000:21:00.0", 0, "enp33s0f0np0");
        b.hca("mlx5_1", "pci0000:20/0000:20:03.1/0000:21:00.1", 0, "enp33s0f1np1");
        b.hca("mlx5_2", "pci0000:80/0000:80:01.1/0000:81:00.0", 1, "enp129s0f0np0");
        b.hca("mlx5_3", "pci0000:80/0000:80:01.1/0000:81:00.1", 1, "enp129s0f1np1");
        // case-07 artifact, GPU rows, columns NIC0..NIC3 (NIC Legend: NICk = mlx5_k).
        List<String> rows = List.of(
                "NODE NODE SYS SYS",
                "NODE NODE SYS SYS",
                "SYS SYS NODE NODE",
                "SYS SYS NODE NODE");
        return new Shape(b, "case-07-rtx6000ada-4gpu-4nic-node-sys-only.txt", names("NIC", 4), names("mlx5_", 4),
                rows);
    }

    /**
     * case-03 (4x A100, 2 HDR HCAs, AMD host with 4 NUMA nodes): GPU1 and mlx5_0 share a switch on NUMA 0, GPU2
     * and mlx5_1 on NUMA 3; GPU0 is on NUMA 1 and GPU3 on NUMA 2 with no HCA. NUMA nodes and CPU lists from the
     * matrix's affinity columns. InfiniBand ports.
     */
    static Shape a100FourNumaCase03(Path root) {
        SysfsTreeBuilder b = new SysfsTreeBuilder(root)
                .numaNode(0, "0-15,64-79", 0)
                .numaNode(1, "16-31,80-95", 0)
                .numaNode(2, "32-47,96-111", 1)
                .numaNode(3, "48-63,112-127", 1);
        b.gpu(gpuUnderSwitch(0x20), 1);
        b.gpu(gpuUnderSwitch(0x40), 0);
        b.hca("mlx5_0", nicUnderSwitch(0x40), 0, "ib0");
        b.gpu(gpuUnderSwitch(0xa0), 3);
        b.hca("mlx5_1", nicUnderSwitch(0xa0), 3, "ib1");
        b.gpu(gpuUnderSwitch(0xc0), 2);
        b.port("mlx5_0", 1, "4: ACTIVE", "InfiniBand", "200 Gb/sec (4X HDR)", "ib0");
        b.port("mlx5_1", 1, "4: ACTIVE", "InfiniBand", "200 Gb/sec (4X HDR)", "ib1");
        // case-03 artifact, GPU rows, columns mlx5_0, mlx5_1 (old format, no NIC Legend).
        List<String> rows = List.of(
                "SYS SYS",
                "PIX SYS",
                "SYS PIX",
                "SYS SYS");
        return new Shape(b, "case-03-a100-4gpu-2nic-4numa-old-format.txt", List.of("mlx5_0", "mlx5_1"),
                List.of("mlx5_0", "mlx5_1"), rows);
    }

    /** Chain of the GPU behind the switch of host bridge {@code x}: root port, USP, DSP 0, GPU. */
    /**
     * A GB200 compute tray (fixture gb200-4gpu-tray-topo-m.txt is nvidia-smi's view of one): two Grace CPUs, NUMA
     * node 0 with CPUs 0-71 holding GPU0/GPU1, node 1 with CPUs 72-143 holding GPU2/GPU3 (sglang#11208's CPU and
     * NUMA Affinity columns; srt-slurm#164), GPU memory as CPU-less NUMA nodes 2-33 (GPU NUMA IDs 2, 10, 18, 26 and
     * the affinity lists 3-9, 11-17, 19-25, 27-33 in sglang#11208), an arm64 kernel. Each GPU and each NIC sits on a
     * root port of its own PCI domain, as on Grace, where every root complex is a domain: GPUs in domains 0008,
     * 0009 (socket 0) and 0018, 0019 (socket 1); four ConnectX-7 (mlx5_0..3, netdevs ib0..ib3) in 0000, 0002 and
     * 0010, 0012; a dual-port BlueField-3 front end (mlx5_4/mlx5_5, netdevs eth0/eth1) in 0006 on socket 0. The
     * domain numbers and device ids are invented; the layout is the one nvidia-smi's all-SYS GPU-NIC row implies.
     * GB200 GPUs reach the CPU over NVLink-C2C, so nvidia-smi prints SYS to every NIC: the matrix rows below are
     * nvidia-smi's, not what sysfs gives.
     */
    static Shape gb200Tray(Path root) {
        SysfsTreeBuilder b = new SysfsTreeBuilder(root)
                .numaNode(0, "0-71", 0)
                .numaNode(1, "72-143", 1)
                .arm64();
        for (int node = 2; node <= 33; node++) {
            b.memoryOnlyNumaNode(node);
        }
        int[] gpuDomains = {0x8, 0x9, 0x18, 0x19};
        for (int i = 0; i < 4; i++) {
            b.pciFunction(rootPortChild(gpuDomains[i]), "0x030200", SysfsTreeBuilder.NVIDIA, "0x2941", i < 2 ? 0 : 1);
        }
        int[] nicDomains = {0x0, 0x2, 0x10, 0x12};
        for (int i = 0; i < 4; i++) {
            b.hca("mlx5_" + i, rootPortChild(nicDomains[i]), i < 2 ? 0 : 1, "ib" + i);
        }
        String bf3 = "pci0006:00/0006:00:00.0/0006:01:00.";
        b.hca("mlx5_4", bf3 + "0", 0, "eth0");
        b.hca("mlx5_5", bf3 + "1", 0, "eth1");
        List<String> rows = List.of(
                "SYS SYS SYS SYS SYS SYS",
                "SYS SYS SYS SYS SYS SYS",
                "SYS SYS SYS SYS SYS SYS",
                "SYS SYS SYS SYS SYS SYS");
        return new Shape(b, "gb200-4gpu-tray-topo-m.txt", names("NIC", 6), names("mlx5_", 6), rows);
    }

    /** A function directly below root port dddd:00:00.0 of its own domain: {@code pcidddd:00/.../dddd:01:00.0}. */
    private static String rootPortChild(int domain) {
        return String.format(Locale.ROOT, "pci%04x:00/%04x:00:00.0/%04x:01:00.0", domain, domain, domain);
    }

    static String gpuUnderSwitch(int x) {
        return String.format(Locale.ROOT, "pci0000:%02x/0000:%02x:01.0/0000:%02x:00.0/0000:%02x:00.0/0000:%02x:00.0",
                x, x, x + 1, x + 2, x + 3);
    }

    /** Chain of the NIC behind the same switch: root port, USP, DSP 1, NIC. */
    static String nicUnderSwitch(int x) {
        return String.format(Locale.ROOT, "pci0000:%02x/0000:%02x:01.0/0000:%02x:00.0/0000:%02x:01.0/0000:%02x:00.0",
                x, x, x + 1, x + 2, x + 4);
    }

    private static List<String> names(String prefix, int count) {
        return java.util.stream.IntStream.range(0, count).mapToObj(i -> prefix + i).toList();
    }
}
