package dev.railyard.scheduler.engine;

import java.util.List;

/**
 * A gang to place: every pod of a PodGroup (or of a job), in rank order (task order, then index, as Volcano names
 * them), with the job's placement policy.
 *
 * @param namespace namespace
 * @param name      PodGroup or job name
 * @param pods      pods in rank order; at least one
 * @param policy    resolved hints
 */
public record GangRequest(String namespace, String name, List<PodRequest> pods, PlacementPolicy policy) {
    public GangRequest {
        if (pods == null || pods.isEmpty()) {
            throw new IllegalArgumentException("gang " + namespace + "/" + name + " has no pods");
        }
        pods = List.copyOf(pods);
        policy = policy == null ? PlacementPolicy.defaults() : policy;
    }

    /** @return {@code namespace/name} */
    public String key() {
        return namespace + "/" + name;
    }
}
