package dev.railyard.api.multus;

/**
 * Pod and NetworkAttachmentDefinition annotation keys read by multus (source: multus-cni {@code pkg/k8sclient},
 * network-attachment-definition-client {@code pkg/apis/k8s.cni.cncf.io/v1/types.go}).
 */
public final class MultusAnnotations {
    /**
     * Pod annotation selecting secondary networks: a comma list of {@code [<namespace>/]<name>[@<ifname>]} or a JSON
     * list of selection objects ({@code name}, {@code namespace}, {@code interface}, {@code ips}, ...).
     */
    public static final String NETWORKS = "k8s.v1.cni.cncf.io/networks";
    /** Pod annotation multus writes back: a JSON list, one entry per attached interface. */
    public static final String NETWORK_STATUS = "k8s.v1.cni.cncf.io/network-status";
    /** Deprecated spelling of {@link #NETWORK_STATUS} written by older multus. */
    public static final String NETWORKS_STATUS_DEPRECATED = "k8s.v1.cni.cncf.io/networks-status";
    /** Pod annotation replacing the cluster default network. */
    public static final String DEFAULT_NETWORK = "v1.multus-cni.io/default-network";
    /** NetworkAttachmentDefinition annotation naming the extended resource whose device ID multus passes to the CNI. */
    public static final String RESOURCE_NAME = "k8s.v1.cni.cncf.io/resourceName";

    private MultusAnnotations() {
    }
}
