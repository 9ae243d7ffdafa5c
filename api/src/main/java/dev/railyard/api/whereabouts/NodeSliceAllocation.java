package dev.railyard.api.whereabouts;

/**
 * One slice of a {@link NodeSlicePool}.
 *
 * @param nodeName   the node the slice is assigned to; empty for a free slice
 * @param sliceRange the slice CIDR ({@code 10.0.1.0/24})
 */
public record NodeSliceAllocation(String nodeName, String sliceRange) {
}
