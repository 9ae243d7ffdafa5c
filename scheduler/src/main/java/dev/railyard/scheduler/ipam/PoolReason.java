package dev.railyard.scheduler.ipam;

/**
 * Why an address-pool check admitted or refused a pod, most specific first. Every code except {@link #OK} refuses:
 * the pod would otherwise be bound and then hang in ContainerCreating.
 */
public enum PoolReason {
    /** Every network resolves and every pool has room for the pods asked about. */
    OK,
    /** The {@code k8s.v1.cni.cncf.io/networks} annotation cannot be parsed, or multus would fail on an entry. */
    ANNOTATION_INVALID,
    /** No NetworkAttachmentDefinition of that namespace and name (multus: "cannot find a network-attachment-definition"). */
    NETWORK_NOT_FOUND,
    /** The NetworkAttachmentDefinition's {@code spec.config}, or its MacvlanNetwork's {@code spec.ipam}, is not JSON. */
    NETWORK_CONFIG_INVALID,
    /** The whereabouts IPAM config is unusable: bad range, exclude or gateway, or no usable address at all. */
    IPAM_CONFIG_INVALID,
    /** The IPPool object cannot be read (bad {@code spec.range}, an allocation key that is not a number). */
    POOL_INVALID,
    /** Node-slice mode and the node has no slice (or the NodeSlicePool does not exist). */
    NODE_SLICE_MISSING,
    /** Fewer free addresses than pods still to place. */
    POOL_EXHAUSTED
}
