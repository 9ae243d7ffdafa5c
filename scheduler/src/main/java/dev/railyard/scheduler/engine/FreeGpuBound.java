package dev.railyard.scheduler.engine;

import java.util.Arrays;
import java.util.List;

/**
 * An upper bound on how many pods of one GPU count a cluster snapshot can host: Σ over its nodes of
 * ⌊free GPUs / GPUs per pod⌋. Every pod the planner places takes its GPUs from one node's free GPUs
 * ({@link NodeRailView#capacity} counts only free GPUs of the node's rail map, a subset of
 * {@link NodeState#freeGpuCount()}), so a pod class with more pods than this bound has no plan, whatever the
 * fabric, rails, affinity or pools. Cordoned nodes and nodes other pods' affinity rules out are counted too: the
 * bound stays an upper bound, only a looser one.
 *
 * <p>The nodes' free-GPU histogram is kept for the last snapshot asked about, and the next snapshot with as many
 * nodes is worked out from it: one identity comparison per node, and a free-GPU count for each position whose node
 * state instance differs (the incremental cluster state keeps an unchanged node's instance, docs/adr/0008, so that
 * is the nodes that changed). Any other snapshot is counted in full. Every pending gang asking again on one snapshot
 * then pays O(most free GPUs on a node). Thread-safe: the kept state is immutable, and a racing call works it out
 * again with the same answer.
 */
final class FreeGpuBound {
    /**
     * The last snapshot's counts.
     *
     * @param nodes the node states, in name order
     * @param free  {@code free[i]}: node i's free GPUs
     * @param hist  {@code hist[f]}: nodes with exactly f free GPUs (sized to the most free on any node, plus one)
     */
    private record Counts(List<NodeState> nodes, int[] free, int[] hist) {
    }

    private volatile Counts last;

    /**
     * @param snapshot   the cluster
     * @param gpusPerPod GPUs one pod asks for, at least 1
     * @return Σ over nodes of ⌊free GPUs / gpusPerPod⌋, at least the pods of that shape any plan can place
     * @throws IllegalArgumentException when {@code gpusPerPod} is below 1
     */
    long pods(ClusterSnapshot snapshot, int gpusPerPod) {
        int[] hist = hist(snapshot, gpusPerPod);
        long pods = 0;
        for (int free = gpusPerPod; free < hist.length; free++) {
            pods += (long) hist[free] * (free / gpusPerPod);
        }
        return pods;
    }

    /**
     * @param snapshot   the cluster
     * @param gpusPerPod GPUs one pod asks for, at least 1
     * @return how many of the snapshot's nodes have at least {@code gpusPerPod} free GPUs (0 to the node count)
     * @throws IllegalArgumentException when {@code gpusPerPod} is below 1
     */
    int nodesWithRoom(ClusterSnapshot snapshot, int gpusPerPod) {
        int[] hist = hist(snapshot, gpusPerPod);
        int nodes = 0;
        for (int free = gpusPerPod; free < hist.length; free++) {
            nodes += hist[free];
        }
        return nodes;
    }

    /** @return the snapshot's free-GPU histogram, once {@code gpusPerPod} is known to be at least 1 */
    private int[] hist(ClusterSnapshot snapshot, int gpusPerPod) {
        if (gpusPerPod < 1) {
            throw new IllegalArgumentException("gpusPerPod must be at least 1, got " + gpusPerPod);
        }
        return counts(snapshot).hist();
    }

    private Counts counts(ClusterSnapshot snapshot) {
        Counts c = last;
        List<NodeState> nodes = snapshot.nodes();
        if (c != null && c.nodes().size() == nodes.size()) {
            if (c.nodes() == nodes) {
                return c;
            }
            c = updated(c, nodes);
        } else {
            c = counted(nodes);
        }
        last = c;
        return c;
    }

    /** @return the counts of {@code nodes} from {@code c}'s, which counted as many nodes */
    private static Counts updated(Counts c, List<NodeState> nodes) {
        int[] free = null;
        int[] hist = null;
        for (int i = 0; i < nodes.size(); i++) {
            NodeState ns = nodes.get(i);
            if (ns == c.nodes().get(i)) {
                continue;
            }
            int f = ns.freeGpuCount();
            if (f == c.free()[i] && free == null) {
                continue;
            }
            if (free == null) {
                free = c.free().clone();
                hist = c.hist().clone();
            }
            if (f >= hist.length) {
                hist = Arrays.copyOf(hist, f + 1);
            }
            hist[free[i]]--;
            hist[f]++;
            free[i] = f;
        }
        return free == null ? new Counts(nodes, c.free(), c.hist())
                : new Counts(nodes, free, hist);
    }

    private static Counts counted(List<NodeState> nodes) {
        int[] free = new int[nodes.size()];
        int max = 0;
        for (int i = 0; i < free.length; i++) {
            free[i] = nodes.get(i).freeGpuCount();
            max = Math.max(max, free[i]);
        }
        int[] hist = new int[max + 1];
        for (int f : free) {
            hist[f]++;
        }
        return new Counts(nodes, free, hist);
    }
}
