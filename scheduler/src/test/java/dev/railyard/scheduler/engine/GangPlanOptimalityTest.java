package dev.railyard.scheduler.engine;

import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.api.hints.FabricScope;
import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.topology.fabric.FabricModel;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import static dev.railyard.scheduler.engine.EngineFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Acceptance (issue 3): on 1,000 seeded random instances small enough for exhaustive search (≤ 8 nodes, ≤ 4 pods),
 * the plan's cost equals the exhaustive optimum under the cost function documented in {@link GangPlanner}.
 *
 * <p>The exhaustive search below is written independently of the planner: it enumerates every distribution of pods
 * over nodes, every rail vector and every GPU subset on every node, and evaluates the documented cost (tier, hops,
 * local = 10·Σ penalty + 4·Δ broken groups + 1·free GPUs left, counting only GPUs whose own pair is within the
 * limit, slack, enclosing) from scratch. It shares only the model
 * definitions: GPU→rail binding ({@link NodeRailView#bindings()}) and fabric tiers ({@link FabricModel#commonTier}).
 * Each planner result is also re-evaluated from its concrete GPU sets, so a plan whose reported cost it does not
 * achieve fails too.
 */
class GangPlanOptimalityTest {
    private static final int INSTANCES = 1000;
    // CostWeights.defaults(): PIX 0, PXB 1, P2C 2, PHB 4, NODE 5, SYS 8 (by enum order)
    private static final int[] PENALTY = {0, 1, 2, 4, 5, 8};

    record Cost(int tier, long hops, long local, long slack, List<Long> enclosing) implements Comparable<Cost> {
        @Override
        public int compareTo(Cost o) {
            int c = Integer.compare(tier, o.tier);
            if (c != 0) {
                return c;
            }
            c = Long.compare(hops, o.hops);
            if (c != 0) {
                return c;
            }
            c = Long.compare(local, o.local);
            if (c != 0) {
                return c;
            }
            c = Long.compare(slack, o.slack);
            for (int i = 0; c == 0 && i < enclosing.size(); i++) {
                c = Long.compare(enclosing.get(i), o.enclosing.get(i));
            }
            return c;
        }
    }

    /** Free GPUs left in the domains around {@code anchor} at tiers {@code tier} .. maxTier (the slack, then the
     * enclosing domains). */
    static List<Long> freeAround(Instance in, String anchor, int tier, Set<Integer> rails, long gangGpus) {
        FabricModel fabric = in.snapshot.fabric();
        List<Long> out = new ArrayList<>();
        for (int level = tier; level <= Math.max(tier, fabric.maxTier()); level++) {
            long free = 0;
            for (NodeState ns : in.snapshot.nodes()) {
                boolean inside = level == 0 ? ns.name().equals(anchor) : pairTier(fabric, anchor, ns.name(), rails) <= level;
                if (inside) {
                    free += ns.freeGpuCount();
                }
            }
            out.add(free - gangGpus);
        }
        return out;
    }

    @Test
    void planCostEqualsExhaustiveOptimumOnThousandSeededInstances() {
        GangPlanner planner = new GangPlanner();
        int feasible = 0;
        int multiNode = 0;
        for (int seed = 1; seed <= INSTANCES; seed++) {
            Instance in = generate(new Random(seed));
            PlanOutcome out = planner.plan(in.snapshot, in.gang);
            Cost best = exhaustive(in);
            if (best == null) {
                assertThat(out.schedulable()).as("seed %d: exhaustive finds no plan, planner must agree: %s", seed,
                        out.plan()).isFalse();
                continue;
            }
            if (!out.schedulable()) {
                fail("seed " + seed + ": exhaustive optimum " + best + " but planner says " + out.summary());
            }
            feasible++;
            PlanCost pc = out.plan().cost();
            Cost got = new Cost(pc.tier(), pc.hops(), pc.local(), pc.slack(), pc.enclosing());
            assertThat(pc.relaxations()).isZero();
            assertThat(got).as("seed %d", seed).isEqualTo(best);
            assertThat(evaluate(in, out.plan())).as("seed %d: the plan achieves its reported cost", seed)
                    .isEqualTo(got);
            if (out.plan().nodes().size() > 1) {
                multiNode++;
            }
        }
        // the generator must exercise both outcomes and multi-node plans
        assertThat(feasible).isBetween(300, INSTANCES - 50);
        assertThat(multiNode).isGreaterThan(100);
    }

    // ---- instances ---------------------------------------------------------------------------------------------

    record Instance(ClusterSnapshot snapshot, GangRequest gang, PcieDistance limit, boolean aligned, int scope) {
    }

    static Instance generate(Random rnd) {
        int n = 2 + rnd.nextInt(7);
        int maxRails = 1 + rnd.nextInt(4);
        List<NodeState> nodes = new ArrayList<>();
        // the classes non-home pairs are drawn from (P2C, which only C2C GPUs have, is left out)
        PcieDistance[] all = {PcieDistance.PIX, PcieDistance.PXB, PcieDistance.PHB, PcieDistance.NODE,
                PcieDistance.SYS};
        for (int i = 0; i < n; i++) {
            int hcas = 1 + rnd.nextInt(maxRails);
            int gpus = 2 + rnd.nextInt(7);
            PcieDistance[][] m = new PcieDistance[gpus][hcas];
            int[] home = new int[gpus];
            for (int g = 0; g < gpus; g++) {
                home[g] = rnd.nextInt(10) == 0 ? -1 : g * hcas / gpus;
                for (int h = 0; h < hcas; h++) {
                    if (h == home[g]) {
                        int x = rnd.nextInt(10);
                        m[g][h] = x < 6 ? PcieDistance.PIX : x < 9 ? PcieDistance.PXB : PcieDistance.PHB;
                    } else {
                        m[g][h] = all[1 + rnd.nextInt(4)];
                    }
                }
            }
            Set<Integer> allocated = new HashSet<>();
            for (int g = 0; g < gpus; g++) {
                if (rnd.nextInt(10) < 3) {
                    allocated.add(g);
                }
            }
            nodes.add(node("n" + i, spec(m, home, null), allocated));
        }
        FabricModel fabric;
        int f = rnd.nextInt(10);
        if (f < 3) {
            fabric = FabricModel.empty();
        } else {
            int sus = 1 + rnd.nextInt(3);
            List<List<String>> groups = new ArrayList<>();
            for (int s = 0; s < sus; s++) {
                groups.add(new ArrayList<>());
            }
            for (int i = 0; i < n; i++) {
                if (f == 9 && rnd.nextInt(4) == 0) {
                    continue; // some nodes without a fabric position
                }
                groups.get(rnd.nextInt(sus)).add("n" + i);
            }
            fabric = railOptimised(groups, maxRails, 1 + rnd.nextInt(2));
        }
        int pods = 1 + rnd.nextInt(4);
        int g = 1 + rnd.nextInt(4);
        boolean strict = rnd.nextInt(3) > 0;
        boolean aligned = rnd.nextBoolean();
        int scope = rnd.nextInt(10) < 7 ? Integer.MAX_VALUE : 1 + rnd.nextInt(2);
        PlacementPolicy policy = policy(strict ? AffinityPolicy.REQUIRED : AffinityPolicy.IGNORE,
                aligned ? AffinityPolicy.REQUIRED : AffinityPolicy.IGNORE,
                scope == Integer.MAX_VALUE ? FabricScope.ANY : new FabricScope(scope, true));
        ClusterSnapshot snap = cluster(nodes, fabric);
        return new Instance(snap, gang("g", pods, g, policy), strict ? PcieDistance.PXB : null, aligned, scope);
    }

    // ---- exhaustive search -------------------------------------------------------------------------------------

    /** One node's facts for the pod shape: eligible GPUs with rail, penalty and group, and group counts. */
    static final class NodeFacts {
        final String name;
        final int free;
        final int[] gpu;
        final int[] rail;
        final int[] penalty;
        final int[] group;
        final Map<Integer, Integer> groupSize = new HashMap<>();
        final Map<Integer, Integer> groupFree = new HashMap<>();
        final Set<Integer> usableRails = new TreeSet<>();
        final Set<Integer> capable = new HashSet<>();

        NodeFacts(NodeRailView view) {
            NodeState ns = view.node();
            NodeTopologySpec spec = ns.topology();
            name = ns.name();
            Map<Integer, GpuHcaPair> home = new HashMap<>();
            for (GpuHcaPair p : spec.pairs()) {
                home.put(p.gpu(), p);
            }
            Map<String, Integer> ids = new HashMap<>();
            Map<Integer, Integer> groupOf = new HashMap<>();
            int f = 0;
            for (var gp : spec.gpus()) {
                GpuHcaPair own = home.get(gp.index());
                String key = own != null ? "hca " + own.hca() : "gpu " + gp.index();
                int id = ids.computeIfAbsent(key, k -> ids.size());
                groupOf.put(gp.index(), id);
                // only GPUs whose own pair is within the limit count for fragmentation and tightness
                boolean capableGpu = view.limit() == null || (own != null && own.distance().isAtMost(view.limit()));
                if (capableGpu) {
                    capable.add(gp.index());
                    groupSize.merge(id, 1, Integer::sum);
                    if (!ns.allocatedGpus().contains(gp.index())) {
                        groupFree.merge(id, 1, Integer::sum);
                        f++;
                    }
                }
            }
            free = f;
            List<GpuBinding> el = view.bindings().stream().filter(b -> view.qualifies(b.gpu())).toList();
            gpu = new int[el.size()];
            rail = new int[el.size()];
            penalty = new int[el.size()];
            group = new int[el.size()];
            for (int i = 0; i < el.size(); i++) {
                gpu[i] = el.get(i).gpu();
                rail[i] = el.get(i).rail();
                penalty[i] = PENALTY[el.get(i).distance().ordinal()];
                group[i] = groupOf.get(gpu[i]);
            }
            for (int r = 0; r < view.railCount(); r++) {
                if (view.usable(r)) {
                    usableRails.add(r);
                }
            }
        }

        int brokenCount(Map<Integer, Integer> freeByGroup) {
            int b = 0;
            for (var e : groupSize.entrySet()) {
                int fr = freeByGroup.getOrDefault(e.getKey(), 0);
                if (fr > 0 && fr < e.getValue()) {
                    b++;
                }
            }
            return b;
        }

        /** Local cost of taking exactly these eligible positions. */
        long localCost(List<Integer> positions) {
            Map<Integer, Integer> after = new HashMap<>(groupFree);
            long pen = 0;
            int capableTaken = 0;
            for (int p : positions) {
                if (capable.contains(gpu[p])) {
                    after.merge(group[p], -1, Integer::sum);
                    capableTaken++;
                }
                pen += penalty[p];
            }
            return 10 * pen + 4L * (brokenCount(after) - brokenCount(groupFree)) + (free - capableTaken);
        }

        /** Cheapest local cost for m pods of g GPUs, each with rail vector v (null = any rails); null if none. */
        Long best(int m, int g, int[] v) {
            if (m == 0) {
                return 0L;
            }
            int need = m * g;
            Long best = null;
            int e = gpu.length;
            for (int mask = 0; mask < (1 << e); mask++) {
                if (Integer.bitCount(mask) != need) {
                    continue;
                }
                List<Integer> pos = new ArrayList<>();
                int[] perRail = new int[8];
                for (int i = 0; i < e; i++) {
                    if ((mask & (1 << i)) != 0) {
                        pos.add(i);
                        perRail[rail[i]]++;
                    }
                }
                if (v != null) {
                    boolean ok = true;
                    for (int r = 0; r < 8; r++) {
                        if (perRail[r] != m * (r < v.length ? v[r] : 0)) {
                            ok = false;
                            break;
                        }
                    }
                    if (!ok) {
                        continue;
                    }
                }
                long c = localCost(pos);
                if (best == null || c < best) {
                    best = c;
                }
            }
            return best;
        }
    }

    static Cost exhaustive(Instance in) {
        List<NodeState> nodes = in.snapshot.nodes();
        PodRequest pod = in.gang.pods().get(0);
        int k = in.gang.pods().size();
        int g = pod.gpus();
        List<NodeFacts> facts = new ArrayList<>();
        Set<Integer> unionRails = new TreeSet<>();
        for (NodeState ns : nodes) {
            NodeFacts nf = new NodeFacts(NodeRailView.of(in.snapshot, ns, pod, in.limit));
            facts.add(nf);
            unionRails.addAll(nf.usableRails);
        }
        if (unionRails.isEmpty()) {
            unionRails.add(0);
        }
        Cost best = null;
        boolean aligned = in.aligned && k > 1;
        List<int[]> vectors = new ArrayList<>();
        if (aligned) {
            enumerateVectors(new int[4], 0, g, vectors);
        }
        for (int[] m : distributions(nodes.size(), k)) {
            // free rails (alignment ignored, or every pod on one node)
            int used = 0;
            for (int x : m) {
                used += x > 0 ? 1 : 0;
            }
            if (!aligned || used == 1) {
                best = min(best, evaluate(in, facts, m, null, unionRails, g));
            }
            if (aligned) {
                for (int[] v : vectors) {
                    Set<Integer> rails = new TreeSet<>();
                    for (int r = 0; r < v.length; r++) {
                        if (v[r] > 0) {
                            rails.add(r);
                        }
                    }
                    best = min(best, evaluate(in, facts, m, v, rails, g));
                }
            }
        }
        return best;
    }

    private static Cost min(Cost a, Cost b) {
        if (b == null) {
            return a;
        }
        return a == null || b.compareTo(a) < 0 ? b : a;
    }

    private static Cost evaluate(Instance in, List<NodeFacts> facts, int[] m, int[] v, Set<Integer> rails, int g) {
        long local = 0;
        List<Integer> usedNodes = new ArrayList<>();
        for (int i = 0; i < m.length; i++) {
            if (m[i] == 0) {
                continue;
            }
            Long c = facts.get(i).best(m[i], g, v);
            if (c == null) {
                return null;
            }
            local += c;
            usedNodes.add(i);
        }
        FabricModel fabric = in.snapshot.fabric();
        int tier = 0;
        long hops = 0;
        for (int a = 0; a < usedNodes.size(); a++) {
            for (int b = a + 1; b < usedNodes.size(); b++) {
                int t = pairTier(fabric, facts.get(usedNodes.get(a)).name, facts.get(usedNodes.get(b)).name, rails);
                tier = Math.max(tier, t);
                hops += (long) m[usedNodes.get(a)] * m[usedNodes.get(b)] * (2L * t - 1);
            }
        }
        if (tier > in.scope) {
            return null;
        }
        String anchor = facts.get(usedNodes.get(0)).name;
        List<Long> around = freeAround(in, anchor, tier, rails, (long) in.gang.pods().size() * g);
        return new Cost(tier, hops, local, around.get(0), around.subList(1, around.size()));
    }

    static int pairTier(FabricModel fabric, String a, String b, Set<Integer> rails) {
        if (a.equals(b)) {
            return 0;
        }
        int t = 0;
        for (int r : rails) {
            t = Math.max(t, fabric.commonTier(a, b, r));
        }
        return t;
    }

    private static void enumerateVectors(int[] cur, int r, int left, List<int[]> out) {
        if (left == 0) {
            out.add(cur.clone());
            return;
        }
        if (r == cur.length) {
            return;
        }
        for (int c = left; c >= 0; c--) {
            cur[r] = c;
            enumerateVectors(cur, r + 1, left - c, out);
        }
        cur[r] = 0;
    }

    private static List<int[]> distributions(int n, int k) {
        List<int[]> out = new ArrayList<>();
        distribute(new int[n], 0, k, out);
        return out;
    }

    private static void distribute(int[] cur, int i, int left, List<int[]> out) {
        if (i == cur.length - 1) {
            cur[i] = left;
            out.add(cur.clone());
            cur[i] = 0;
            return;
        }
        for (int c = 0; c <= left; c++) {
            cur[i] = c;
            distribute(cur, i + 1, left - c, out);
        }
        cur[i] = 0;
    }

    /** Re-evaluates a plan from its concrete GPU sets with the documented cost function. */
    static Cost evaluate(Instance in, GangPlan plan) {
        PodRequest pod = in.gang.pods().get(0);
        Map<String, List<Integer>> byNode = new HashMap<>();
        Set<String> vectors = new HashSet<>();
        for (PlannedPod p : plan.pods()) {
            assertThat(p.gpus()).hasSize(pod.gpus());
            byNode.computeIfAbsent(p.node(), x -> new ArrayList<>()).addAll(p.gpuIndices());
            vectors.add(p.rails().toString());
        }
        boolean aligned = in.aligned && in.gang.pods().size() > 1;
        if (aligned && byNode.size() > 1) {
            assertThat(vectors).as("one rail vector for the whole gang").hasSize(1);
        }
        Set<Integer> rails = new TreeSet<>();
        Set<Integer> union = new TreeSet<>();
        long local = 0;
        for (NodeState ns : in.snapshot.nodes()) {
            NodeFacts nf = new NodeFacts(NodeRailView.of(in.snapshot, ns, pod, in.limit));
            union.addAll(nf.usableRails);
            List<Integer> gpus = byNode.get(ns.name());
            if (gpus == null) {
                continue;
            }
            List<Integer> pos = new ArrayList<>();
            for (int gpu : gpus) {
                int p = -1;
                for (int i = 0; i < nf.gpu.length; i++) {
                    if (nf.gpu[i] == gpu) {
                        p = i;
                    }
                }
                assertThat(p).as("GPU %d on %s is free and qualifies", gpu, ns.name()).isGreaterThanOrEqualTo(0);
                assertThat(pos).doesNotContain(p);
                pos.add(p);
            }
            local += nf.localCost(pos);
        }
        if (aligned && byNode.size() > 1) {
            rails.addAll(plan.pods().get(0).rails().rails());
        } else if (aligned) {
            rails.add(0); // one node: tier 0, rails do not matter
        } else {
            rails.addAll(union.isEmpty() ? Set.of(0) : union);
        }
        List<String> nodes = new ArrayList<>(byNode.keySet());
        Map<String, Integer> count = new HashMap<>();
        for (PlannedPod p : plan.pods()) {
            count.merge(p.node(), 1, Integer::sum);
        }
        FabricModel fabric = in.snapshot.fabric();
        int tier = 0;
        long hops = 0;
        for (int a = 0; a < nodes.size(); a++) {
            for (int b = a + 1; b < nodes.size(); b++) {
                int t = pairTier(fabric, nodes.get(a), nodes.get(b), rails);
                tier = Math.max(tier, t);
                hops += (long) count.get(nodes.get(a)) * count.get(nodes.get(b)) * (2L * t - 1);
            }
        }
        List<Long> around = freeAround(in, nodes.get(0), tier, rails, (long) plan.pods().size() * pod.gpus());
        return new Cost(tier, hops, local, around.get(0), around.subList(1, around.size()));
    }
}
