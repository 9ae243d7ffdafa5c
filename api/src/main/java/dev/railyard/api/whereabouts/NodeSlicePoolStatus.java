package dev.railyard.api.whereabouts;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Status of a {@link NodeSlicePool}.
 *
 * @param allocations every slice of the range, with the node it is assigned to; null is read as empty
 */
public record NodeSlicePoolStatus(List<NodeSliceAllocation> allocations) {
    public NodeSlicePoolStatus {
        allocations = allocations == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(allocations));
    }
}
