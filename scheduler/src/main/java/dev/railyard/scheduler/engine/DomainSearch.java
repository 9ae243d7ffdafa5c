package dev.railyard.scheduler.engine;

import dev.railyard.scheduler.engine.PlanSearchResult.Candidate;
import dev.railyard.scheduler.engine.PlanSearchResult.DomainResult;
import dev.railyard.scheduler.engine.PlanSearchResult.Failure;
import dev.railyard.scheduler.engine.PlanSearchResult.Pruned;
import dev.railyard.topology.fabric.FabricModel;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Domain enumeration for one rail-vector combination: the fabric seen through the rails the gang uses
 * ({@link DomainTree}), the dynamic program over it ({@link DomainTable}), and the lowest tier with a domain that
 * holds the whole gang; among that tier's domains the least {@link PlanCost} wins (hops, local, then the free GPUs
 * left in it and in its enclosing domains), the first in node order on ties. See {@link GangPlanner} for the cost.
 */
final class DomainSearch {
    private final PlanInputs in;
    private final RailVector[] combo;
    private final int relax;
    private final PodCounts st;
    private final DomainTree tree;
    private final int[] rails;
    private final BoundSpan bound;
    /** The most pods any one domain holds, over the levels searched (for the reason when none holds them all). */
    private int maxPods;

    private DomainSearch(PlanInputs in, RailVector[] combo, int relax, DomainTree tree, int[] rails,
                         BoundSpan bound) {
        this.in = in;
        this.combo = combo;
        this.relax = relax;
        this.st = new PodCounts(in.classes());
        this.tree = tree;
        this.rails = rails;
        this.bound = bound;
    }

    /**
     * Where the bound members sit in one tree.
     *
     * @param item  per level, the one domain holding every bound member (-2: none at that level); null when none
     *              is bound
     * @param hops  per node, the switch hops from it to every bound member; null when none is bound
     * @param tier  the lowest level at which one domain holds every bound member (0 when none is bound)
     */
    private record BoundSpan(int[] item, long[] hops, int tier) {
        static final BoundSpan NONE = new BoundSpan(null, null, 0);

        static BoundSpan of(DomainTree tree, KeptMembers kept, int n) {
            if (kept.isEmpty()) {
                return NONE;
            }
            int[][] item = items(tree, n);
            int[] boundItem = new int[tree.top + 1];
            int boundTier = tree.top;
            for (int t = tree.top; t >= 0; t--) {
                int first = item[t][kept.nodes()[0]];
                for (int b : kept.nodes()) {
                    if (item[t][b] != first) {
                        first = -2;
                        break;
                    }
                }
                boundItem[t] = first;
                if (first >= 0) {
                    boundTier = t;
                }
            }
            long[] boundHops = new long[n];
            for (int i = 0; i < n; i++) {
                for (int b : kept.nodes()) {
                    int t = 0;
                    while (item[t][i] != item[t][b]) {
                        t++;
                    }
                    boundHops[i] += tree.hops(t);
                }
            }
            return new BoundSpan(boundItem, boundHops, boundTier);
        }

        long hopsOf(int node) {
            return hops == null ? 0 : hops[node];
        }

        /** @return true when domain d of level t can hold the gang: it holds every bound member */
        boolean admits(int t, int d) {
            return item == null || d == item[t];
        }
    }

    /**
     * Searches one rail-vector combination.
     *
     * @param in         the inputs
     * @param combo      rail vector per class (null: any rails)
     * @param scopeLimit the highest tier the gang may span ({@link Integer#MAX_VALUE}: any)
     * @param relax      the relaxation bits of this level ({@link PlanCost#relaxations()})
     * @param trees      domain trees by rail set, shared by the searches of one attempt
     * @param probe      true when looking for a plan on one node only (any rails will do there)
     * @param bestTier   the tier of the best plan found so far ({@link Integer#MAX_VALUE}: none)
     * @return the best plan, why there is none, or {@link Pruned} when it cannot beat {@code bestTier}
     */
    static DomainResult solve(PlanInputs in, RailVector[] combo, int scopeLimit, int relax,
                              Map<String, DomainTree> trees, boolean probe, int bestTier) {
        int n = in.nodeCount();
        int[] rails = railsUsed(in, combo);
        DomainTree tree = trees.computeIfAbsent(Arrays.toString(rails), k -> DomainTree.of(in.snapshot(), rails));
        BoundSpan bound = BoundSpan.of(tree, in.kept(), n);
        int levelLimit = tree.levelOf(scopeLimit);  // scope is a switch tier; an NVLink level lies inside tier 1
        if (!in.kept().isEmpty() && !probe && levelLimit != Integer.MAX_VALUE) {
            // the bound members are where they are: a scope they already exceed cannot hold, keep the rest
            // inside their domain instead
            levelLimit = Math.max(levelLimit, bound.tier());
        }
        // lower bound on the tier: the lowest level with a domain whose nodes can host every class's pods
        int lowest = Math.max(bound.tier(), tierLowerBound(in, combo, tree));
        if (lowest > bestTier) {
            return Pruned.INSTANCE;
        }
        if (probe && lowest > levelLimit) {
            return Failure.EMPTY;
        }
        return new DomainSearch(in, combo, relax, tree, rails, bound).search(levelLimit, probe);
    }

    /** @return the rails the gang uses: its vectors' and the bound members', every usable rail for free classes */
    private static int[] railsUsed(PlanInputs in, RailVector[] combo) {
        List<PodClass> classes = in.classes();
        TreeSet<Integer> railSet = new TreeSet<>();
        boolean free = false;
        for (int c = 0; c < classes.size(); c++) {
            if (classes.get(c).template.gpus() == 0) {
                continue;
            }
            if (combo[c] == null) {
                free = true;
            } else {
                railSet.addAll(combo[c].rails());
            }
        }
        if (free) {
            for (NodeRailView[] perNode : in.views()) {
                for (NodeRailView v : perNode) {
                    for (int r = 0; v != null && r < v.railCount(); r++) {
                        if (v.usable(r)) {
                            railSet.add(r);
                        }
                    }
                }
            }
        }
        railSet.addAll(in.kept().rails());
        if (railSet.isEmpty()) {
            railSet.add(0);
        }
        return railSet.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * The dynamic program, level by level, up to the lowest level with a domain holding the gang.
     *
     * @param levelLimit the highest domain-tree level the scope allows ({@link DomainTree#levelOf})
     */
    private DomainResult search(int levelLimit, boolean probe) {
        int n = in.nodeCount();
        long[][] domainFree = tree.freeGpus(in.nodeFree());
        DomainTable[] level = new DomainTable[n];
        for (int i = 0; i < n; i++) {
            level[i] = levelLimit == 0 && !hostsAll(in, combo, i) ? DomainTable.EMPTY
                    : DomainTable.ofNode(st, in, combo, i, capacities(i), bound.hopsOf(i));
        }
        DomainTable[][] tables = new DomainTable[tree.top + 1][];
        tables[0] = level;
        for (int t = 0; t <= tree.top; t++) {
            if (t > 0) {
                DomainTable[] next = new DomainTable[tree.size(t)];
                long w = tree.hops(t);
                for (int d = 0; d < next.length; d++) {
                    next[d] = DomainTable.merge(st, tables[t - 1], tree.children[t][d], w, null);
                }
                tables[t] = next;
            }
            Best best = bestAt(t, tables[t], domainFree);
            if (best == null && probe && t >= levelLimit) {
                return Failure.EMPTY;
            }
            if (best != null) {
                if (t > levelLimit) {
                    return scopeTooSmall(t, levelLimit);
                }
                Map<Integer, int[]> nodeStates = new TreeMap<>();
                DomainTable.backtrack(st, tables, tree, t, best.domain(), st.full(), nodeStates);
                return new Candidate(best.cost(), t, best.domain(), nodeStates, combo.clone(), rails, tree,
                        bound.tier());
            }
        }
        return gangTooLarge();
    }

    /** Pods of each class node i can take, each class counted alone. */
    private int[] capacities(int i) {
        int[] cap = new int[in.classes().size()];
        for (int c = 0; c < cap.length; c++) {
            NodeRailView v = in.views()[c][i];
            cap[c] = v == null ? 0 : Math.min(in.classes().get(c).count(), v.capacity(combo[c]));
        }
        return cap;
    }

    private record Best(int domain, PlanCost cost) {
    }

    /** @return the least-cost domain of level t holding the whole gang, or null when none does */
    private Best bestAt(int t, DomainTable[] tables, long[][] domainFree) {
        long gangGpus = 0;
        for (PodClass pc : in.classes()) {
            gangGpus += (long) pc.count() * pc.template.gpus();
        }
        long[] tmp = new long[2];
        Best best = null;
        for (int d = 0; d < tables.length; d++) {
            DomainTable tb = tables[d];
            for (int s : tb.states()) {
                maxPods = Math.max(maxPods, st.total[s]);
            }
            if (!tb.cost(st.full(), tmp) || !bound.admits(t, d)) {
                continue;
            }
            List<Long> enclosing = new ArrayList<>();
            int up = d;
            for (int u = t; u < tree.top - 1; u++) {
                up = tree.parent[u][up];
                enclosing.add(domainFree[u + 1][up] - gangGpus);
            }
            PlanCost cost = new PlanCost(relax, t, tmp[0], tmp[1], domainFree[t][d] - gangGpus, enclosing);
            if (best == null || cost.compareTo(best.cost()) < 0) {
                best = new Best(d, cost);
            }
        }
        return best;
    }

    private Failure scopeTooSmall(int t, int levelLimit) {
        FabricModel fabric = in.snapshot().fabric();
        int scope = tree.tierOf(levelLimit);
        return Failure.of(new Reason(ReasonCode.SCOPE_TOO_SMALL, "fabric scope too small",
                "the gang fits in one " + tree.levelName(fabric, t) + " domain (tier " + tree.tierOf(t)
                        + ") at the smallest" + (in.kept().isEmpty() ? "" : " with its bound members")
                        + ", its scope allows " + fabric.tierName(scope)
                        + " (tier " + scope + ")" + railNote(combo)));
    }

    private Failure gangTooLarge() {
        int need = 0;
        for (PodClass pc : in.classes()) {
            need += pc.count();
        }
        return Failure.of(new Reason(ReasonCode.GANG_TOO_LARGE, "not enough room for the gang",
                need + " pods needed, at most " + maxPods + " fit together"
                        + (in.kept().isEmpty() ? "" : " in a domain with the bound members") + railNote(combo)));
    }

    /** @return item[t][i]: the index at level t of the domain holding node i */
    private static int[][] items(DomainTree tree, int n) {
        int[][] item = new int[tree.top + 1][n];
        for (int i = 0; i < n; i++) {
            item[0][i] = i;
        }
        for (int t = 1; t <= tree.top; t++) {
            for (int i = 0; i < n; i++) {
                item[t][i] = tree.parent[t - 1][item[t - 1][i]];
            }
        }
        return item;
    }

    private static String railNote(RailVector[] combo) {
        List<String> vs = new ArrayList<>();
        for (RailVector v : combo) {
            if (v != null) {
                vs.add(v.toString());
            }
        }
        return vs.isEmpty() ? "" : " (rail set " + String.join(", ", vs) + ")";
    }

    /** @return true when node i alone has room for every class (each counted alone) */
    private static boolean hostsAll(PlanInputs in, RailVector[] combo, int i) {
        for (int c = 0; c < in.classes().size(); c++) {
            NodeRailView v = in.views()[c][i];
            if (v == null || v.capacity(combo[c]) < in.classes().get(c).count()) {
                return false;
            }
        }
        return true;
    }

    /**
     * @return the lowest level of the tree with a domain whose nodes together have room for every class (each class
     * counted alone, so a necessary condition), or {@code tree.top + 1} when none
     */
    private static int tierLowerBound(PlanInputs in, RailVector[] combo, DomainTree tree) {
        int n = in.nodeCount();
        int cc = in.classes().size();
        long[][] sums = new long[cc][n];
        int[] need = new int[cc];
        boolean fits = false;
        for (int c = 0; c < cc; c++) {
            need[c] = in.classes().get(c).count();
        }
        for (int i = 0; i < n; i++) {
            boolean all = true;
            for (int c = 0; c < cc; c++) {
                NodeRailView v = in.views()[c][i];
                sums[c][i] = v == null ? 0 : Math.min(need[c], v.capacity(combo[c]));
                all &= sums[c][i] >= need[c];
            }
            fits |= all;
        }
        if (fits) {
            return 0;
        }
        for (int t = 1; t <= tree.top; t++) {
            long[][] next = new long[cc][tree.size(t)];
            if (anyDomainHoldsAll(tree, t, sums, next, need)) {
                return t;
            }
            sums = next;
        }
        return tree.top + 1;
    }

    /** Sums level t−1's room into level t's domains; @return true when some domain has room for every class. */
    private static boolean anyDomainHoldsAll(DomainTree tree, int t, long[][] sums, long[][] next, int[] need) {
        boolean any = false;
        for (int d = 0; d < next[0].length; d++) {
            boolean all = true;
            for (int c = 0; c < need.length; c++) {
                long s = 0;
                for (int k : tree.children[t][d]) {
                    s += sums[c][k];
                }
                next[c][d] = Math.min(s, need[c]);
                all &= next[c][d] >= need[c];
            }
            any |= all;
        }
        return any;
    }
}
