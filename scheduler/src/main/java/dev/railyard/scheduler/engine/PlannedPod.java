package dev.railyard.scheduler.engine;

import java.util.List;

/**
 * One pod of a gang plan.
 *
 * @param index position of the pod in the {@link GangRequest}
 * @param rank  its rank when the gang asks for fabric rank order (its index when no member was bound before; else the
 *              ranks the bound members leave free, {@link GangPlanner}), null with {@code rank-order: none}
 * @param pod   pod name
 * @param node  node it goes to
 * @param gpus  its GPUs with their rail HCAs, in local-rank order (by rail, then GPU index)
 * @param rails its rail vector
 */
public record PlannedPod(int index, Integer rank, String pod, String node, List<GpuBinding> gpus, RailVector rails) {
    public PlannedPod {
        gpus = List.copyOf(gpus);
    }

    /** @return GPU indices in local-rank order */
    public List<Integer> gpuIndices() {
        return gpus.stream().map(GpuBinding::gpu).toList();
    }
}
