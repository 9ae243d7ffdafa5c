package dev.railyard.topology.discovery;

import java.util.List;
import java.util.Objects;

/**
 * Where one PCI device hangs in the PCIe tree, as far as distance classes need it.
 *
 * <p>{@code bridges} lists the bridge units between the host bridge and the device, top down: the root port
 * first, then one entry per PCIe switch, each named by its upstream port (a switch is an upstream port plus the
 * downstream port below it, which is not listed). Example: sysfs realpath
 * {@code /sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0/0000:19:01.0/0000:1a:00.0} gives host bridge
 * {@code pci0000:17} and bridges {@code [0000:17:00.0, 0000:18:00.0]}. A device directly on the root bus has no
 * bridges.
 *
 * @param hostBridge id of the host bridge (root complex) above the device, never null
 * @param bridges    bridge units from the root port down to the device's nearest switch; empty when none
 * @param numaNode   the device's NUMA node, or null when unknown ({@code numa_node} reads {@code -1})
 */
public record PciePath(String hostBridge, List<String> bridges, Integer numaNode) {
    public PciePath {
        Objects.requireNonNull(hostBridge, "hostBridge");
        bridges = bridges == null ? List.of() : List.copyOf(bridges);
    }

    /** @return the id of the nearest bridge unit above the device, or the host bridge when there is none. */
    public String parent() {
        return bridges.isEmpty() ? hostBridge : bridges.getLast();
    }
}
