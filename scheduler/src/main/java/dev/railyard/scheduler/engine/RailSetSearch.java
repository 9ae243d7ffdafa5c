package dev.railyard.scheduler.engine;

import dev.railyard.scheduler.engine.PlanSearchResult.Attempt;
import dev.railyard.scheduler.engine.PlanSearchResult.Candidate;
import dev.railyard.scheduler.engine.PlanSearchResult.Failure;
import dev.railyard.scheduler.engine.PlanSearchResult.Pruned;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Rail-set search for one relaxation level: per pod class, the rail vectors some node can offer, ranked by how many
 * pods the cluster can host with them (only the bound members' vectors when some are bound); then every combination
 * in rank order, at most {@link EngineSettings#maxRailVectors()}, each searched by {@link DomainSearch}; the least
 * {@link PlanCost} wins. With alignment, a plan on one node (any rails) is tried first: it sends nothing over the
 * rails.
 */
final class RailSetSearch {
    /** Most rail vectors enumerated per node pattern. */
    private static final int VECTOR_LIMIT = 4096;

    private final PlanInputs in;
    private final int maxRailVectors;

    /** The rail vectors kept per class, or the failure of the first class that has none. */
    private record Vectors(List<List<RailVector>> perClass, RailVector best, int bestClass, Failure failure) {
    }

    RailSetSearch(PlanInputs in, int maxRailVectors) {
        this.in = in;
        this.maxRailVectors = maxRailVectors;
    }

    /**
     * @param aligned    true when every pod of a shape must use one rail vector
     * @param scopeLimit the highest tier the gang may span ({@link Integer#MAX_VALUE}: any)
     * @param relax      the relaxation bits of this level
     * @return the best plan, or why there is none
     */
    Attempt attempt(boolean aligned, int scopeLimit, int relax) {
        Map<String, DomainTree> trees = new HashMap<>();
        Candidate onOneNode = null;
        if (aligned) {
            // a gang on one node sends nothing over the rails: any rails will do there
            var one = DomainSearch.solve(in, new RailVector[in.classes().size()], 0, relax, trees, true,
                    Integer.MAX_VALUE);
            if (one instanceof Candidate cand) {
                onOneNode = cand;
            }
        }
        Vectors vectors = vectors(aligned);
        if (vectors.failure() != null) {
            return onOneNode != null ? onOneNode : vectors.failure();
        }
        List<RailVector[]> combos = new ArrayList<>();
        combine(vectors.perClass(), 0, new RailVector[in.classes().size()], combos);
        Candidate best = onOneNode;
        Failure fail = null;
        for (RailVector[] combo : combos) {
            var r = DomainSearch.solve(in, combo, scopeLimit, relax, trees, false,
                    best == null ? Integer.MAX_VALUE : best.cost().tier());
            switch (r) {
                case Pruned p -> {
                    // cannot beat the best plan's tier
                }
                case Candidate cand -> {
                    if (best == null || cand.cost().compareTo(best.cost()) < 0) {
                        best = cand;
                    }
                }
                case Failure f -> fail = fail == null ? f : fail;
            }
        }
        if (best != null) {
            return best;
        }
        List<Reason> reasons = fail == null ? List.of() : fail.reasons();
        return new Failure(reasons, vectors.best(), Math.max(0, vectors.bestClass()));
    }

    /** The candidate rail vectors of every class (a single null, "any rails", for classes not aligned). */
    private Vectors vectors(boolean aligned) {
        List<PodClass> classes = in.classes();
        List<List<RailVector>> perClass = new ArrayList<>();
        RailVector bestVector = null;
        int bestClass = -1;
        for (int c = 0; c < classes.size(); c++) {
            PodClass pc = classes.get(c);
            boolean alignThis = aligned && pc.shapeCount > 1 && pc.template.gpus() > 0;
            if (!alignThis) {
                long cap = 0;
                for (NodeRailView v : in.views()[c]) {
                    cap += v == null ? 0 : v.capacity(null);
                }
                if (cap < pc.count()) {
                    return new Vectors(null, null, c, new Failure(List.of(pc.tooLarge(cap)), null, c));
                }
                List<RailVector> any = new ArrayList<>();
                any.add(null);
                perClass.add(any);
                continue;
            }
            List<Map.Entry<RailVector, Long>> ranked = ranked(pc, c);
            List<RailVector> keep = new ArrayList<>();
            for (var e : ranked) {
                // a class sharing its shape with an earlier one takes that class's vector (combine): keep every
                // vector it can host, not only the best few
                if (e.getValue() >= pc.count() && (pc.leader != c || keep.size() < maxRailVectors)) {
                    keep.add(e.getKey());
                }
            }
            if (keep.isEmpty()) {
                Map.Entry<RailVector, Long> best = ranked.isEmpty() ? null : ranked.get(0);
                return new Vectors(null, null, c, new Failure(List.of(noRailSet(pc, best)),
                        best == null ? null : best.getKey(), c));
            }
            if (bestVector == null) {
                bestVector = keep.get(0);
                bestClass = c;
            }
            perClass.add(keep);
        }
        return new Vectors(perClass, bestVector, bestClass, null);
    }

    /** The class's rail vectors with the pods the cluster hosts with each, most first (bound members' only). */
    private List<Map.Entry<RailVector, Long>> ranked(PodClass pc, int c) {
        Map<RailVector, Long> capacity = vectorCapacities(in.views()[c], pc.template.gpus());
        List<Map.Entry<RailVector, Long>> ranked = new ArrayList<>();
        if (!pc.fixedVectors.isEmpty()) {
            // members of this shape are bound already: only their rail vectors keep the gang aligned
            for (RailVector v : pc.fixedVectors) {
                ranked.add(Map.entry(v, capacity.getOrDefault(v, 0L)));
            }
        } else {
            ranked.addAll(capacity.entrySet());
            ranked.sort(Comparator.<Map.Entry<RailVector, Long>>comparingLong(Map.Entry::getValue).reversed()
                    .thenComparing(e -> e.getKey().sequence().toString()));
        }
        return ranked;
    }

    private static Reason noRailSet(PodClass pc, Map.Entry<RailVector, Long> best) {
        if (best == null) {
            return pc.tooLarge(0);
        }
        String detail = !pc.fixedVectors.isEmpty()
                ? "with rail alignment the " + pc.describe() + " still to place need the rail set of the "
                + (pc.shapeCount - pc.count()) + " bound members, " + best.getKey() + ", which fits "
                + best.getValue() + " of them"
                : "with rail alignment the " + pc.describe() + " need one rail set; the most available, "
                + best.getKey() + ", fits " + best.getValue() + " of them";
        return new Reason(ReasonCode.NO_COMMON_RAIL_SET, "no common rail set", detail);
    }

    /** Combinations of one vector per class, in rank order, at most {@code maxRailVectors}. */
    private void combine(List<List<RailVector>> perClass, int c, RailVector[] cur, List<RailVector[]> out) {
        if (out.size() >= maxRailVectors) {
            return;
        }
        if (c == perClass.size()) {
            out.add(cur.clone());
            return;
        }
        int leader = in.classes().get(c).leader;
        if (leader != c && cur[leader] != null) {
            // same shape as an earlier class (other nodes allowed): the same rail vector, or no combination
            if (perClass.get(c).contains(cur[leader])) {
                cur[c] = cur[leader];
                combine(perClass, c + 1, cur, out);
            }
            return;
        }
        for (RailVector v : perClass.get(c)) {
            cur[c] = v;
            combine(perClass, c + 1, cur, out);
            if (out.size() >= maxRailVectors) {
                return;
            }
        }
    }

    /** Every rail vector some node can offer, with the pods the whole cluster can host with it. */
    private static Map<RailVector, Long> vectorCapacities(NodeRailView[] views, int g) {
        Map<String, List<NodeRailView>> byPattern = new LinkedHashMap<>();
        for (NodeRailView v : views) {
            if (v == null || !v.blockers().isEmpty() || v.eligibleCount() < g) {
                continue;
            }
            byPattern.computeIfAbsent(Arrays.toString(v.eligiblePerRail), k -> new ArrayList<>()).add(v);
        }
        Map<RailVector, Long> cap = new HashMap<>();
        for (List<NodeRailView> group : byPattern.values()) {
            int[] e = group.get(0).eligiblePerRail;
            List<int[]> vectors = new ArrayList<>();
            enumerate(e, 0, g, new int[e.length], vectors);
            for (int[] counts : vectors) {
                RailVector rv = new RailVector(counts);
                long sum = 0;
                for (NodeRailView v : group) {
                    sum += v.capacity(rv);
                }
                if (sum > 0) {
                    cap.merge(rv, sum, Long::sum);
                }
            }
        }
        return cap;
    }

    /** Every way to take {@code left} GPUs from the rails r.. with {@code e[r]} qualifying ones, most on r first. */
    private static void enumerate(int[] e, int r, int left, int[] cur, List<int[]> out) {
        if (out.size() >= VECTOR_LIMIT) {
            return;
        }
        if (left == 0) {
            out.add(cur.clone());
            return;
        }
        if (r == e.length) {
            return;
        }
        int rest = 0;
        for (int i = r + 1; i < e.length; i++) {
            rest += e[i];
        }
        for (int k = Math.min(left, e[r]); k >= 0; k--) {
            if (left - k > rest) {
                break;
            }
            cur[r] = k;
            enumerate(e, r + 1, left - k, cur, out);
        }
        cur[r] = 0;
    }
}
