package dev.railyard.scheduler.engine;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The GPUs chosen on one node for some pods of each class of a gang, and the node-local part of the plan cost
 * ({@link CostWeights}: pairing penalties, broken PCIe groups, free GPUs left).
 *
 * @param positions per class, the chosen GPU positions (into the node's GPU list), {@code pods × GPUs} of them
 * @param cost      the node-local cost of the whole choice, all classes together
 */
record NodeChoice(int[][] positions, long cost) {
    /**
     * Chooses GPUs for {@code m[c]} pods of each class on node i, class by class ({@link LocalSelection}), each class
     * taking the GPUs the earlier ones left.
     *
     * @param classes the gang's pod classes
     * @param views   {@code views[c][i]}: node i as class c sees it
     * @param combo   rail vector per class (null: any rails)
     * @param i       the node's index
     * @param m       pods of each class to place on the node
     * @param w       cost weights
     * @return the choice, or null when the pods do not fit (GPUs, or RDMA resource slots summed over classes)
     */
    static NodeChoice choose(List<PodClass> classes, NodeRailView[][] views, RailVector[] combo, int i, int[] m,
                             CostWeights w) {
        NodeRailView any = null;
        for (int c = 0; c < classes.size(); c++) {
            if (m[c] > 0) {
                any = views[c][i];
                break;
            }
        }
        if (any == null) {
            return new NodeChoice(new int[classes.size()][0], 0);
        }
        if (!resourceSlotsFit(classes, any, m)) {
            return null;
        }
        int[][] positions = new int[classes.size()][];
        long penalty = 0;
        int chosen = 0;
        boolean[] taken = null;
        for (int c = 0; c < classes.size(); c++) {
            NodeRailView v = views[c][i];
            int g = classes.get(c).template.gpus();
            if (m[c] == 0 || g == 0) {
                positions[c] = new int[0];
                continue;
            }
            LocalSelection.Choice ch = LocalSelection.select(v, taken, demand(combo[c], m[c]), g * m[c], w);
            if (ch == null) {
                return null;
            }
            positions[c] = ch.positions();
            penalty += ch.penaltySum();
            chosen += ch.positions().length;
            if (taken == null) {
                taken = new boolean[v.binding.length];
            }
            for (int p : ch.positions()) {
                taken[p] = true;
            }
        }
        return chosen == 0 ? new NodeChoice(positions, 0) : new NodeChoice(positions, cost(any, positions, penalty, w));
    }

    /** @return true when the node's RDMA resource slots hold every class's pods together */
    private static boolean resourceSlotsFit(List<PodClass> classes, NodeRailView view, int[] m) {
        Map<String, Long> need = new HashMap<>();
        for (int c = 0; c < classes.size(); c++) {
            if (m[c] == 0) {
                continue;
            }
            for (var e : classes.get(c).template.rdmaResources().entrySet()) {
                need.merge(e.getKey(), Math.max(1, e.getValue()) * m[c], Long::sum);
            }
        }
        for (var e : need.entrySet()) {
            HcaResource r = view.node().hcaResource(e.getKey());
            if (r == null || r.free() < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** @return GPUs per rail for {@code pods} pods of one rail vector, or null for any rails */
    static int[] demand(RailVector vector, int pods) {
        if (vector == null) {
            return null;
        }
        int[] demand = new int[vector.width()];
        for (int r = 0; r < demand.length; r++) {
            demand[r] = vector.count(r) * pods;
        }
        return demand;
    }

    /** The node-local cost of all classes' GPUs together. */
    private static long cost(NodeRailView v, int[][] positions, long penalty, CostWeights w) {
        int[] after = v.groupFree.clone();
        int capableChosen = 0;
        for (int[] ps : positions) {
            for (int p : ps) {
                v.take(after, p);
                capableChosen += v.capable[p] ? 1 : 0;
            }
        }
        int leftover = v.freeCapable - capableChosen;
        return LocalSelection.cost(v, v.groupFree, after, penalty, leftover, w);
    }
}
