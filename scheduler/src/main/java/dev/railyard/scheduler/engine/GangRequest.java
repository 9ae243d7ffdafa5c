package dev.railyard.scheduler.engine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

    /**
     * The gang's rail set for pods of one shape, as its bound members hold it: the rail vectors of the bound members
     * of that shape ({@link PodRequest#sameShape}) whose hints name their rails and keep the gang's
     * ({@link BoundMember#aligned()}), with how many members use each. This is the one rule for "the gang's rail
     * set" after some members are bound: the planner holds the pods still to place to it (rail alignment), and a
     * hint for a pod bound off its plan, or backfilled, keeps it where the node offers it.
     *
     * @param shape a pod of the shape asked about
     * @return rail vector → members using it, most used first, the first seen (the lowest in rank order) on ties;
     *         empty when no aligned bound member of the shape names its rails
     */
    public Map<RailVector, Integer> boundRailSets(PodRequest shape) {
        Map<RailVector, Integer> seen = new LinkedHashMap<>();
        for (BoundMember b : bound) {
            RailVector v = b.rails();
            if (v != null && b.aligned() && b.pod().sameShape(shape)) {
                seen.merge(v, 1, Integer::sum);
            }
        }
        List<Map.Entry<RailVector, Integer>> order = new ArrayList<>(seen.entrySet());
        // a stable sort: ties keep the order first seen
        order.sort((a, b) -> Integer.compare(b.getValue(), a.getValue()));
        Map<RailVector, Integer> out = new LinkedHashMap<>();
        order.forEach(e -> out.put(e.getKey(), e.getValue()));
        return out;
    }

    /** @return {@code namespace/name} */
    public String key() {
        return namespace + "/" + name;
    }
}
