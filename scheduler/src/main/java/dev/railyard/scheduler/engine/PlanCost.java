package dev.railyard.scheduler.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The cost of a gang plan, compared lexicographically in field order (smaller is better). See {@link GangPlanner}
 * for the definition of each part.
 *
 * @param relaxations preferences given up, as bits: 4 = GPU–HCA affinity, 2 = rail alignment, 1 = fabric scope
 *                    (so losing affinity weighs more than losing alignment, which weighs more than scope)
 * @param tier        tier of the smallest fabric domain holding every pod: 0 = one node, 1 = one leaf per used
 *                    rail, 2 = spine, ...; {@code maxTier + 1} = the whole cluster
 * @param hops        sum over every two pods of the switches between their nodes (0 on one node; the most over the
 *                    rails the gang uses)
 * @param local       sum over used nodes of the node-local cost ({@link CostWeights})
 * @param slack       free GPUs left in that smallest domain (tightest domain first)
 * @param enclosing   free GPUs left in each domain enclosing that one, from the next tier up to the highest tier
 *                    below the cluster root, compared in that order (the fullest surroundings first, which keeps
 *                    empty units empty for larger gangs)
 */
public record PlanCost(int relaxations, int tier, long hops, long local, long slack, List<Long> enclosing)
        implements Comparable<PlanCost> {
    private static final Comparator<PlanCost> ORDER = Comparator.comparingInt(PlanCost::relaxations)
            .thenComparingInt(PlanCost::tier).thenComparingLong(PlanCost::hops)
            .thenComparingLong(PlanCost::local).thenComparingLong(PlanCost::slack)
            .thenComparing(PlanCost::enclosing, PlanCost::compareLists);

    public PlanCost {
        enclosing = enclosing == null ? List.of() : List.copyOf(enclosing);
    }

    private static int compareLists(List<Long> a, List<Long> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = Long.compare(a.get(i), b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    /** Bit of {@link #relaxations}: GPU–HCA affinity was relaxed. */
    public static final int AFFINITY_RELAXED = 4;
    /** Bit of {@link #relaxations}: rail alignment was relaxed. */
    public static final int ALIGNMENT_RELAXED = 2;
    /** Bit of {@link #relaxations}: fabric scope was relaxed. */
    public static final int SCOPE_RELAXED = 1;

    @Override
    public int compareTo(PlanCost o) {
        return ORDER.compare(this, o);
    }

    /** @return the relaxed preferences in words, empty when none */
    public List<String> relaxedNames() {
        List<String> out = new ArrayList<>();
        if ((relaxations & AFFINITY_RELAXED) != 0) {
            out.add("GPU–HCA affinity");
        }
        if ((relaxations & ALIGNMENT_RELAXED) != 0) {
            out.add("rail alignment");
        }
        if ((relaxations & SCOPE_RELAXED) != 0) {
            out.add("fabric scope");
        }
        return out;
    }
}
