package dev.railyard.scheduler.engine;

import java.util.List;

/**
 * A placement for every pod of a gang.
 *
 * @param gang     {@code namespace/name}
 * @param pods     one entry per pod, in request (rank) order
 * @param tier     tier of the smallest fabric domain holding the gang
 * @param domain   name of that domain ({@code su1-leaf-r0}, a spine, {@code cluster}, or the node)
 * @param cost     the plan's cost
 * @param notices  statements for people (relaxed preferences, missing fabric data, incomplete topologies)
 */
public record GangPlan(String gang, List<PlannedPod> pods, int tier, String domain, PlanCost cost,
                       List<String> notices) {
    public GangPlan {
        pods = List.copyOf(pods);
        notices = List.copyOf(notices);
    }

    /** @return distinct nodes in rank order */
    public List<String> nodes() {
        return pods.stream().map(PlannedPod::node).distinct().toList();
    }
}
