package dev.railyard.scheduler.hints;

import dev.railyard.api.hints.PlacementHint;
import dev.railyard.api.hints.PlacementHint.GpuHint;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.scheduler.hints.podenv.PodAddresses;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The reference node of the seed setup (docs/seed-setup.md): 8 GPUs, HCAs mlx5_0..3 on netdevs lan2..lan5, each HCA
 * serving the two GPUs under its PCIe switch (GPU0,1 → mlx5_0; GPU2,3 → mlx5_1; ...), one macvlan network per rail
 * (rdma-net-ipam-lan2..5, ranges 192.168.4.0/22, 8.0/22, 12.0/22, 16.0/22), attached in the pod as net1..net4 in
 * annotation order. UUIDs and bus ids are made up (the seed gives none).
 */
public final class SeedNode {
    public static final String NODE = "gpu-a1";

    private SeedNode() {
    }

    public static String uuid(int gpu) {
        return "GPU-5eed0000-0000-4000-8000-00000000000" + gpu;
    }

    public static String busId(int gpu) {
        return String.format("0000:%02x:00.0", 0x18 + 0x10 * gpu);
    }

    /** GPU {@code i} with its own HCA: mlx5_{i/2}, netdev lan{2+i/2}, rail i/2, PIX, pod interface net{1+i/2}. */
    public static GpuHint gpu(int i) {
        int rail = i / 2;
        return new GpuHint(i, uuid(i), busId(i), "mlx5_" + rail, 1, "lan" + (2 + rail), rail, PcieDistance.PIX,
                "prod/rdma-net-ipam-lan" + (2 + rail), "net" + (1 + rail));
    }

    public static List<GpuHint> railMap() {
        List<GpuHint> all = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            all.add(gpu(i));
        }
        return all;
    }

    /** A hint planning {@code planned} GPUs, with the node rail map, the given range and {@code =eth0}. */
    public static PlacementHint hint(List<Integer> planned, String hca, String addrRange) {
        List<GpuHint> gpus = planned.stream().map(SeedNode::gpu).toList();
        return new PlacementHint(PlacementHint.VERSION, NODE, "prod/rdma-test", 1, 0,
                List.of(new PlacementHint.RailLeaf(0, "leaf-r0")), gpus,
                new PlacementHint.NcclSettings(hca, "=eth0", addrRange, "AF_INET", null), railMap());
    }

    /** The pod's interfaces: eth0 on the primary CNI, net1..net4 with host part .12 in each rail range. */
    public static PodAddresses podAddresses() {
        return PodAddresses.parseIpAddr(String.join("\n",
                "1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever",
                "3: eth0@if12    inet 10.244.1.5/24 brd 10.244.1.255 scope global eth0\\       valid_lft forever preferred_lft forever",
                "4: net1@if2    inet 192.168.4.12/22 brd 192.168.7.255 scope global net1\\       valid_lft forever preferred_lft forever",
                "5: net2@if3    inet 192.168.8.12/22 brd 192.168.11.255 scope global net2\\       valid_lft forever preferred_lft forever",
                "6: net3@if4    inet 192.168.12.12/22 brd 192.168.15.255 scope global net3\\       valid_lft forever preferred_lft forever",
                "7: net4@if5    inet 192.168.16.12/22 brd 192.168.19.255 scope global net4\\       valid_lft forever preferred_lft forever"),
                "ip -o addr (seed pod)");
    }

    /** One row of a fake GID table; {@code type} null means "read fails with EINVAL". */
    public record Row(int index, String gid, String type, String ndev) {
    }

    public static final String ZERO = "0000:0000:0000:0000:0000:0000:0000:0000";

    /** IPv4-mapped GID text of {@code a.b.c.d}, as sysfs prints it. */
    public static String v4(int a, int b, int c, int d) {
        return String.format("0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", a, b, c, d);
    }

    /**
     * Writes {@code <sys>/class/infiniband/<hca>/ports/<port>/{link_layer,gids/i,gid_attrs/types/i,
     * gid_attrs/ndevs/i}}. An unreadable attribute (EINVAL in a container) is made a directory, which fails to
     * read the same way. A port written before is replaced.
     */
    public static void writePort(Path sys, String hca, int port, String linkLayer, List<Row> rows) throws IOException {
        Path p = sys.resolve("class/infiniband/" + hca + "/ports/" + port);
        if (Files.exists(p)) {
            try (var walk = Files.walk(p)) {
                for (Path x : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(x);
                }
            }
        }
        Files.createDirectories(p.resolve("gids"));
        Files.createDirectories(p.resolve("gid_attrs/types"));
        Files.createDirectories(p.resolve("gid_attrs/ndevs"));
        Files.writeString(p.resolve("link_layer"), linkLayer + "\n");
        for (Row r : rows) {
            Files.writeString(p.resolve("gids/" + r.index()), r.gid() + "\n", StandardCharsets.US_ASCII);
            attr(p.resolve("gid_attrs/types/" + r.index()), r.type());
            attr(p.resolve("gid_attrs/ndevs/" + r.index()), r.ndev());
        }
    }

    private static void attr(Path file, String value) throws IOException {
        if (value == null) {
            Files.createDirectories(file);
        } else {
            Files.writeString(file, value + "\n");
        }
    }
}
