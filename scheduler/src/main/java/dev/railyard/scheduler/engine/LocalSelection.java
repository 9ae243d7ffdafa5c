package dev.railyard.scheduler.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Chooses the GPUs pods take on one node, minimising the node-local cost of {@link CostWeights}.
 *
 * <p>Algorithm: for a per-rail demand, every combination of qualifying GPUs per rail is evaluated (depth-first, rails
 * in ascending order, each rail's GPUs nearest first) when there are at most {@link #EXACT_LIMIT} combinations; the
 * first minimum found wins, which makes the choice deterministic. Beyond that limit (only on nodes with many GPUs per
 * rail) each rail takes its nearest GPUs, preferring GPUs in already broken groups, then lower indices. For a total
 * demand on any rails (alignment ignored) the choice is exact by a knapsack over locality groups.
 */
final class LocalSelection {
    /** Most combinations evaluated exactly per call. */
    static final int EXACT_LIMIT = 4096;

    /** A choice: GPU positions (into the node's GPU list), and its cost parts. */
    record Choice(int[] positions, long cost, long penaltySum, int brokenDelta, int leftover) {
    }

    private LocalSelection() {
    }

    /**
     * @param view    the node as the pod shape sees it
     * @param taken   GPU positions already taken by other pods of this plan (may be null)
     * @param demand  GPUs per rail, or null for {@code total} GPUs on any rails
     * @param total   GPUs in all (the sum of {@code demand} when given)
     * @param weights cost weights
     * @return the cheapest choice, or null when the demand cannot be met
     */
    static Choice select(NodeRailView view, boolean[] taken, int[] demand, int total, CostWeights weights) {
        if (total == 0) {
            return new Choice(new int[0], 0, 0, 0, 0);
        }
        int[][] pools;
        int[] need;
        if (demand == null) {
            return selectAnyRails(view, taken, total, weights);
        }
        if (demand.length > view.eligibleOnRail.length) {
            for (int r = view.eligibleOnRail.length; r < demand.length; r++) {
                if (demand[r] > 0) {
                    return null;
                }
            }
        }
        int n = Math.min(demand.length, view.eligibleOnRail.length);
        pools = new int[n][];
        need = new int[n];
        for (int r = 0; r < n; r++) {
            pools[r] = demand[r] == 0 ? new int[0] : filter(view.eligibleOnRail[r], taken);
            need[r] = demand[r];
        }
        long combos = 1;
        for (int r = 0; r < pools.length; r++) {
            if (pools[r].length < need[r]) {
                return null;
            }
            combos = Math.min((long) EXACT_LIMIT + 1, combos * binomial(pools[r].length, need[r]));
        }
        int[] groupFree = groupFreeAfter(view, taken);
        Search s = new Search(view, pools, need, total, groupFree, weights);
        if (combos <= EXACT_LIMIT) {
            s.exact(0, 0, 0, 0, 0);
        } else {
            s.greedy();
        }
        return s.best;
    }

    /**
     * Exact choice of {@code total} qualifying GPUs on any rails: the cost splits by locality group (within a group,
     * the nearest GPUs are taken first and only the count decides whether the group is broken), so a knapsack over
     * groups finds the minimum in O(groups × total × GPUs per group).
     */
    private static Choice selectAnyRails(NodeRailView view, boolean[] taken, int total, CostWeights w) {
        int[] eligible = filter(view.eligibleAll, taken);
        if (eligible.length < total) {
            return null;
        }
        int groups = view.groupSize.length;
        int[] groupFree = groupFreeAfter(view, taken);
        int freeBefore = 0;
        for (int f : groupFree) {
            freeBefore += f;
        }
        // per group: eligible positions, nearest first then by GPU index (eligibleAll is in that order)
        List<List<Integer>> byGroup = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            byGroup.add(new ArrayList<>());
        }
        for (int p : eligible) {
            byGroup.get(view.rails.group[p]).add(p);
        }
        final long inf = Long.MAX_VALUE / 4;
        long[][] best = new long[groups + 1][total + 1];
        int[][] pick = new int[groups + 1][total + 1];
        for (long[] row : best) {
            Arrays.fill(row, inf);
        }
        best[0][0] = 0;
        for (int g = 0; g < groups; g++) {
            List<Integer> ps = byGroup.get(g);
            long[] costOf = groupCosts(view, groupFree, g, ps, w);
            for (int n = 0; n <= total; n++) {
                if (best[g][n] == inf) {
                    continue;
                }
                for (int x = 0; x <= ps.size() && n + x <= total; x++) {
                    long c = best[g][n] + costOf[x];
                    if (c < best[g + 1][n + x]) {
                        best[g + 1][n + x] = c;
                        pick[g + 1][n + x] = x;
                    }
                }
            }
        }
        if (best[groups][total] == inf) {
            return null;
        }
        int[] chosen = new int[total];
        int k = 0;
        long penalty = 0;
        int n = total;
        int[] after = groupFree.clone();
        int capableChosen = 0;
        for (int g = groups; g >= 1; g--) {
            int x = pick[g][n];
            List<Integer> ps = byGroup.get(g - 1);
            for (int i = 0; i < x; i++) {
                chosen[k++] = ps.get(i);
                penalty += w.penalty(view.binding[ps.get(i)].distance());
                view.take(after, ps.get(i));
                capableChosen += view.capable[ps.get(i)] ? 1 : 0;
            }
            n -= x;
        }
        int leftover = freeBefore - capableChosen;
        int broken = brokenDelta(view, groupFree, after);
        long cost = (long) w.pairing() * penalty + (long) w.fragmentation() * broken + (long) w.tightness() * leftover;
        Arrays.sort(chosen);
        return new Choice(chosen, cost, penalty, broken, leftover);
    }

    /** Free GPUs per locality group once the positions in {@code taken} (may be null) are gone. */
    private static int[] groupFreeAfter(NodeRailView view, boolean[] taken) {
        int[] groupFree = view.groupFree.clone();
        if (taken != null) {
            for (int i = 0; i < taken.length; i++) {
                if (taken[i]) {
                    view.take(groupFree, i);
                }
            }
        }
        return groupFree;
    }

    /**
     * The knapsack's item costs for group {@code g}: element x is the cost part of taking the group's first x
     * eligible GPUs {@code ps} (nearest first): pairing penalty, a newly broken (or mended) group, tightness credit.
     */
    private static long[] groupCosts(NodeRailView view, int[] groupFree, int g, List<Integer> ps, CostWeights w) {
        int size = view.groupSize[g];
        boolean brokenBefore = groupFree[g] > 0 && groupFree[g] < size;
        long[] costOf = new long[ps.size() + 1];
        long pen = 0;
        int capableTaken = 0;
        for (int x = 0; x <= ps.size(); x++) {
            if (x > 0) {
                pen += w.penalty(view.binding[ps.get(x - 1)].distance());
                capableTaken += view.capable[ps.get(x - 1)] ? 1 : 0;
            }
            int after = groupFree[g] - capableTaken;
            boolean brokenAfter = after > 0 && after < size;
            costOf[x] = (long) w.pairing() * pen
                    + (long) w.fragmentation() * ((brokenAfter ? 1 : 0) - (brokenBefore ? 1 : 0))
                    - (long) w.tightness() * capableTaken;
        }
        return costOf;
    }

    private static int[] filter(int[] positions, boolean[] taken) {
        if (taken == null) {
            return positions;
        }
        int n = 0;
        int[] out = new int[positions.length];
        for (int p : positions) {
            if (!taken[p]) {
                out[n++] = p;
            }
        }
        return Arrays.copyOf(out, n);
    }

    static long binomial(int n, int k) {
        if (k < 0 || k > n) {
            return 0;
        }
        long r = 1;
        for (int i = 1; i <= k; i++) {
            r = r * (n - k + i) / i;
            if (r > Integer.MAX_VALUE) {
                return Integer.MAX_VALUE;
            }
        }
        return r;
    }

    /** Cost of leaving {@code groupFreeAfter} and {@code leftover} free GPUs, given the penalty sum. */
    static long cost(NodeRailView view, int[] groupFreeBefore, int[] groupFreeAfter, long penaltySum, int leftover,
                     CostWeights w) {
        int broken = brokenDelta(view, groupFreeBefore, groupFreeAfter);
        return (long) w.pairing() * penaltySum + (long) w.fragmentation() * broken + (long) w.tightness() * leftover;
    }

    static int brokenDelta(NodeRailView view, int[] before, int[] after) {
        int d = 0;
        for (int g = 0; g < before.length; g++) {
            int size = view.groupSize[g];
            boolean b0 = before[g] > 0 && before[g] < size;
            boolean b1 = after[g] > 0 && after[g] < size;
            d += (b1 ? 1 : 0) - (b0 ? 1 : 0);
        }
        return d;
    }

    private static final class Search {
        final NodeRailView view;
        final int[][] pools;
        final int[] need;
        final int total;
        final int[] groupFreeBefore;
        final int[] groupFree;
        final CostWeights w;
        final int[] chosen;
        final int freeBefore;
        Choice best;

        Search(NodeRailView view, int[][] pools, int[] need, int total, int[] groupFree, CostWeights w) {
            this.view = view;
            this.pools = pools;
            this.need = need;
            this.total = total;
            this.groupFreeBefore = groupFree.clone();
            this.groupFree = groupFree;
            this.w = w;
            this.chosen = new int[total];
            int f = 0;
            for (int x : groupFree) {
                f += x;
            }
            this.freeBefore = f;
        }

        /** Depth-first over rails r and, within a rail, over pool positions from {@code from}. */
        void exact(int r, int from, int placed, int onRail, long penalty) {
            if (r == pools.length) {
                record(penalty);
                return;
            }
            if (onRail == need[r]) {
                exact(r + 1, 0, placed, 0, penalty);
                return;
            }
            int[] pool = pools[r];
            int remaining = need[r] - onRail;
            for (int i = from; i <= pool.length - remaining; i++) {
                int p = pool[i];
                chosen[placed] = p;
                view.take(groupFree, p);
                exact(r, i + 1, placed + 1, onRail + 1, penalty + w.penalty(view.binding[p].distance()));
                view.untake(groupFree, p);
            }
        }

        void greedy() {
            int k = 0;
            long penalty = 0;
            for (int r = 0; r < pools.length; r++) {
                Integer[] order = Arrays.stream(pools[r]).boxed().toArray(Integer[]::new);
                Arrays.sort(order, (a, b) -> {
                    int c = Integer.compare(view.binding[a].distance().ordinal(), view.binding[b].distance().ordinal());
                    if (c != 0) {
                        return c;
                    }
                    boolean ba = brokenGroup(a);
                    boolean bb = brokenGroup(b);
                    if (ba != bb) {
                        return ba ? -1 : 1;
                    }
                    return Integer.compare(view.rails.gpus[a], view.rails.gpus[b]);
                });
                for (int i = 0; i < need[r]; i++) {
                    int p = order[i];
                    chosen[k++] = p;
                    view.take(groupFree, p);
                    penalty += w.penalty(view.binding[p].distance());
                }
            }
            record(penalty);
        }

        private boolean brokenGroup(int p) {
            int g = view.rails.group[p];
            return groupFree[g] < view.groupSize[g];
        }

        private void record(long penalty) {
            int capableChosen = 0;
            for (int p : chosen) {
                capableChosen += view.capable[p] ? 1 : 0;
            }
            int leftover = freeBefore - capableChosen;
            int broken = brokenDelta(view, groupFreeBefore, groupFree);
            long c = (long) w.pairing() * penalty + (long) w.fragmentation() * broken + (long) w.tightness() * leftover;
            if (best == null || c < best.cost()) {
                best = new Choice(chosen.clone(), c, penalty, broken, leftover);
            }
        }
    }
}
