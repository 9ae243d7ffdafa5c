package dev.railyard.api.multus;

import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * NVIDIA network-operator {@code MacvlanNetwork} ({@code mellanox.com/v1alpha1}, cluster-scoped). The operator renders
 * it into a {@link NetworkAttachmentDefinition} of the same name in {@code spec.networkNamespace} ({@code default}
 * when empty), CNI {@code type macvlan}, with {@code spec.ipam} inlined as the {@code ipam} object and no
 * {@code resourceName} annotation (source: {@code Mellanox/network-operator} {@code pkg/state/state_macvlan_network.go},
 * {@code manifests/state-macvlan-network/0010-macvlan-net-cr.yml}).
 */
@Group(MacvlanNetwork.GROUP)
@Version(MacvlanNetwork.VERSION)
@Kind("MacvlanNetwork")
@Plural("macvlannetworks")
@Singular("macvlannetwork")
public class MacvlanNetwork extends CustomResource<MacvlanNetworkSpec, MacvlanNetworkStatus> {
    public static final String GROUP = "mellanox.com";
    public static final String VERSION = "v1alpha1";
    /** Namespace of the rendered NetworkAttachmentDefinition when {@code spec.networkNamespace} is empty. */
    public static final String DEFAULT_NETWORK_NAMESPACE = "default";
}
