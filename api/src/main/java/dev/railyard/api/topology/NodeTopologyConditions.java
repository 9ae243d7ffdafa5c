package dev.railyard.api.topology;

/**
 * Condition types and reasons the node agent writes into {@link NodeTopologyStatus#conditions()}.
 *
 * <p>{@link #READY} is {@code True} when the last refresh read sysfs and the kubelet successfully.
 * {@link #STALE} is {@code True} when the status holds an older picture because a source failed; its reason names
 * the source. Consumers should not trust allocations of a stale status.
 */
public final class NodeTopologyConditions {
    /** Condition type: the status reflects the node now. */
    public static final String READY = "Ready";
    /** Condition type: the status is older than the node's state. */
    public static final String STALE = "Stale";

    /** Reason: everything was read. */
    public static final String REASON_OBSERVED = "Observed";
    /** Reason: the host's sysfs (mounted read-only into the agent) could not be read or parsed. */
    public static final String REASON_SYSFS_UNREADABLE = "SysfsUnreadable";
    /** Reason: the kubelet's PodResources socket is absent or did not answer. */
    public static final String REASON_POD_RESOURCES_UNAVAILABLE = "PodResourcesUnavailable";
    /** Reason: the agent has just started and has not observed the node yet. */
    public static final String REASON_STARTING = "Starting";

    private NodeTopologyConditions() {
    }
}
