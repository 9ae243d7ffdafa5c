package dev.railyard.api.whereabouts;

/**
 * Spec of a {@link NodeSlicePool} (upstream {@code nodeslicepool_types.go}).
 *
 * @param range     the whole network range ({@code 10.0.0.0/8})
 * @param sliceSize the slice prefix, with or without the slash ({@code "/24"})
 */
public record NodeSlicePoolSpec(String range, String sliceSize) {
}
