package dev.railyard.scheduler.engine;

import java.util.List;

/**
 * What the per-pod Filter and Score know about the pod's gang: members already placed (or planned) and the rail
 * vector the gang settled on.
 *
 * @param placed nodes of members already placed, one entry per member
 * @param rails  the gang's rail vector for this pod's shape, or null when not settled
 */
public record GangContext(List<String> placed, RailVector rails) {
    public GangContext {
        placed = placed == null ? List.of() : List.copyOf(placed);
    }

    /** @return no members placed, no rail vector */
    public static GangContext none() {
        return new GangContext(List.of(), null);
    }

    /**
     * @param plan      a gang plan
     * @param podIndex  the pod being filtered or scored (its own entry is left out)
     * @return the other members' nodes (the bound members' included) and the pod's planned rail vector
     */
    public static GangContext of(GangPlan plan, int podIndex) {
        List<String> nodes = new java.util.ArrayList<>(plan.bound().stream().map(BoundMember::node).toList());
        plan.pods().stream().filter(p -> p.index() != podIndex).map(PlannedPod::node).forEach(nodes::add);
        RailVector v = plan.pods().stream().filter(p -> p.index() == podIndex).map(PlannedPod::rails)
                .findFirst().orElse(null);
        return new GangContext(nodes, v);
    }
}
