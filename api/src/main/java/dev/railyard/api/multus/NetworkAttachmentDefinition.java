package dev.railyard.api.multus;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * {@code NetworkAttachmentDefinition} ({@code k8s.cni.cncf.io/v1}, namespaced, short name {@code net-attach-def}):
 * one secondary network a pod can attach to through multus.
 */
@Group(NetworkAttachmentDefinition.GROUP)
@Version(NetworkAttachmentDefinition.VERSION)
@Kind("NetworkAttachmentDefinition")
@Plural("network-attachment-definitions")
@Singular("network-attachment-definition")
@ShortNames("net-attach-def")
public class NetworkAttachmentDefinition extends CustomResource<NetworkAttachmentDefinitionSpec, Void>
        implements Namespaced {
    public static final String GROUP = "k8s.cni.cncf.io";
    public static final String VERSION = "v1";
}
