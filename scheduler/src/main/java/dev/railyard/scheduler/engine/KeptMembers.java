package dev.railyard.scheduler.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The gang's bound members as the planner keeps them ({@link GangRequest#bound()}): their nodes' indices in the
 * snapshot and the rails their hints name.
 *
 * @param nodes   snapshot indices of the bound members' nodes, distinct, ascending; empty when none is bound
 * @param rails   rails the hinted bound members use
 * @param notices what a person should know (members without a hint, nodes not in the snapshot)
 */
record KeptMembers(int[] nodes, Set<Integer> rails, List<String> notices) {
    static final KeptMembers NONE = new KeptMembers(new int[0], Set.of(), List.of());

    static KeptMembers of(ClusterSnapshot snapshot, GangRequest gang) {
        if (gang.bound().isEmpty()) {
            return NONE;
        }
        Set<Integer> nodes = new TreeSet<>();
        Set<Integer> rails = new TreeSet<>();
        List<String> notices = new ArrayList<>();
        List<String> kept = new ArrayList<>();
        for (BoundMember b : gang.bound()) {
            int i = snapshot.indexOf(b.node());
            if (i < 0) {
                notices.add("member " + b.key() + " is bound to " + b.node()
                        + ", which is not in the snapshot: left out of the fabric scope");
                continue;
            }
            nodes.add(i);
            RailVector v = b.rails();
            if (v != null) {
                rails.addAll(v.rails());
            }
            if (!b.hinted()) {
                notices.add("member " + b.key() + " is bound to " + b.node()
                        + " without a placement hint: counted by its node only (rails and rank unknown)");
            } else {
                kept.add(b.key() + " on " + b.node() + (v == null ? "" : " " + v));
            }
        }
        if (!kept.isEmpty()) {
            notices.add(0, "kept the members already bound: " + String.join(", ", kept));
        }
        return new KeptMembers(nodes.stream().mapToInt(Integer::intValue).toArray(), rails, notices);
    }

    boolean isEmpty() {
        return nodes.length == 0;
    }
}
