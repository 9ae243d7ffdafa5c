package dev.railyard.topology.discovery.sysfs;

import dev.railyard.api.topology.NodeTopologySpec;

import java.util.List;

/**
 * Result of one read of a sysfs tree: the node model plus the raw per-device and per-GID facts it was built from,
 * which the node agent publishes and bug reports need but {@link NodeTopologySpec} does not carry.
 *
 * @param spec    the node model; {@code pairs} and {@code excluded} empty (the pairing fills them)
 * @param devices the PCI functions of the GPUs and HCAs, ordered by bus id
 * @param gids    populated GID table entries of every HCA port, by HCA, port and index
 */
public record SysfsDiscovery(NodeTopologySpec spec, List<PciFunction> devices, List<GidEntry> gids) {
    public SysfsDiscovery {
        devices = devices == null ? List.of() : List.copyOf(devices);
        gids = gids == null ? List.of() : List.copyOf(gids);
    }

    /**
     * One PCI function as sysfs describes it ({@code Documentation/ABI/testing/sysfs-bus-pci}).
     *
     * @param busId        sysfs form {@code 0000:1a:00.0}
     * @param pciClass     {@code class}, e.g. {@code 0x030200}, or null when unreadable
     * @param vendor       {@code vendor}, e.g. {@code 0x10de}, or null
     * @param device       {@code device}, e.g. {@code 0x2330}, or null
     * @param numaNode     {@code numa_node}, or null when {@code -1} or absent
     * @param localCpus    {@code local_cpulist}, e.g. {@code 0-47,96-143}, or null
     * @param linkSpeed    {@code current_link_speed}, e.g. {@code 32.0 GT/s PCIe}, or null
     * @param linkWidth    {@code current_link_width} in lanes, or null
     * @param maxLinkSpeed {@code max_link_speed}, or null
     * @param maxLinkWidth {@code max_link_width} in lanes, or null
     */
    public record PciFunction(String busId, String pciClass, String vendor, String device, Integer numaNode,
                              String localCpus, String linkSpeed, Integer linkWidth, String maxLinkSpeed,
                              Integer maxLinkWidth) {
    }

    /**
     * One populated entry of a port's GID table ({@code /sys/class/infiniband/<hca>/ports/<port>/gids/<index>}).
     *
     * @param hca    HCA name
     * @param port   port number, 1-based
     * @param index  GID index (what {@code NCCL_IB_GID_INDEX} selects)
     * @param gid    the GID, 8 groups of 4 hex digits; IPv4-mapped RoCE GIDs end in {@code ffff:c0a8:040c}
     * @param type   {@code gid_attrs/types/<index>}: {@code IB/RoCE v1} or {@code RoCE v2}; null when the kernel
     *               refuses it (entries of other network namespaces read as {@code EINVAL})
     * @param netdev {@code gid_attrs/ndevs/<index>}: the netdev owning the entry (a macvlan child for pods), or null
     */
    public record GidEntry(String hca, int port, int index, String gid, String type, String netdev) {
    }
}
