package dev.railyard.api.topology;

/** Health of a node's RDMA fabric attachment as the node agent last saw it. */
public enum NodeHealth {
    /** Every port of every rail HCA is ACTIVE (or its state is unknown). */
    HEALTHY,
    /** At least one port of an HCA is known to be down; see {@link NodeTopologyStatus#ports()}. */
    DEGRADED,
    /** Nothing observed yet, or the host's sysfs could not be read. */
    UNKNOWN
}
