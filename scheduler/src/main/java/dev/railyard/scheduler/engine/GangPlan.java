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
 * @param bound    the gang's members already bound, kept where they are ({@link GangRequest#bound()}); the tier,
 *                 domain and hops count them too
 */
public record GangPlan(String gang, List<PlannedPod> pods, int tier, String domain, PlanCost cost,
                       List<String> notices, List<BoundMember> bound) {
    public GangPlan {
        pods = List.copyOf(pods);
        notices = List.copyOf(notices);
        bound = bound == null ? List.of() : List.copyOf(bound);
    }

    /** A plan for a gang none of whose members was bound before. */
    public GangPlan(String gang, List<PlannedPod> pods, int tier, String domain, PlanCost cost,
                    List<String> notices) {
        this(gang, pods, tier, domain, cost, notices, List.of());
    }

    /** @return the gang's size: planned pods and bound members */
    public int gangSize() {
        return pods.size() + bound.size();
    }

    /** @return distinct nodes in rank order */
    public List<String> nodes() {
        return pods.stream().map(PlannedPod::node).distinct().toList();
    }
}
