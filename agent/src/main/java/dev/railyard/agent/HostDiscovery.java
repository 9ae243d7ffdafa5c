package dev.railyard.agent;

/** Reads the node's devices and PCIe tree. */
@FunctionalInterface
public interface HostDiscovery {
    /**
     * @return the current picture of the host
     * @throws dev.railyard.topology.InputException when the host's sysfs cannot be read as a node; the message names
     *                                              the path
     */
    HostSnapshot discover();
}
