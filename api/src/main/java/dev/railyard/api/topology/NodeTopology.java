package dev.railyard.api.topology;

import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * {@code NodeTopology} ({@code railyard.dev/v1alpha1}): cluster-scoped, one per node, named after the node.
 * The CRD YAML in {@code deploy/crds} is generated from this class by fabric8's CRD generator.
 */
@Group(NodeTopology.GROUP)
@Version(NodeTopology.VERSION)
@Kind("NodeTopology")
@Plural("nodetopologies")
@Singular("nodetopology")
@ShortNames("ntopo")
public class NodeTopology extends CustomResource<NodeTopologySpec, NodeTopologyStatus> {
    public static final String GROUP = "railyard.dev";
    public static final String VERSION = "v1alpha1";
}
