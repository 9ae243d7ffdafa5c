package dev.railyard.scheduler.engine;

/**
 * Why a node (or a whole gang) cannot take a pod. Stable codes for machines; each {@link Reason} also carries text
 * for people. Node-level codes come from the per-pod Filter; gang-level codes from the gang plan.
 */
public enum ReasonCode {
    /** The node is cordoned or not ready. */
    NODE_UNSCHEDULABLE,
    /** The pod's {@code spec.nodeSelector} or required node affinity rules the node out. */
    NODE_AFFINITY_MISMATCH,
    /** The node has no NodeTopology (or it lists no GPU–HCA rail map). */
    NO_NODE_TOPOLOGY,
    /** Fewer free GPUs than the pod asks for. */
    INSUFFICIENT_GPUS,
    /** Enough free GPUs, but too few pair with a usable HCA at or under the allowed distance. */
    NO_GPU_PAIR_WITHIN_DISTANCE,
    /** None of the node's rail HCAs is reachable through the pod's networks and RDMA resources. */
    NO_USABLE_RAIL,
    /** An RDMA resource the pod requests is not advertised on the node. */
    HCA_RESOURCE_MISSING,
    /** An RDMA resource the pod requests has no free slot. */
    HCA_RESOURCE_FULL,
    /** A network's master netdev does not exist on the node. */
    NETWORK_MASTER_MISSING,
    /** The pod's networks annotation is invalid, or a network it names does not exist. */
    NETWORK_INVALID,
    /** An IP pool the pod draws from has no free address (for the pod, or for the whole gang). */
    POOL_EXHAUSTED,
    /** The node is usable on its own but cannot offer the gang's rail set. */
    RAIL_SET_UNAVAILABLE,
    /** The node lies outside the fabric domain the gang is confined to. */
    OUTSIDE_FABRIC_SCOPE,
    /** Gang level: not enough usable nodes or GPUs for all pods together. */
    GANG_TOO_LARGE,
    /** Gang level: with alignment required, no single rail set fits all pods. */
    NO_COMMON_RAIL_SET,
    /** Gang level: the gang fits only in a larger fabric domain than its scope allows. */
    SCOPE_TOO_SMALL
}
