package dev.railyard.scheduler.cluster;

/**
 * One kind of object the cluster cache watches.
 *
 * @param apiVersion {@code group/version}, or {@code v1} for the core group
 * @param kind       the kind
 * @param plural     the resource name used in URLs
 * @param namespaced whether objects live in namespaces
 * @param feature    what stops working without it, as a person would say it (for the log line and the metric tag)
 * @param optional   true for custom resources that may not be installed
 */
public record WatchedKind(String apiVersion, String kind, String plural, boolean namespaced, String feature,
                          boolean optional) {

    public static final WatchedKind NODE = new WatchedKind("v1", "Node", "nodes", false, "nodes", false);
    public static final WatchedKind POD = new WatchedKind("v1", "Pod", "pods", true, "pods", false);
    public static final WatchedKind NODE_TOPOLOGY = new WatchedKind("railyard.dev/v1alpha1", "NodeTopology",
            "nodetopologies", false, "node topology (GPU-HCA pairing)", true);
    public static final WatchedKind IP_POOL = new WatchedKind("whereabouts.cni.cncf.io/v1alpha1", "IPPool",
            "ippools", true, "whereabouts pool check", true);
    public static final WatchedKind OVERLAPPING_RANGE_RESERVATION = new WatchedKind(
            "whereabouts.cni.cncf.io/v1alpha1", "OverlappingRangeIPReservation", "overlappingrangeipreservations",
            true, "whereabouts overlapping-range check", true);
    public static final WatchedKind NODE_SLICE_POOL = new WatchedKind("whereabouts.cni.cncf.io/v1alpha1",
            "NodeSlicePool", "nodeslicepools", true, "whereabouts node-slice check", true);
    public static final WatchedKind NETWORK_ATTACHMENT_DEFINITION = new WatchedKind("k8s.cni.cncf.io/v1",
            "NetworkAttachmentDefinition", "network-attachment-definitions", true, "multus network resolution", true);
    public static final WatchedKind MACVLAN_NETWORK = new WatchedKind("mellanox.com/v1alpha1", "MacvlanNetwork",
            "macvlannetworks", false, "MacvlanNetwork master netdev resolution", true);
    public static final WatchedKind POD_GROUP = new WatchedKind("scheduling.volcano.sh/v1beta1", "PodGroup",
            "podgroups", true, "Volcano gang plans", true);
    /**
     * The scheduler-plugins coscheduling PodGroup (CRD {@code podgroups.scheduling.x-k8s.io}, namespaced, version
     * v1alpha1: kubernetes-sigs/scheduler-plugins {@code apis/scheduling/v1alpha1/types.go},
     * {@code manifests/coscheduling/crd.yaml}). Gangs of pods carrying the label {@code scheduling.x-k8s.io/pod-group}.
     */
    public static final WatchedKind COSCHEDULING_POD_GROUP = new WatchedKind("scheduling.x-k8s.io/v1alpha1",
            "PodGroup", "podgroups", true, "coscheduling gang plans", true);
    public static final WatchedKind HYPER_NODE = new WatchedKind("topology.volcano.sh/v1alpha1", "HyperNode",
            "hypernodes", false, "Volcano HyperNode fabric", true);

    /** Every kind the cache watches, core kinds first. */
    public static final java.util.List<WatchedKind> ALL = java.util.List.of(NODE, POD, NODE_TOPOLOGY, IP_POOL,
            OVERLAPPING_RANGE_RESERVATION, NODE_SLICE_POOL, NETWORK_ATTACHMENT_DEFINITION, MACVLAN_NETWORK,
            POD_GROUP, COSCHEDULING_POD_GROUP, HYPER_NODE);

    /** @return the API group, empty for the core group */
    public String group() {
        int slash = apiVersion.indexOf('/');
        return slash < 0 ? "" : apiVersion.substring(0, slash);
    }

    /** @return the version part of {@link #apiVersion} */
    public String version() {
        int slash = apiVersion.indexOf('/');
        return slash < 0 ? apiVersion : apiVersion.substring(slash + 1);
    }

    @Override
    public String toString() {
        return kind + "." + (group().isEmpty() ? "core" : group()) + "/" + version();
    }
}
