package dev.railyard.api.whereabouts;

/**
 * Spec of an {@link OverlappingRangeIPReservation} (upstream {@code overlappingrangeipreservation_types.go}).
 *
 * @param containerid CNI container ID; whereabouts itself leaves it empty
 * @param podref      {@code "<namespace>/<podName>"} holding the address
 * @param ifname      pod-side interface name, or null
 */
public record OverlappingRangeIPReservationSpec(String containerid, String podref, String ifname) {
}
