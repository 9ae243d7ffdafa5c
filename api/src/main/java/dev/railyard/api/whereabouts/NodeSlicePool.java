package dev.railyard.api.whereabouts;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * whereabouts {@code NodeSlicePool} ({@code whereabouts.cni.cncf.io/v1alpha1}, namespaced), "fast IPAM" (v0.9.0+):
 * the split of one range into per-node slices, maintained by the node-slice controller.
 *
 * <p>Named after the IPAM {@code network_name} when set, else the CNI config's {@code name} (upstream
 * {@code pkg/node-controller/controller.go} {@code getSliceName}). IPv4 only.
 */
@Group(Whereabouts.GROUP)
@Version(Whereabouts.VERSION)
@Kind("NodeSlicePool")
@Plural("nodeslicepools")
@Singular("nodeslicepool")
public class NodeSlicePool extends CustomResource<NodeSlicePoolSpec, NodeSlicePoolStatus> implements Namespaced {
}
