package dev.railyard.api.whereabouts;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * whereabouts {@code IPPool} ({@code whereabouts.cni.cncf.io/v1alpha1}, namespaced): the allocations of one range.
 *
 * <p>Named by whereabouts' {@code IPPoolName} rule ({@code pkg/storage/kubernetes/ipam.go}): the canonical network CIDR
 * with {@code :} and {@code /} replaced by {@code -}, prefixed by {@code <network_name>-} and, in node-slice mode, by
 * {@code <nodeName>-}. Created lazily on the first allocation, so a missing pool means nothing is allocated.
 */
@Group(Whereabouts.GROUP)
@Version(Whereabouts.VERSION)
@Kind("IPPool")
@Plural("ippools")
@Singular("ippool")
public class IPPool extends CustomResource<IPPoolSpec, Void> implements Namespaced {
}
