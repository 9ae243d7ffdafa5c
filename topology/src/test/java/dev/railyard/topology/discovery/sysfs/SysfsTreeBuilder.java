package dev.railyard.topology.discovery.sysfs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a sysfs tree the way the kernel lays it out, below {@code <root>/sys}, for tests: PCI functions as real
 * directories under {@code devices/pci<dom>:<bus>/...} with {@code bus/pci/devices/<bdf>} symlinks into them,
 * HCAs under their PCI function with {@code class/infiniband/<hca>} symlinks, netdevs likewise under
 * {@code class/net}, NUMA nodes under {@code devices/system/node}. All symlinks are relative, as in real sysfs.
 *
 * <p>A device is placed by its chain below {@code devices/}, e.g.
 * {@code pci0000:17/0000:17:01.0/0000:18:00.0/0000:19:00.0/0000:1a:00.0}: host bridge, root port, switch
 * upstream port, switch downstream port, device. Every BDF on the way becomes a bridge (class {@code 0x060400}).
 */
final class SysfsTreeBuilder {
    static final String NVIDIA = "0x10de";
    static final String MELLANOX = "0x15b3";
    static final String ZERO_GID = "0000:0000:0000:0000:0000:0000:0000:0000";

    private final Path sys;

    SysfsTreeBuilder(Path root) {
        this.sys = root.resolve("sys");
        mkdirs(sys.resolve("bus/pci/devices"));
        mkdirs(sys.resolve("class/infiniband"));
        mkdirs(sys.resolve("class/net"));
    }

    /** @return the {@code sys} directory */
    Path sys() {
        return sys;
    }

    /** Adds NUMA node {@code id} with its CPU list; {@code socket} becomes the first CPU's physical_package_id. */
    SysfsTreeBuilder numaNode(int id, String cpus, int socket) {
        write(sys.resolve("devices/system/node/node" + id + "/cpulist"), cpus);
        String first = cpus.split("[-,]")[0];
        write(sys.resolve("devices/system/cpu/cpu" + first + "/topology/physical_package_id"),
                Integer.toString(socket));
        return this;
    }

    /**
     * Adds a NUMA node with memory but no CPUs (empty {@code cpulist}), as the NVIDIA driver onlines coherent GPU
     * memory on Grace hosts.
     */
    SysfsTreeBuilder memoryOnlyNumaNode(int id) {
        write(sys.resolve("devices/system/node/node" + id + "/cpulist"), "");
        return this;
    }

    /**
     * Marks the host arm64: {@code devices/system/cpu/cpu0/regs/identification/midr_el1} exists only on arm64
     * kernels (kernel ABI sysfs-devices-system-cpu); the value is Neoverse V2's MIDR (Grace's cores).
     */
    SysfsTreeBuilder arm64() {
        write(sys.resolve("devices/system/cpu/cpu0/regs/identification/midr_el1"), "0x00000000410fd4f0");
        return this;
    }

    /** Adds an NVIDIA H100 (3D controller, device 0x2330) at {@code chain}; {@code numa} null writes -1. */
    SysfsTreeBuilder gpu(String chain, Integer numa) {
        return pciFunction(chain, "0x030200", NVIDIA, "0x2330", numa);
    }

    /**
     * Adds a PCI function at {@code chain} with the bridges above it. Bridges get the same NUMA node unless they
     * exist already.
     */
    SysfsTreeBuilder pciFunction(String chain, String pciClass, String vendor, String device, Integer numa) {
        String[] parts = chain.split("/");
        Path dir = sys.resolve("devices").resolve(parts[0]);
        mkdirs(dir);
        for (int i = 1; i < parts.length; i++) {
            dir = dir.resolve(parts[i]);
            boolean endpoint = i == parts.length - 1;
            if (!endpoint && Files.isDirectory(dir)) {
                continue;
            }
            mkdirs(dir);
            write(dir.resolve("class"), endpoint ? pciClass : "0x060400");
            write(dir.resolve("vendor"), endpoint ? vendor : "0x1000");
            write(dir.resolve("device"), endpoint ? device : "0xc030");
            write(dir.resolve("numa_node"), numa == null ? "-1" : numa.toString());
            write(dir.resolve("local_cpulist"), "0-191");
            write(dir.resolve("current_link_speed"), "32.0 GT/s PCIe");
            write(dir.resolve("current_link_width"), "16");
            write(dir.resolve("max_link_speed"), "32.0 GT/s PCIe");
            write(dir.resolve("max_link_width"), "16");
            link(sys.resolve("bus/pci/devices").resolve(parts[i]), dir);
        }
        return this;
    }

    /** @return the directory of the PCI function at {@code chain} */
    Path deviceDir(String chain) {
        return sys.resolve("devices").resolve(chain);
    }

    /**
     * Adds a ConnectX-7 Ethernet function at {@code chain} carrying RDMA device {@code name}, with one RoCE port
     * (ACTIVE, 400 Gb/s, two link-local GIDs plus empty entries) and netdev {@code netdev}.
     */
    SysfsTreeBuilder hca(String name, String chain, Integer numa, String netdev) {
        pciFunction(chain, "0x020000", MELLANOX, "0x1021", numa);
        Path device = deviceDir(chain);
        Path ib = device.resolve("infiniband").resolve(name);
        mkdirs(ib);
        link(ib.resolve("device"), device);
        link(sys.resolve("class/infiniband").resolve(name), ib);
        port(name, 1, "4: ACTIVE", "Ethernet", "400 Gb/sec (4X NDR)", netdev);
        if (netdev != null) {
            netdev(netdev, chain, 0);
        }
        return this;
    }

    /**
     * Adds a software RDMA device (siw/rxe) under {@code devices/virtual/infiniband}, which has no {@code device}
     * link, with one ACTIVE Ethernet port.
     */
    SysfsTreeBuilder softwareHca(String name, String netdev) {
        Path ib = sys.resolve("devices/virtual/infiniband").resolve(name);
        mkdirs(ib);
        link(sys.resolve("class/infiniband").resolve(name), ib);
        return port(name, 1, "4: ACTIVE", "Ethernet", "10 Gb/sec (1X QDR)", netdev);
    }

    /**
     * (Re)writes port {@code port} of {@code hca}: state, link layer, rate, a GID table of 16 entries with a
     * link-local v1/v2 pair at 0/1 owned by {@code netdev} (entries 2..15 empty).
     */
    SysfsTreeBuilder port(String hca, int port, String state, String linkLayer, String rate, String netdev) {
        Path p = realIbDir(hca).resolve("ports").resolve(Integer.toString(port));
        write(p.resolve("state"), state);
        write(p.resolve("phys_state"), state.contains("ACTIVE") ? "5: LinkUp" : "3: Disabled");
        write(p.resolve("link_layer"), linkLayer);
        write(p.resolve("rate"), rate);
        for (int i = 0; i < 16; i++) {
            boolean populated = i < 2;
            write(p.resolve("gids/" + i), populated ? "fe80:0000:0000:0000:0000:00ff:fe00:00" + String.format("%02x", i)
                    : ZERO_GID);
            if (populated) {
                write(p.resolve("gid_attrs/types/" + i), i == 0 ? "IB/RoCE v1" : "RoCE v2");
                write(p.resolve("gid_attrs/ndevs/" + i), netdev == null ? "" : netdev);
            } else {
                mkdirs(p.resolve("gid_attrs/types"));
                mkdirs(p.resolve("gid_attrs/ndevs"));
            }
        }
        return this;
    }

    /** Sets GID {@code index} of a port with its type and owning netdev (a macvlan child, for example). */
    SysfsTreeBuilder gid(String hca, int port, int index, String gid, String type, String netdev) {
        Path p = realIbDir(hca).resolve("ports").resolve(Integer.toString(port));
        write(p.resolve("gids/" + index), gid);
        write(p.resolve("gid_attrs/types/" + index), type);
        write(p.resolve("gid_attrs/ndevs/" + index), netdev);
        return this;
    }

    /** Adds netdev {@code name} on the PCI function at {@code chain} ({@code dev_port} 0-based). */
    SysfsTreeBuilder netdev(String name, String chain, int devPort) {
        Path device = deviceDir(chain);
        Path net = device.resolve("net").resolve(name);
        mkdirs(net);
        link(net.resolve("device"), device);
        write(net.resolve("dev_port"), Integer.toString(devPort));
        write(net.resolve("operstate"), "up");
        link(sys.resolve("class/net").resolve(name), net);
        return this;
    }

    /** Adds a virtual netdev (no device link), like {@code lo} or a macvlan child. */
    SysfsTreeBuilder virtualNetdev(String name) {
        Path net = sys.resolve("devices/virtual/net").resolve(name);
        mkdirs(net);
        write(net.resolve("operstate"), "unknown");
        link(sys.resolve("class/net").resolve(name), net);
        return this;
    }

    /** Adds bond {@code bond} (with a {@code bonding/} directory) and links each member's {@code master} to it. */
    SysfsTreeBuilder bond(String bond, String... members) {
        virtualNetdev(bond);
        Path bondDir = sys.resolve("devices/virtual/net").resolve(bond);
        write(bondDir.resolve("bonding/mode"), "802.3ad 4");
        List<String> slaves = new ArrayList<>();
        for (String member : members) {
            Path memberDir = realNetDir(member);
            link(memberDir.resolve("master"), bondDir);
            mkdirs(memberDir.resolve("bonding_slave"));
            slaves.add(member);
        }
        write(bondDir.resolve("bonding/slaves"), String.join(" ", slaves));
        return this;
    }

    /** Replaces {@code sys/<rel>} with a symlink to a path that does not exist. */
    SysfsTreeBuilder breakLink(String rel, String danglingTarget) {
        Path at = sys.resolve(rel);
        try {
            Files.deleteIfExists(at);
            Files.createSymbolicLink(at, Path.of(danglingTarget));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** Replaces the attribute file {@code sys/<rel>} (through symlinks) with a directory, which cannot be read. */
    SysfsTreeBuilder makeUnreadable(String rel) {
        try {
            Path real = sys.resolve(rel).toRealPath();
            Files.delete(real);
            Files.createDirectory(real);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** Writes {@code sys/<rel>} (through symlinks) with {@code content}. */
    SysfsTreeBuilder overwrite(String rel, String content) {
        try {
            write(sys.resolve(rel).toRealPath(), content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    private Path realIbDir(String hca) {
        try {
            return sys.resolve("class/infiniband").resolve(hca).toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path realNetDir(String netdev) {
        try {
            return sys.resolve("class/net").resolve(netdev).toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void link(Path at, Path target) {
        try {
            mkdirs(at.getParent());
            Files.deleteIfExists(at);
            Files.createSymbolicLink(at, at.getParent().toRealPath().relativize(target.toRealPath()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(Path file, String content) {
        try {
            mkdirs(file.getParent());
            Files.writeString(file, content + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void mkdirs(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
