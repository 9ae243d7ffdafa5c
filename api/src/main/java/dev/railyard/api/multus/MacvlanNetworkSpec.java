package dev.railyard.api.multus;

/**
 * Spec of a {@link MacvlanNetwork} (upstream {@code api/v1alpha1/macvlannetwork_types.go}).
 *
 * @param networkNamespace namespace of the rendered NetworkAttachmentDefinition; null or empty means {@code default}
 * @param master           host netdev the macvlan children hang off ({@code lan2}); null means the default-route
 *                         interface
 * @param mode             {@code bridge}, {@code private}, {@code vepa} or {@code passthru}
 * @param mtu              MTU in bytes; 0 or null means the master's
 * @param ipam             the IPAM config as a raw JSON object string (the operator strips whitespace and inlines it)
 * @param metaPlugins      comma-separated CNI plugin objects chained after macvlan, or null
 */
public record MacvlanNetworkSpec(String networkNamespace, String master, String mode, Integer mtu, String ipam,
                                 String metaPlugins) {
    /** @return the namespace of the rendered NetworkAttachmentDefinition, {@code default} when unset */
    public String effectiveNetworkNamespace() {
        return networkNamespace == null || networkNamespace.isEmpty()
                ? MacvlanNetwork.DEFAULT_NETWORK_NAMESPACE : networkNamespace;
    }
}
