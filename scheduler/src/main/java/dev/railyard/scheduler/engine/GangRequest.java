package dev.railyard.scheduler.engine;

import java.util.List;

/**
 * A gang to place: every pod of a PodGroup (or of a job) still to be placed, in rank order (task order, then index,
 * as Volcano names them), with the job's placement policy, and the members already bound, which the planner keeps
 * where they are ({@link BoundMember}).
 *
 * @param namespace namespace
 * @param name      PodGroup or job name
 * @param pods      pods to place, in rank order; at least one
 * @param policy    resolved hints
 * @param bound     members already bound to nodes, in rank order; empty when none
 */
public record GangRequest(String namespace, String name, List<PodRequest> pods, PlacementPolicy policy,
                          List<BoundMember> bound) {
    public GangRequest {
        if (pods == null || pods.isEmpty()) {
            throw new IllegalArgumentException("gang " + namespace + "/" + name + " has no pods");
        }
        pods = List.copyOf(pods);
        policy = policy == null ? PlacementPolicy.defaults() : policy;
        bound = bound == null ? List.of() : List.copyOf(bound);
    }

    /** A gang none of whose members is bound yet. */
    public GangRequest(String namespace, String name, List<PodRequest> pods, PlacementPolicy policy) {
        this(namespace, name, pods, policy, List.of());
    }

    /** @return a copy with these members already bound */
    public GangRequest withBound(List<BoundMember> members) {
        return new GangRequest(namespace, name, pods, policy, members);
    }

    /** @return members in all: the pods to place and the bound ones */
    public int size() {
        return pods.size() + bound.size();
    }

    /** @return {@code namespace/name} */
    public String key() {
        return namespace + "/" + name;
    }
}
