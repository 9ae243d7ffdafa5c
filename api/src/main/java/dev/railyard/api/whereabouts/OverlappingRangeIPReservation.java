package dev.railyard.api.whereabouts;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * whereabouts {@code OverlappingRangeIPReservation} ({@code whereabouts.cni.cncf.io/v1alpha1}, namespaced): one object
 * per reserved address, across all ranges of one {@code network_name}.
 *
 * <p>The address is only in the name ({@code NormalizeIP} in upstream {@code pkg/storage/kubernetes/ipam.go}): the IP
 * text with {@code :} replaced by {@code -} (an IPv6 text ending in {@code :} gets a {@code 0} appended), prefixed by
 * {@code <network_name>-} when the network is named: {@code 192.168.4.7}, {@code lan2-192.168.4.7}, {@code fd00-10--5}.
 * Written only when {@code enable_overlapping_ranges} is true (the default).
 */
@Group(Whereabouts.GROUP)
@Version(Whereabouts.VERSION)
@Kind("OverlappingRangeIPReservation")
@Plural("overlappingrangeipreservations")
@Singular("overlappingrangeipreservation")
public class OverlappingRangeIPReservation extends CustomResource<OverlappingRangeIPReservationSpec, Void>
        implements Namespaced {
}
