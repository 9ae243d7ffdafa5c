package dev.railyard.topology.discovery.sysfs;

import java.nio.file.Path;
import java.util.List;

/**
 * Public door to {@link SysfsMachineShapes} and {@link SysfsTreeBuilder} for tests in other packages and modules (the
 * node agent's, {@code dev.railyard.agent}, through topology's test jar), which build the same fixture machines and then change them the way
 * a running node changes: a port going down, GID entries added by pods.
 */
public final class SysfsFixtureMachines {
    private SysfsFixtureMachines() {
    }

    /** A fixture machine written below {@code root/sys}. */
    public static final class Machine {
        private final Path root;
        private final String fixture;
        private final List<String> hcaNames;
        private final SysfsTreeBuilder builder;

        private Machine(Path root, String fixture, List<String> hcaNames, SysfsTreeBuilder builder) {
            this.root = root;
            this.fixture = fixture;
            this.hcaNames = hcaNames;
            this.builder = builder;
        }

        /** @return the directory holding {@code sys/} */
        public Path root() {
            return root;
        }

        /** @return the fixture file whose {@code nvidia-smi topo -m} matrix the tree reproduces */
        public String fixture() {
            return fixture;
        }

        /** @return the sysfs HCA names of the matrix's NIC columns, in column order */
        public List<String> hcaNames() {
            return hcaNames;
        }

        /** Rewrites port {@code port} of {@code hca} (state such as {@code 1: DOWN}; 16 GID entries, 2 populated). */
        public Machine port(String hca, int port, String state, String linkLayer, String rate, String netdev) {
            builder.port(hca, port, state, linkLayer, rate, netdev);
            return this;
        }

        /** Sets one GID entry of a port, e.g. the IPv4-mapped RoCE v2 GID a macvlan pod adds. */
        public Machine gid(String hca, int port, int index, String gid, String type, String netdev) {
            builder.gid(hca, port, index, gid, type, netdev);
            return this;
        }
    }

    /** case-01: DGX H100, 8 GPUs and 8 HCAs (mlx5_0..7 on netdevs lan0..7), GPU i PIX to mlx5_i. */
    public static Machine case01(Path root) {
        return of(root, SysfsMachineShapes.dgxH100Case01(root));
    }

    /** case-05: H100, 6 HCAs, mlx5_k beside GPU 2k (netdevs lan2..lan5), mlx5_4/5 bonded as bond0, NUMA unknown. */
    public static Machine case05(Path root) {
        return of(root, SysfsMachineShapes.h100TwoGpusPerNicCase05(root));
    }

    /** case-07: 4x RTX 6000 Ada, two dual-port ConnectX-7, NODE/SYS only. */
    public static Machine case07(Path root) {
        return of(root, SysfsMachineShapes.rtx6000AdaCase07(root));
    }

    /** case-03: 4x A100, 2 InfiniBand HCAs, 4 NUMA nodes, two GPUs without a near HCA. */
    public static Machine case03(Path root) {
        return of(root, SysfsMachineShapes.a100FourNumaCase03(root));
    }

    /** A GB200 compute tray: 4 C2C-attached GPUs on two Grace sockets, 4 ConnectX-7 and a BlueField-3. */
    public static Machine gb200Tray(Path root) {
        return of(root, SysfsMachineShapes.gb200Tray(root));
    }

    private static Machine of(Path root, SysfsMachineShapes.Shape shape) {
        return new Machine(root, shape.fixture(), shape.hcaNames(), shape.builder());
    }
}
