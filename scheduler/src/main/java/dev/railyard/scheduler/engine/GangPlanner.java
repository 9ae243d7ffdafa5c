package dev.railyard.scheduler.engine;

import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.api.hints.FabricScope;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.scheduler.engine.PlanSearchResult.Candidate;
import dev.railyard.scheduler.engine.PlanSearchResult.Failure;
import dev.railyard.scheduler.ipam.PoolDemand;
import dev.railyard.scheduler.ipam.PoolStatus;
import dev.railyard.scheduler.ipam.PoolVerdict;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Plans a whole gang: nodes, GPU sets, one rail set per pod shape, the smallest fabric domain that fits, the tightest
 * fit inside it, and a rank order along the fabric. Pure and deterministic: plain data in, a {@link PlanOutcome} out,
 * no I/O; equal inputs give equal plans. Thread-safe (no mutable state).
 *
 * <h2>Cost function</h2>
 * A plan assigns each pod to a node and a set of GPUs there; each GPU is bound to a rail HCA
 * ({@link NodeRailView}). Pods of one shape (same GPUs, RDMA resources and networks) form a class; with rail
 * alignment every pod of a class has the same {@link RailVector}. Let R be the rails the gang uses (the union of
 * its classes' vectors; every rail when alignment is off). The cost is the tuple {@link PlanCost}, compared
 * lexicographically:
 * <ol>
 *   <li>{@code relaxations}: preferences given up (affinity 4, alignment 2, scope 1); 0 when all held;</li>
 *   <li>{@code tier}: the lowest t such that one tier-t domain of the fabric seen through R ({@link DomainTree})
 *       holds every pod's node; 0 when all pods share a node;</li>
 *   <li>{@code hops}: Σ over unordered pod pairs on different nodes of {@code 2·t(a,b) − 1}, t(a,b) the lowest tier at
 *       which the two nodes share a domain on every rail of R (switches crossed under up/down routing; 0 on one
 *       node);</li>
 *   <li>{@code local}: Σ over used nodes of {@code 10·Σ penalty(GPU–HCA distance) + 4·Δ broken PCIe groups
 *       + 1·free GPUs left} ({@link CostWeights});</li>
 *   <li>{@code slack}: free GPUs of the tier-{@code tier} domain left after placing the gang (tightest domain);</li>
 *   <li>{@code enclosing}: the same for each enclosing domain, tier {@code tier+1} up to {@code maxTier}, in that
 *       order (among equal choices, the one whose surroundings are fullest, so empty units stay empty).</li>
 * </ol>
 * Hard constraints: GPU–HCA distance within the limit (when affinity is required, or preferred and not relaxed),
 * the RDMA resource slots and node blockers of {@link NodeRailView}, one rail vector per class (alignment; void when the whole gang sits on one node, since then no traffic
 * crosses the rails), tier at
 * most the scope's (scope required), and every IP pool holding an address per pod and network
 * ({@link dev.railyard.scheduler.ipam.AddressPools}). Preferred/soft constraints are tried held first, then relaxed
 * in the order of their {@code relaxations} value (scope, then alignment, then both, then affinity, ...).
 *
 * <h2>Algorithm</h2>
 * For each relaxation level, for each combination of candidate rail vectors (per class: vectors some node can
 * offer, ranked by how many pods the cluster can host with them, at most {@link EngineSettings#maxRailVectors()}
 * combinations), a dynamic program over the {@link DomainTree} finds, for every domain and every pod count per class,
 * the minimum of (hops, local): a node's table comes from {@link LocalSelection}; a domain merges its children as a
 * knapsack, adding {@code (2t − 1)·|a|·|b|} hops for a pods already placed and b pods in the next child. The lowest
 * level at which some domain holds the whole gang gives {@code tier}; among its domains the least (hops, local,
 * slack, enclosing) wins, first in node order on ties. Exact under the cost above for gangs of one pod shape (the node-local
 * choice for several shapes on one node is made shape by shape). Ranks follow a depth-first walk of the chosen
 * domain, so consecutive ranks share a node, then a leaf, then a spine.
 *
 * <h2>Members already bound</h2>
 * A gang whose pods are bound one at a time (kube-scheduler), or one with a member re-created after the others run,
 * names its bound members in {@link GangRequest#bound()}; the planner places only the other pods and keeps the bound
 * ones where they are:
 * <ul>
 *   <li>rail set: with rail alignment, a class takes the rail vector of the hinted bound members of its shape
 *       whose hints keep the gang's rails ({@link GangRequest#boundRailSets}: the one most of them use first, when
 *       they differ; a member whose hint says it could not keep the gang's rail set does not vote); required alignment
 *       that the free GPUs cannot give on that vector makes the gang unschedulable
 *       ({@link ReasonCode#NO_COMMON_RAIL_SET});</li>
 *   <li>fabric: R also holds the bound members' rails; a domain holds the gang only when it holds every bound
 *       member's node too, so {@code tier} and the scope count them; when the bound members alone already span more
 *       than a required scope allows, the scope is widened to their domain (with a notice) rather than leaving the
 *       gang half placed for ever;</li>
 *   <li>hops: each pod adds {@code 2·t − 1} per bound member on another node, t their common level (a per-node
 *       term, so the dynamic program stays exact);</li>
 *   <li>ranks: the bound members keep the ranks their hints name; the pods placed now take the lowest ranks left,
 *       in request order, after one rank is set aside per bound member whose rank is unknown.</li>
 * </ul>
 *
 * <p><b>Worst case.</b> With N nodes, D domains, V ≤ maxRailVectors vector combinations, S = Π(pods per class + 1) ≤
 * maxStates states and c the most pods one node takes: O(V · (N · L + N · S · c + D · S²)) time, where L ≤ 4096 is
 * {@link LocalSelection}'s per-node bound, and O(N · c + D · S) memory. For one 8-GPU-per-pod shape only one vector
 * exists and c = 1, so a 64-pod gang on 4,096 nodes costs O(N · 65) merge steps.
 *
 * <h2>Where each part lives</h2>
 * This class runs the relaxation levels and the node-slice pool rounds. {@link PodClass} groups the pods;
 * {@link NodeViews} builds each node's {@link NodeRailView} per class; {@link RailSetSearch} is the rail-set search
 * of one level; {@link DomainSearch} the domain enumeration of one rail-vector combination, over
 * {@link DomainTable}s; {@link NodeChoice} and {@link LocalSelection} the node-local cost; {@link PlanResults} turns
 * the winner, or the failure, into a {@link PlanOutcome}. The searches answer typed results
 * ({@link PlanSearchResult}).
 */
public final class GangPlanner {
    private final EngineSettings settings;
    /** Each node state's free GPUs and twin key, kept across plans while the state keeps the instance. */
    private final NodeFacts facts = new NodeFacts();
    /** How many pods of a GPU count the cluster's free GPUs can hold at most, per snapshot. */
    private final FreeGpuBound freeGpus = new FreeGpuBound();

    public GangPlanner(EngineSettings settings) {
        this.settings = settings == null ? EngineSettings.defaults() : settings;
    }

    public GangPlanner() {
        this(EngineSettings.defaults());
    }

    /** @return the settings */
    public EngineSettings settings() {
        return settings;
    }

    /**
     * @param snapshot the cluster
     * @param gang     the gang
     * @return a plan, or the reasons there is none
     */
    public PlanOutcome plan(ClusterSnapshot snapshot, GangRequest gang) {
        return plan(snapshot, gang, false);
    }

    /**
     * {@link #plan}, without the search when the cluster's free GPUs cannot hold some pod shape of the gang at all
     * ({@link FreeGpuBound}): the answer is then unschedulable with one {@link ReasonCode#GANG_TOO_LARGE} reason,
     * {@link #plan}'s pool verdict and notices, and no per-node verdicts. Whether there is a plan, the plan itself
     * and the pool verdict are always {@link #plan}'s; only an unschedulable answer's reasons, verdicts and summary
     * may differ: such a summary is the bound's reason and how many nodes have at least that many free GPUs,
     * cordoned and affinity-excluded ones included ({@code "…, the cluster's free GPUs hold at most 50; 50/5000
     * nodes have 8 free GPUs or more"}). For callers that ask again and again while a gang waits for room (the gang
     * session after every cluster change, Volcano's {@code jobEnqueueable} every session); {@code explain},
     * {@code simulate} and the demo use {@link #plan}, whose verdicts name every node.
     *
     * @param snapshot the cluster
     * @param gang     the gang
     * @return a plan, or why there is none
     */
    public PlanOutcome planUnlessShort(ClusterSnapshot snapshot, GangRequest gang) {
        return plan(snapshot, gang, true);
    }

    private PlanOutcome plan(ClusterSnapshot snapshot, GangRequest gang, boolean boundFirst) {
        Set<String> excluded = new HashSet<>();
        PlanOutcome out = null;
        for (int round = 0; round < 3; round++) {
            out = planOnce(snapshot, gang, excluded, boundFirst && round == 0);
            if (!out.schedulable() || snapshot.pools() == null) {
                return out;
            }
            // node-slice pools are per node: confirm the chosen nodes, exclude any that lack a slice address
            PoolVerdict v = snapshot.pools().check(demandsPerNode(gang, out.plan()));
            if (v.admitted()) {
                return out;
            }
            boolean any = false;
            for (PoolStatus s : v.pools()) {
                if (s.node() != null && !s.enough()) {
                    any |= excluded.add(s.node());
                }
            }
            if (!any) {
                return PlanResults.unschedulable(gang, List.of(PlanResults.poolReason(v)), out.verdicts(), v,
                        out.notices());
            }
        }
        return out;
    }

    /** @return the plan's address demand: per node, per pod class, the pods placed there */
    private static List<PoolDemand> demandsPerNode(GangRequest gang, GangPlan plan) {
        Map<String, Map<Integer, Integer>> perNode = new TreeMap<>();
        List<PodClass> classes = PodClass.of(gang);
        Map<Integer, Integer> classOf = new HashMap<>();
        for (int c = 0; c < classes.size(); c++) {
            for (int m : classes.get(c).members) {
                classOf.put(m, c);
            }
        }
        for (PlannedPod p : plan.pods()) {
            perNode.computeIfAbsent(p.node(), k -> new TreeMap<>()).merge(classOf.get(p.index()), 1, Integer::sum);
        }
        List<PoolDemand> demands = new ArrayList<>();
        for (var e : perNode.entrySet()) {
            for (var c : e.getValue().entrySet()) {
                demands.add(new PoolDemand(classes.get(c.getKey()).template.networks(), c.getValue(), e.getKey(),
                        podRefs(gang, classes.get(c.getKey()).members)));
            }
        }
        return demands;
    }

    /**
     * @return {@code namespace/name} of the gang's pods at these indices: a hold one of them already has (Volcano
     *         allocated it in this session) is the gang's own and does not count against the gang
     */
    private static Set<String> podRefs(GangRequest gang, List<Integer> members) {
        Set<String> out = new HashSet<>();
        for (int m : members) {
            out.add(gang.pods().get(m).key());
        }
        return out;
    }

    /**
     * @param gang a gang, its bound members with the ranks their hints name
     * @return the rank of each pod to place (by index): the ranks 0..size−1 the bound members' hints leave free, in
     * ascending order, after the lowest free ones are set aside for bound members whose rank is unknown (no hint, a
     * rank out of range, or one another member already holds); equal to the pod's index when no member is bound
     */
    public static int[] ranks(GangRequest gang) {
        return PlanResults.ranks(gang);
    }

    /** The reason for a node the pod's node selector or required node affinity rules out (kube-scheduler's words). */
    static Reason nodeAffinityMismatch() {
        return PlanResults.nodeAffinityMismatch();
    }

    /** The gang's checks before any search, and what they leave: the classes, the pool verdict, the notices. */
    private record Prepared(List<PodClass> classes, KeptMembers kept, PoolVerdict pools, List<String> notices,
                            PlanOutcome refused) {
    }

    private Prepared prepare(ClusterSnapshot snapshot, GangRequest gang) {
        List<PodClass> classes = PodClass.of(gang);
        List<String> notices = new ArrayList<>(snapshot.fabric().notices());
        notices.addAll(gang.policy().warnings());
        KeptMembers kept = KeptMembers.of(snapshot, gang);
        notices.addAll(kept.notices());
        for (PodClass c : classes) {
            if (!c.template.networks().valid()) {
                Reason r = new Reason(ReasonCode.NETWORK_INVALID, "networks annotation invalid",
                        "pod " + c.template.key() + ": " + c.template.networks().error());
                return refused(gang, classes, kept, null, notices, r);
            }
        }
        int states = 1;
        for (PodClass c : classes) {
            states = (int) Math.min((long) states * (c.count() + 1), Integer.MAX_VALUE);
        }
        if (states > settings.maxStates()) {
            Reason r = new Reason(ReasonCode.GANG_TOO_LARGE, "too many pod shapes",
                    classes.size() + (classes.size() == 1 ? " pod shape needs " : " pod shapes need ")
                            + states + " planning states, more than the limit " + settings.maxStates());
            return refused(gang, classes, kept, null, notices, r);
        }
        // address pools for the whole gang
        PoolVerdict poolVerdict = null;
        if (snapshot.pools() != null) {
            List<PoolDemand> demands = new ArrayList<>();
            for (PodClass c : classes) {
                demands.add(new PoolDemand(c.template.networks(), c.count(), null, podRefs(gang, c.members)));
            }
            poolVerdict = snapshot.pools().check(demands);
            if (!poolVerdict.admitted()) {
                return refused(gang, classes, kept, poolVerdict, notices, PlanResults.poolReason(poolVerdict));
            }
        } else if (classes.stream().anyMatch(c -> !c.template.selections().isEmpty())) {
            notices.add("address pools not checked: no pool data");
        }
        return new Prepared(classes, kept, poolVerdict, notices, null);
    }

    private static Prepared refused(GangRequest gang, List<PodClass> classes, KeptMembers kept, PoolVerdict pools,
                                    List<String> notices, Reason reason) {
        return new Prepared(classes, kept, pools, notices,
                PlanResults.unschedulable(gang, List.of(reason), List.of(), pools, notices));
    }

    /**
     * One relaxation level: whether GPU–HCA affinity, rail alignment and the fabric scope hold.
     *
     * @param strictAffinity GPUs must pair at or under the maximum distance
     * @param aligned        pods of one shape share a rail vector
     * @param scopeLimit     the highest tier the gang may span ({@link Integer#MAX_VALUE}: any)
     * @param relax          the preferences given up, as {@link PlanCost#relaxations()} bits
     */
    private record Level(boolean strictAffinity, boolean aligned, int scopeLimit, int relax) {
    }

    /** @return the relaxation levels for one affinity setting, held first, then relaxed in cost order */
    private static List<Level> levels(PlacementPolicy policy, boolean strict, boolean multi) {
        List<Boolean> alignOptions = !multi ? List.of(false) : switch (policy.railAlignment()) {
            case REQUIRED -> List.of(true);
            case PREFERRED -> List.of(true, false);
            case IGNORE -> List.of(false);
        };
        FabricScope scope = policy.scope();
        List<Integer> scopeOptions = scope.isAny() ? List.of(Integer.MAX_VALUE)
                : scope.required() ? List.of(scope.maxTier()) : List.of(scope.maxTier(), Integer.MAX_VALUE);
        List<Level> out = new ArrayList<>();
        for (boolean aligned : alignOptions) {
            for (int scopeLimit : scopeOptions) {
                int relax = (strict || policy.gpuHcaAffinity() == AffinityPolicy.IGNORE ? 0
                        : PlanCost.AFFINITY_RELAXED)
                        | (aligned || !multi || policy.railAlignment() == AffinityPolicy.IGNORE ? 0
                        : PlanCost.ALIGNMENT_RELAXED)
                        | (scopeLimit == Integer.MAX_VALUE && !scope.isAny() ? PlanCost.SCOPE_RELAXED : 0);
                out.add(new Level(strict, aligned, scopeLimit, relax));
            }
        }
        return out;
    }

    private PlanOutcome planOnce(ClusterSnapshot snapshot, GangRequest gang, Set<String> excluded,
                                 boolean boundFirst) {
        Prepared prep = prepare(snapshot, gang);
        if (prep.refused() != null) {
            return prep.refused();
        }
        if (boundFirst) {
            for (PodClass c : prep.classes()) {
                long fit = c.template.gpus() < 1 ? Long.MAX_VALUE : freeGpus.pods(snapshot, c.template.gpus());
                if (fit < c.count()) {
                    int g = c.template.gpus();
                    String nodes = freeGpus.nodesWithRoom(snapshot, g) + "/" + snapshot.nodes().size() + " nodes have "
                            + g + (g == 1 ? " free GPU" : " free GPUs") + " or more";
                    return PlanResults.unschedulable(gang, List.of(c.tooFewFreeGpus(fit)), nodes, prep.pools(),
                            prep.notices());
                }
            }
        }
        PlacementPolicy policy = gang.policy();
        List<PodClass> classes = prep.classes();
        List<Boolean> affinityOptions = switch (policy.gpuHcaAffinity()) {
            case REQUIRED -> List.of(true);
            case PREFERRED -> List.of(true, false);
            case IGNORE -> List.of(false);
        };
        boolean multi = classes.stream().anyMatch(c -> c.shapeCount > 1);
        long[] nodeFree = new long[snapshot.nodes().size()];
        NodeFacts.Fact[] nodeFacts = new NodeFacts.Fact[nodeFree.length];
        for (int i = 0; i < nodeFree.length; i++) {
            nodeFacts[i] = facts.of(snapshot.nodes().get(i));
            nodeFree[i] = nodeFacts[i].freeGpus();
        }
        Failure lastFailure = null;
        List<NodeVerdict> verdicts = List.of();
        NodeRailView[][] views = null;
        for (boolean strict : affinityOptions) {
            PcieDistance limit = strict ? policy.maxDistance() : null;
            views = NodeViews.build(snapshot, classes, limit, excluded, nodeFacts);
            verdicts = PlanResults.verdicts(snapshot, classes, views, excluded);
            PlanInputs in = new PlanInputs(snapshot, classes, views, nodeFree, prep.kept(), settings.cost());
            RailSetSearch search = new RailSetSearch(in, settings.maxRailVectors());
            for (Level level : levels(policy, strict, multi)) {
                switch (search.attempt(level.aligned(), level.scopeLimit(), level.relax())) {
                    case Candidate cand -> {
                        List<String> planNotices = planNotices(snapshot, policy, prep.notices(), cand, level,
                                lastFailure);
                        GangPlan plan = PlanResults.plan(in, gang, cand, planNotices);
                        return new PlanOutcome(gang.key(), plan, List.of(), verdicts, Verdicts.summarize(verdicts),
                                prep.pools(), prep.notices());
                    }
                    case Failure f -> lastFailure = f;
                }
            }
        }
        // unschedulable: mark nodes that pass alone but lack the best rail set
        List<NodeVerdict> marked = PlanResults.markRailSetUnavailable(snapshot, verdicts, lastFailure, views);
        return PlanResults.unschedulable(gang, lastFailure == null ? List.of() : lastFailure.reasons(), marked,
                prep.pools(), prep.notices());
    }

    /** @return the outcome's notices and the plan's own: the bound members' scope, the preferences relaxed */
    private static List<String> planNotices(ClusterSnapshot snapshot, PlacementPolicy policy, List<String> notices,
                                            Candidate cand, Level level, Failure lastFailure) {
        List<String> planNotices = new ArrayList<>(notices);
        int boundTier = cand.tree().tierOf(cand.boundTier());
        if (boundTier > level.scopeLimit()) {
            planNotices.add("the members already bound span a " + snapshot.fabric().tierName(boundTier)
                    + " domain (tier " + boundTier + "), more than the fabric scope " + policy.scope()
                    + " allows: the other pods were kept inside that domain");
        }
        if (level.relax() != 0) {
            planNotices.add("relaxed " + String.join(" and ", cand.cost().relaxedNames()) + ": "
                    + (lastFailure == null ? "no placement held it" : lastFailure.describe()));
        }
        return planNotices;
    }
}
