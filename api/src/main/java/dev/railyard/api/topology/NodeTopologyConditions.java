package dev.railyard.api.topology;

/**
 * Condition types and reasons the node agent writes into {@link NodeTopologyStatus#conditions()}.
 *
 * <p>{@link #READY} is {@code True} when the last refresh read sysfs and the kubelet successfully.
 * {@link #STALE} is {@code True} when the status holds an older picture because a source failed; its reason names
 * the source. Consumers should not trust allocations of a stale status. {@link #LOCALITY_KNOWN} says whether the
 * node's discovery source could tell which HCA is near which GPU ({@link Locality}): {@code False} with reason
 * {@link #REASON_SOURCE_CANNOT_TELL} when it could not (no rail map is published then), {@code True} with
 * {@link #REASON_PAIRED_BY_PCIE} or {@link #REASON_PAIRED_BY_NUMA} otherwise.
 */
public final class NodeTopologyConditions {
    /** Condition type: the status reflects the node now. */
    public static final String READY = "Ready";
    /** Condition type: the status is older than the node's state. */
    public static final String STALE = "Stale";
    /** Condition type: the discovery source tells GPU–HCA locality apart (see {@link Locality}). */
    public static final String LOCALITY_KNOWN = "LocalityKnown";

    /** Reason: everything was read. */
    public static final String REASON_OBSERVED = "Observed";
    /** Reason: the host's sysfs (mounted read-only into the agent) could not be read or parsed. */
    public static final String REASON_SYSFS_UNREADABLE = "SysfsUnreadable";
    /** Reason: the kubelet's PodResources socket is absent or did not answer. */
    public static final String REASON_POD_RESOURCES_UNAVAILABLE = "PodResourcesUnavailable";
    /** Reason: the agent has just started and has not observed the node yet. */
    public static final String REASON_STARTING = "Starting";
    /** Reason ({@link #LOCALITY_KNOWN}): GPUs paired by PCIe distance classes. */
    public static final String REASON_PAIRED_BY_PCIE = "PairedByPcie";
    /** Reason ({@link #LOCALITY_KNOWN}): C2C-attached GPUs paired with the HCAs of their own CPU's NUMA node. */
    public static final String REASON_PAIRED_BY_NUMA = "PairedByNuma";
    /** Reason ({@link #LOCALITY_KNOWN} False): the source cannot tell which HCA is near which GPU. */
    public static final String REASON_SOURCE_CANNOT_TELL = "SourceCannotTell";

    private NodeTopologyConditions() {
    }
}
