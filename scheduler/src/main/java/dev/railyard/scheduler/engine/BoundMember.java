package dev.railyard.scheduler.engine;

import java.util.List;

/**
 * A gang member already bound to a node ({@code spec.nodeName} set): the planner keeps it where it is and plans the
 * gang's other pods around it. Taken from the cluster, not from memory, so a restarted Railyard sees the same gang
 * (docs/adr/0005): what the member holds comes from its {@code railyard.dev/placement} hint when it has one.
 *
 * <ul>
 *   <li>With a hint ({@link #hinted()}): its GPUs and their rails fix the gang's rail vector for pods of its shape
 *       (when rail alignment applies) unless the hint itself says they are off the gang's rails ({@link #aligned()}
 *       false), its node and rails count in the fabric scope and in the
 *       switch hops, and its rank is taken.</li>
 *   <li>Without one (bound while the hint webhook was down, or a hint Railyard cannot read): it counts by its node
 *       only (scope and hops); its rails and rank are unknown.</li>
 * </ul>
 *
 * @param pod    its request (for its shape: pods of one shape share a rail vector)
 * @param node   the node it is bound to
 * @param rank   its rank from the hint, or null when unknown
 * @param gpus   its GPUs with their rail HCAs as the hint names them, in local-rank order; empty when
 *               {@code hinted} is false
 * @param hinted  true when the member's hint gave its GPUs and rails
 * @param aligned true when its rails count as the gang's: hinted, and the hint does not say it left a known gang
 *                rail set (its {@code railChoice} absent, {@code gang-rails}, or {@code node-best} with no
 *                {@code gangRails}, i.e. no rail set was known when it was bound); false for a {@code node-best} hint
 *                that names the {@code gangRails} it could not keep, and for a member known by its node only. Only
 *                aligned members vote for the gang's rail set ({@link GangRequest#boundRailSets})
 */
public record BoundMember(PodRequest pod, String node, Integer rank, List<GpuBinding> gpus, boolean hinted,
                          boolean aligned) {
    public BoundMember {
        if (pod == null || node == null || node.isEmpty()) {
            throw new IllegalArgumentException("a bound member needs a pod and a node");
        }
        gpus = hinted && gpus != null ? List.copyOf(gpus) : List.of();
        aligned = hinted && aligned;
    }

    /** A member whose hint names its GPUs, rails and rank (null rank: the hint has none), on the gang's rails. */
    public static BoundMember hinted(PodRequest pod, String node, Integer rank, List<GpuBinding> gpus) {
        return new BoundMember(pod, node, rank, gpus, true, true);
    }

    /**
     * A member whose hint names its GPUs, rails and rank.
     *
     * @param aligned false when the hint says its rails are not the gang's ({@code railChoice.source}
     *                {@code node-best} with {@code gangRails} named)
     */
    public static BoundMember hinted(PodRequest pod, String node, Integer rank, List<GpuBinding> gpus,
                                     boolean aligned) {
        return new BoundMember(pod, node, rank, gpus, true, aligned);
    }

    /** A member known by its node only. */
    public static BoundMember nodeOnly(PodRequest pod, String node) {
        return new BoundMember(pod, node, null, List.of(), false, false);
    }

    /** @return its rail vector, or null when not hinted or without GPUs */
    public RailVector rails() {
        if (!hinted || gpus.isEmpty()) {
            return null;
        }
        int width = 0;
        for (GpuBinding b : gpus) {
            width = Math.max(width, b.rail() + 1);
        }
        int[] counts = new int[width];
        for (GpuBinding b : gpus) {
            counts[b.rail()]++;
        }
        return new RailVector(counts);
    }

    /** @return {@code namespace/name} of the pod */
    public String key() {
        return pod.key();
    }
}
