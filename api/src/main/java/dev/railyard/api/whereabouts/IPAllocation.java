package dev.railyard.api.whereabouts;

/**
 * Owner of one allocated address in an {@link IPPool} ({@code IPAllocation} in upstream {@code ippool_types.go}).
 *
 * @param id     CNI container (sandbox) ID of the owner
 * @param podref {@code "<namespace>/<podName>"}
 * @param ifname pod-side interface name ({@code net1}); null in pools written before whereabouts v0.8.0
 */
public record IPAllocation(String id, String podref, String ifname) {
}
