package dev.railyard.scheduler.engine;

/**
 * Why a node (or a whole gang) cannot take a pod. Stable codes for machines; each {@link Reason} also carries text
 * for people. Node-level codes come from the per-pod Filter; gang-level codes from the gang plan.
 *
 * <p>Each code says whether evicting pods could ever make the node fit ({@link #unresolvable()}): a node refused for
 * an unresolvable reason is {@link Status.Code#UNSCHEDULABLE_AND_UNRESOLVABLE}, which the adapters send as Volcano's
 * predicate code 3 and kube-scheduler's {@code FailedAndUnresolvableNodes}, so neither scheduler tries preemption
 * there. The rule and each code's choice: docs/adr/0012-one-verdict-vocabulary-and-unresolvable-reasons.md.
 */
public enum ReasonCode {
    /** The node is cordoned or not ready. */
    NODE_UNSCHEDULABLE(true),
    /** The pod's {@code spec.nodeSelector} or required node affinity rules the node out. */
    NODE_AFFINITY_MISMATCH(true),
    /** The node has no NodeTopology (or it lists no GPU–HCA rail map). */
    NO_NODE_TOPOLOGY(true),
    /** Fewer free GPUs than the pod asks for; the node has enough GPUs when others' pods leave. */
    INSUFFICIENT_GPUS(false),
    /** The node has fewer GPUs in all than the pod asks for. */
    GPUS_EXCEED_NODE(true),
    /**
     * Too few of the node's GPUs, free or not, pair with an HCA the pod reaches at or under the allowed distance:
     * the node's hardware (as the pod's networks and RDMA resources reach it) cannot give the pod its pairs.
     */
    NO_GPU_PAIR_WITHIN_DISTANCE(true),
    /**
     * Enough of the node's GPUs pair within the allowed distance, but too few of those are free: pods on the node
     * hold the rest.
     */
    GPU_PAIRS_HELD(false),
    /** None of the node's rail HCAs is reachable through the pod's networks and RDMA resources. */
    NO_USABLE_RAIL(true),
    /** An RDMA resource the pod requests is not advertised on the node. */
    HCA_RESOURCE_MISSING(true),
    /** An RDMA resource the pod requests has no free slot. */
    HCA_RESOURCE_FULL(false),
    /** A network's master netdev does not exist on the node. */
    NETWORK_MASTER_MISSING(true),
    /** The pod's networks annotation is invalid, or a network it names does not exist or cannot be used. */
    NETWORK_INVALID(true),
    /**
     * A {@code railyard.dev/} placement annotation of the pod or its PodGroup has a value Railyard does not know
     * (for example {@code fabric-scope: bogus}): the pod cannot be judged under the policy it asks for anywhere
     * until the annotation is fixed; the detail names the annotation and the values it takes.
     */
    POLICY_INVALID(true),
    /** An IP pool the pod draws from has no free address (for the pod, or for the whole gang). */
    POOL_EXHAUSTED(false),
    /** The node is usable on its own but cannot offer the gang's rail set. */
    RAIL_SET_UNAVAILABLE(false),
    /**
     * The node lies outside the fabric domain the gang is confined to. Resolvable: the members it is measured from
     * may be Volcano's tentative allocations, which the session can undo.
     */
    OUTSIDE_FABRIC_SCOPE(false),
    /** Gang level: not enough usable nodes or GPUs for all pods together. */
    GANG_TOO_LARGE(false),
    /** Gang level: with alignment required, no single rail set fits all pods. */
    NO_COMMON_RAIL_SET(false),
    /** Gang level: the gang fits only in a larger fabric domain than its scope allows. */
    SCOPE_TOO_SMALL(false),
    /** Not a refusal: Railyard could not judge the node (no NodeTopology, unknown node, cold cache) and passes it. */
    NOT_JUDGED(false),
    /** Railyard failed to decide (a bug or an unexpected input); the reason's detail says what failed. */
    INTERNAL_ERROR(false);

    private final boolean unresolvable;

    ReasonCode(boolean unresolvable) {
        this.unresolvable = unresolvable;
    }

    /**
     * @return true when no eviction can make the node fit for this reason (kube-scheduler's
     * UnschedulableAndUnresolvable); false when evicting pods, or waiting for them to leave, may
     */
    public boolean unresolvable() {
        return unresolvable;
    }
}
