package dev.railyard.api.topology;

/**
 * A node of the PCIe tree above the endpoints.
 *
 * @param id       bus id of the bridge ({@code 0000:18:00.0}); for a host bridge the root bus ({@code pci0000:17})
 * @param kind     host bridge, root port or switch (a switch is named by its upstream port)
 * @param parent   id of the bridge above, or null for a host bridge
 * @param numaNode NUMA node id, or null when unknown
 */
public record PcieBridge(String id, Kind kind, String parent, Integer numaNode) {
    /** What kind of bridge. */
    public enum Kind { HOST_BRIDGE, ROOT_PORT, SWITCH }
}
