package dev.railyard.scheduler.engine;

import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.api.hints.FabricScope;
import dev.railyard.api.hints.RankOrder;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.scheduler.ipam.NetworkVerdict;
import dev.railyard.scheduler.ipam.PoolDemand;
import dev.railyard.scheduler.ipam.PoolReason;
import dev.railyard.scheduler.ipam.PoolStatus;
import dev.railyard.scheduler.ipam.PoolVerdict;
import dev.railyard.topology.fabric.FabricModel;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

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
 */
public final class GangPlanner {
    private final EngineSettings settings;

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

    /** What makes two nodes' views identical for one pod shape. */
    private record TwinKey(int spec, Set<Integer> allocated, List<HcaResource> resources, boolean schedulable) {
    }

    /** Pods of one shape that may use the same nodes. */
    static final class PodClass {
        final PodRequest template;
        final List<Integer> members = new ArrayList<>();
        /** The first class of the same shape (itself, unless node affinities split one shape into classes). */
        int leader;
        /** Pods of this shape over all its classes and the hinted bound members: rail alignment holds across them. */
        int shapeCount;
        /** {@link GangRequest#boundRailSets} for this shape: most used first; empty when none. */
        List<RailVector> fixedVectors = List.of();

        PodClass(PodRequest template) {
            this.template = template;
        }

        int count() {
            return members.size();
        }
    }

    /** Why one attempt failed, for the reasons of an unschedulable outcome. */
    private record Failure(List<Reason> reasons, RailVector bestVector, int bestClass) {
    }

    /**
     * The best plan of one attempt; {@code boundTier} is the lowest level at which one domain holds every bound
     * member (0 when none is bound).
     */
    private record Candidate(PlanCost cost, int level, int domain, Map<Integer, int[]> nodeStates,
                             RailVector[] vectors, int[] rails, DomainTree tree, int boundTier) {
    }

    /**
     * @param snapshot the cluster
     * @param gang     the gang
     * @return a plan, or the reasons there is none
     */
    public PlanOutcome plan(ClusterSnapshot snapshot, GangRequest gang) {
        Set<String> excluded = new HashSet<>();
        PlanOutcome out = null;
        for (int round = 0; round < 3; round++) {
            out = planOnce(snapshot, gang, excluded);
            if (!out.schedulable() || snapshot.pools() == null) {
                return out;
            }
            // node-slice pools are per node: confirm the chosen nodes, exclude any that lack a slice address
            Map<String, Map<Integer, Integer>> perNode = new TreeMap<>();
            List<PodClass> classes = classes(gang);
            Map<Integer, Integer> classOf = new HashMap<>();
            for (int c = 0; c < classes.size(); c++) {
                for (int m : classes.get(c).members) {
                    classOf.put(m, c);
                }
            }
            for (PlannedPod p : out.plan().pods()) {
                perNode.computeIfAbsent(p.node(), k -> new TreeMap<>()).merge(classOf.get(p.index()), 1, Integer::sum);
            }
            List<PoolDemand> demands = new ArrayList<>();
            for (var e : perNode.entrySet()) {
                for (var c : e.getValue().entrySet()) {
                    demands.add(new PoolDemand(classes.get(c.getKey()).template.networks(), c.getValue(), e.getKey()));
                }
            }
            PoolVerdict v = snapshot.pools().check(demands);
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
                return unschedulable(gang, List.of(poolReason(v)), out.verdicts(), v, out.notices());
            }
        }
        return out;
    }

    static List<PodClass> classes(GangRequest gang) {
        List<PodClass> classes = new ArrayList<>();
        for (int i = 0; i < gang.pods().size(); i++) {
            PodRequest p = gang.pods().get(i);
            PodClass hit = null;
            for (PodClass c : classes) {
                // pods that may use different nodes are planned as different classes (their node tables differ)
                if (c.template.sameShape(p) && c.template.nodeAffinity().equals(p.nodeAffinity())) {
                    hit = c;
                    break;
                }
            }
            if (hit == null) {
                hit = new PodClass(p);
                classes.add(hit);
            }
            hit.members.add(i);
        }
        for (int c = 0; c < classes.size(); c++) {
            PodClass pc = classes.get(c);
            pc.leader = c;
            for (int k = 0; k < c; k++) {
                if (classes.get(k).template.sameShape(pc.template)) {
                    pc.leader = k;
                    break;
                }
            }
        }
        for (PodClass pc : classes) {
            pc.shapeCount = 0;
            for (PodClass other : classes) {
                if (other.leader == pc.leader) {
                    pc.shapeCount += other.count();
                }
            }
            // bound members of the same shape whose hint names their rails, on the gang's: the class must match them
            Map<RailVector, Integer> used = gang.boundRailSets(pc.template);
            if (!used.isEmpty()) {
                pc.shapeCount += used.values().stream().mapToInt(Integer::intValue).sum();
                pc.fixedVectors = List.copyOf(used.keySet());
            }
        }
        return classes;
    }

    /**
     * The bound members as the planner uses them: their nodes' indices in the snapshot and the rails their hints
     * name.
     *
     * @param nodes   snapshot indices of the bound members' nodes, distinct; empty when none is bound
     * @param rails   rails the hinted bound members use
     * @param notices what a person should know (members without a hint, nodes not in the snapshot)
     */
    private record Fixed(int[] nodes, Set<Integer> rails, List<String> notices) {
        static final Fixed NONE = new Fixed(new int[0], Set.of(), List.of());

        static Fixed of(ClusterSnapshot snapshot, GangRequest gang) {
            if (gang.bound().isEmpty()) {
                return NONE;
            }
            Set<Integer> nodes = new TreeSet<>();
            Set<Integer> rails = new TreeSet<>();
            List<String> notices = new ArrayList<>();
            List<String> kept = new ArrayList<>();
            for (BoundMember b : gang.bound()) {
                int i = snapshot.indexOf(b.node());
                if (i < 0) {
                    notices.add("member " + b.key() + " is bound to " + b.node()
                            + ", which is not in the snapshot: left out of the fabric scope");
                    continue;
                }
                nodes.add(i);
                RailVector v = b.rails();
                if (v != null) {
                    rails.addAll(v.rails());
                }
                if (!b.hinted()) {
                    notices.add("member " + b.key() + " is bound to " + b.node()
                            + " without a placement hint: counted by its node only (rails and rank unknown)");
                } else {
                    kept.add(b.key() + " on " + b.node() + (v == null ? "" : " " + v));
                }
            }
            if (!kept.isEmpty()) {
                notices.add(0, "kept the members already bound: " + String.join(", ", kept));
            }
            return new Fixed(nodes.stream().mapToInt(Integer::intValue).toArray(), rails, notices);
        }

        boolean isEmpty() {
            return nodes.length == 0;
        }
    }

    private PlanOutcome planOnce(ClusterSnapshot snapshot, GangRequest gang, Set<String> excluded) {
        PlacementPolicy policy = gang.policy();
        List<PodClass> classes = classes(gang);
        List<String> notices = new ArrayList<>(snapshot.fabric().notices());
        Fixed fixed = Fixed.of(snapshot, gang);
        notices.addAll(fixed.notices());
        // networks annotations
        for (PodClass c : classes) {
            if (!c.template.networks().valid()) {
                Reason r = new Reason(ReasonCode.NETWORK_INVALID, "networks annotation invalid",
                        "pod " + c.template.key() + ": " + c.template.networks().error());
                return unschedulable(gang, List.of(r), List.of(), null, notices);
            }
        }
        int states = 1;
        for (PodClass c : classes) {
            states = (int) Math.min((long) states * (c.count() + 1), Integer.MAX_VALUE);
        }
        if (states > settings.maxStates()) {
            Reason r = new Reason(ReasonCode.GANG_TOO_LARGE, "too many pod shapes",
                    classes.size() + (classes.size() == 1 ? " pod shape needs " : " pod shapes need ")
                            + states + " planning states, more than the limit "
                            + settings.maxStates());
            return unschedulable(gang, List.of(r), List.of(), null, notices);
        }
        // address pools for the whole gang
        PoolVerdict poolVerdict = null;
        if (snapshot.pools() != null) {
            List<PoolDemand> demands = new ArrayList<>();
            for (PodClass c : classes) {
                demands.add(new PoolDemand(c.template.networks(), c.count(), null));
            }
            poolVerdict = snapshot.pools().check(demands);
            if (!poolVerdict.admitted()) {
                return unschedulable(gang, List.of(poolReason(poolVerdict)), List.of(), poolVerdict, notices);
            }
        } else if (classes.stream().anyMatch(c -> !c.template.selections().isEmpty())) {
            notices.add("address pools not checked: no pool data");
        }

        List<Boolean> affinityOptions = switch (policy.gpuHcaAffinity()) {
            case REQUIRED -> List.of(true);
            case PREFERRED -> List.of(true, false);
            case IGNORE -> List.of(false);
        };
        boolean multi = classes.stream().anyMatch(c -> c.shapeCount > 1);
        List<Boolean> alignOptions = !multi ? List.of(false) : switch (policy.railAlignment()) {
            case REQUIRED -> List.of(true);
            case PREFERRED -> List.of(true, false);
            case IGNORE -> List.of(false);
        };
        FabricScope scope = policy.scope();
        List<Integer> scopeOptions = scope.isAny() ? List.of(Integer.MAX_VALUE)
                : scope.required() ? List.of(scope.maxTier()) : List.of(scope.maxTier(), Integer.MAX_VALUE);

        long[] nodeFree = new long[snapshot.nodes().size()];
        for (int i = 0; i < nodeFree.length; i++) {
            nodeFree[i] = snapshot.nodes().get(i).freeGpuCount();
        }
        Failure lastFailure = null;
        List<NodeVerdict> verdicts = List.of();
        NodeRailView[][] views = null;
        for (boolean strict : affinityOptions) {
            PcieDistance limit = strict ? policy.maxDistance() : null;
            views = views(snapshot, classes, limit, excluded);
            verdicts = verdicts(snapshot, classes, views, excluded);
            for (boolean aligned : alignOptions) {
                for (int scopeLimit : scopeOptions) {
                    int relax = (strict || policy.gpuHcaAffinity() == AffinityPolicy.IGNORE ? 0
                            : PlanCost.AFFINITY_RELAXED)
                            | (aligned || !multi || policy.railAlignment() == AffinityPolicy.IGNORE ? 0
                            : PlanCost.ALIGNMENT_RELAXED)
                            | (scopeLimit == Integer.MAX_VALUE && !scope.isAny() ? PlanCost.SCOPE_RELAXED : 0);
                    Object result = attempt(snapshot, gang, classes, views, aligned, scopeLimit, relax, nodeFree,
                            fixed);
                    if (result instanceof Candidate cand) {
                        List<String> planNotices = new ArrayList<>(notices);
                        int boundTier = cand.tree().tierOf(cand.boundTier());
                        if (boundTier > scopeLimit) {
                            planNotices.add("the members already bound span a " + snapshot.fabric()
                                    .tierName(boundTier) + " domain (tier " + boundTier
                                    + "), more than the fabric scope " + scope + " allows: the other pods were kept "
                                    + "inside that domain");
                        }
                        if (relax != 0) {
                            planNotices.add("relaxed " + String.join(" and ", cand.cost().relaxedNames())
                                    + ": " + (lastFailure == null ? "no placement held it"
                                    : describeFailure(lastFailure)));
                        }
                        GangPlan plan = buildPlan(snapshot, gang, classes, views, cand, planNotices);
                        return new PlanOutcome(gang.key(), plan, List.of(), verdicts, Verdicts.summarize(verdicts),
                                poolVerdict, notices);
                    }
                    lastFailure = (Failure) result;
                }
            }
        }
        // unschedulable: mark nodes that pass alone but lack the best rail set
        List<NodeVerdict> marked = new ArrayList<>();
        for (int i = 0; i < verdicts.size(); i++) {
            NodeVerdict v = verdicts.get(i);
            if (v.feasible() && lastFailure != null && lastFailure.bestVector() != null && views != null) {
                NodeRailView view = views[lastFailure.bestClass()][snapshot.indexOf(v.node())];
                if (view != null && view.capacity(lastFailure.bestVector()) == 0) {
                    marked.add(new NodeVerdict(v.node(), List.of(new Reason(ReasonCode.RAIL_SET_UNAVAILABLE,
                            "rail set " + lastFailure.bestVector() + " unavailable",
                            "qualifying free GPUs per rail " + Arrays.toString(view.eligiblePerRail())))));
                    continue;
                }
            }
            marked.add(v);
        }
        return unschedulable(gang, lastFailure == null ? List.of() : lastFailure.reasons(), marked, poolVerdict,
                notices);
    }

    private static String describeFailure(Failure f) {
        return String.join("; ", f.reasons().stream().map(Reason::toString).toList());
    }

    private static PlanOutcome unschedulable(GangRequest gang, List<Reason> reasons, List<NodeVerdict> verdicts,
                                             PoolVerdict pools, List<String> notices) {
        String nodes = verdicts.isEmpty() ? "" : Verdicts.summarize(verdicts);
        String head = String.join("; ", reasons.stream().map(Reason::toString).toList());
        String summary = head.isEmpty() ? nodes : nodes.isEmpty() ? head : head + "; " + nodes;
        return new PlanOutcome(gang.key(), null, reasons, verdicts, summary, pools, notices);
    }

    private static Reason poolReason(PoolVerdict v) {
        ReasonCode code = v.reason() == PoolReason.POOL_EXHAUSTED || v.reason() == PoolReason.NODE_SLICE_MISSING
                ? ReasonCode.POOL_EXHAUSTED : ReasonCode.NETWORK_INVALID;
        String summary;
        NetworkVerdict first = v.networks().stream().filter(n -> !n.admitted()).findFirst().orElse(null);
        if (code == ReasonCode.POOL_EXHAUSTED) {
            String pool = first == null || first.pools().isEmpty() ? "?" : first.pools().stream()
                    .filter(p -> !p.enough()).map(PoolStatus::poolName).findFirst().orElse("?");
            summary = "pool " + pool + " exhausted";
        } else {
            summary = "network " + (first == null ? "?" : first.network()) + " unusable";
        }
        return new Reason(code, summary, v.message());
    }

    private static NodeRailView[][] views(ClusterSnapshot snapshot, List<PodClass> classes, PcieDistance limit,
                                          Set<String> excluded) {
        List<NodeState> nodes = snapshot.nodes();
        NodeRailView[][] v = new NodeRailView[classes.size()][nodes.size()];
        // nodes in the same state (same topology instance, GPUs taken, resources) share one view
        java.util.IdentityHashMap<Object, Integer> specIds = new java.util.IdentityHashMap<>();
        for (int c = 0; c < classes.size(); c++) {
            Map<TwinKey, NodeRailView> twins = new HashMap<>();
            for (int i = 0; i < nodes.size(); i++) {
                NodeState ns = nodes.get(i);
                if (excluded.contains(ns.name()) || !classes.get(c).template.nodeAffinity().matches(ns)) {
                    continue;
                }
                Object spec = ns.topology() == null ? TwinKey.class : ns.topology();
                TwinKey key = new TwinKey(specIds.computeIfAbsent(spec, k -> specIds.size()), ns.allocatedGpus(),
                        ns.hcaResources(), ns.schedulable());
                NodeRailView twin = twins.get(key);
                if (twin != null) {
                    v[c][i] = twin.forTwin(ns);
                } else {
                    v[c][i] = NodeRailView.of(snapshot, ns, classes.get(c).template, limit);
                    twins.put(key, v[c][i]);
                }
            }
        }
        return v;
    }

    private static List<NodeVerdict> verdicts(ClusterSnapshot snapshot, List<PodClass> classes,
                                              NodeRailView[][] views, Set<String> excluded) {
        int main = 0;
        for (int c = 1; c < classes.size(); c++) {
            if (classes.get(c).template.gpus() > classes.get(main).template.gpus()) {
                main = c;
            }
        }
        List<NodeVerdict> out = new ArrayList<>();
        List<NodeState> nodes = snapshot.nodes();
        for (int i = 0; i < nodes.size(); i++) {
            if (views[main][i] == null && !classes.get(main).template.nodeAffinity().matches(nodes.get(i))) {
                out.add(new NodeVerdict(nodes.get(i).name(), List.of(nodeAffinityMismatch())));
            } else if (excluded.contains(nodes.get(i).name())) {
                out.add(new NodeVerdict(nodes.get(i).name(), List.of(new Reason(ReasonCode.POOL_EXHAUSTED,
                        "node's pool slice exhausted", "the node's whereabouts slice has no free address"))));
            } else {
                out.add(new NodeVerdict(nodes.get(i).name(), views[main][i].reasonsForOnePod()));
            }
        }
        return out;
    }

    /** The reason for a node the pod's node selector or required node affinity rules out (kube-scheduler's words). */
    static Reason nodeAffinityMismatch() {
        return new Reason(ReasonCode.NODE_AFFINITY_MISMATCH, "node(s) didn't match Pod's node affinity/selector",
                "spec.nodeSelector or the required node affinity rules the node out");
    }

    // ---- one attempt -------------------------------------------------------------------------------------------

    private Object attempt(ClusterSnapshot snapshot, GangRequest gang, List<PodClass> classes,
                           NodeRailView[][] views, boolean aligned, int scopeLimit, int relax, long[] nodeFree,
                           Fixed fixed) {
        int n = snapshot.nodes().size();
        Map<String, DomainTree> trees = new HashMap<>();
        Candidate onOneNode = null;
        if (aligned) {
            // a gang on one node sends nothing over the rails: any rails will do there
            Object one = solve(snapshot, classes, views, new RailVector[classes.size()], 0, relax, trees, true,
                    Integer.MAX_VALUE, nodeFree, fixed);
            if (one instanceof Candidate cand) {
                onOneNode = cand;
            }
        }
        List<List<RailVector>> perClass = new ArrayList<>();
        RailVector bestVector = null;
        int bestClass = -1;
        for (int c = 0; c < classes.size(); c++) {
            PodClass pc = classes.get(c);
            boolean alignThis = aligned && pc.shapeCount > 1 && pc.template.gpus() > 0;
            if (!alignThis) {
                List<RailVector> one = new ArrayList<>();
                one.add(null);
                long cap = 0;
                for (int i = 0; i < n; i++) {
                    if (views[c][i] != null) {
                        cap += views[c][i].capacity(null);
                    }
                }
                if (cap < pc.count()) {
                    return onOneNode != null ? onOneNode : new Failure(List.of(tooLarge(pc, cap, null)), null, c);
                }
                perClass.add(one);
                continue;
            }
            Map<RailVector, Long> capacity = vectorCapacities(views[c], pc.template.gpus());
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
            List<RailVector> keep = new ArrayList<>();
            for (var e : ranked) {
                // a class sharing its shape with an earlier one takes that class's vector (combine): keep every
                // vector it can host, not only the best few
                if (e.getValue() >= pc.count() && (pc.leader != c || keep.size() < settings.maxRailVectors())) {
                    keep.add(e.getKey());
                }
            }
            if (keep.isEmpty()) {
                Map.Entry<RailVector, Long> best = ranked.isEmpty() ? null : ranked.get(0);
                List<Reason> rs = new ArrayList<>();
                if (best == null) {
                    rs.add(tooLarge(pc, 0, null));
                } else if (!pc.fixedVectors.isEmpty()) {
                    rs.add(new Reason(ReasonCode.NO_COMMON_RAIL_SET, "no common rail set",
                            "with rail alignment the " + pc.count() + (pc.count() == 1 ? " pod of shape " : " pods of shape ") + shape(pc.template)
                                    + " still to place need the rail set of the " + (pc.shapeCount - pc.count())
                                    + " bound members, " + best.getKey() + ", which fits " + best.getValue()
                                    + " of them"));
                } else {
                    rs.add(new Reason(ReasonCode.NO_COMMON_RAIL_SET, "no common rail set",
                            "with rail alignment the " + pc.count() + (pc.count() == 1 ? " pod of shape " : " pods of shape ") + shape(pc.template)
                                    + " need one rail set; the most available, " + best.getKey() + ", fits "
                                    + best.getValue() + " of them"));
                }
                return onOneNode != null ? onOneNode : new Failure(rs, best == null ? null : best.getKey(), c);
            }
            if (bestVector == null) {
                bestVector = keep.get(0);
                bestClass = c;
            }
            perClass.add(keep);
        }
        // combinations, in rank order, bounded
        List<RailVector[]> combos = new ArrayList<>();
        combine(classes, perClass, 0, new RailVector[classes.size()], combos);
        Candidate best = onOneNode;
        Failure fail = null;
        for (RailVector[] combo : combos) {
            Object r = solve(snapshot, classes, views, combo, scopeLimit, relax, trees, false,
                    best == null ? Integer.MAX_VALUE : best.cost().tier(), nodeFree, fixed);
            if (r == null) {
                continue; // cannot beat the best plan's tier
            }
            if (r instanceof Candidate cand) {
                if (best == null || cand.cost().compareTo(best.cost()) < 0) {
                    best = cand;
                }
            } else if (fail == null) {
                fail = (Failure) r;
            }
        }
        if (best != null) {
            return best;
        }
        return fail == null ? new Failure(List.of(), bestVector, Math.max(0, bestClass))
                : new Failure(fail.reasons(), bestVector, Math.max(0, bestClass));
    }

    private void combine(List<PodClass> classes, List<List<RailVector>> perClass, int c, RailVector[] cur,
                         List<RailVector[]> out) {
        if (out.size() >= settings.maxRailVectors()) {
            return;
        }
        if (c == perClass.size()) {
            out.add(cur.clone());
            return;
        }
        int leader = classes.get(c).leader;
        if (leader != c && cur[leader] != null) {
            // same shape as an earlier class (other nodes allowed): the same rail vector, or no combination
            if (perClass.get(c).contains(cur[leader])) {
                cur[c] = cur[leader];
                combine(classes, perClass, c + 1, cur, out);
            }
            return;
        }
        for (RailVector v : perClass.get(c)) {
            cur[c] = v;
            combine(classes, perClass, c + 1, cur, out);
            if (out.size() >= settings.maxRailVectors()) {
                return;
            }
        }
    }

    private static String shape(PodRequest p) {
        return p.gpus() + " GPU" + (p.gpus() == 1 ? "" : "s")
                + (p.selections().isEmpty() ? "" : " on " + p.selections().size() + " network"
                + (p.selections().size() == 1 ? "" : "s"));
    }

    private static Reason tooLarge(PodClass pc, long cap, RailVector v) {
        return new Reason(ReasonCode.GANG_TOO_LARGE, "not enough room for the gang",
                pc.count() + (pc.count() == 1 ? " pod of shape " : " pods of shape ") + shape(pc.template)
                        + " needed, the usable nodes hold " + cap + (v == null ? "" : " with rail set " + v));
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
            enumerate(e, 0, g, new int[e.length], vectors, 4096);
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

    private static void enumerate(int[] e, int r, int left, int[] cur, List<int[]> out, int limit) {
        if (out.size() >= limit) {
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
            enumerate(e, r + 1, left - k, cur, out, limit);
        }
        cur[r] = 0;
    }

    // ---- the dynamic program for one vector combination --------------------------------------------------------

    /** A DP table: finite states (ascending) with their (hops, local) cost. */
    private record Table(int[] states, long[] hops, long[] local) {
        static final Table EMPTY = new Table(new int[]{0}, new long[]{0}, new long[]{0});

        long total(int s, long[] out) {
            int i = Arrays.binarySearch(states, s);
            if (i < 0) {
                return -1;
            }
            out[0] = hops[i];
            out[1] = local[i];
            return 1;
        }
    }

    /** Mixed-radix state space: digit c = pods of class c. */
    private static final class States {
        final int[] radix;
        final int[] weight;
        final int size;
        final int[] total;
        final int[][] digits;
        final boolean single;

        States(List<PodClass> classes) {
            int c = classes.size();
            radix = new int[c];
            weight = new int[c];
            int s = 1;
            for (int i = 0; i < c; i++) {
                radix[i] = classes.get(i).count() + 1;
                weight[i] = s;
                s *= radix[i];
            }
            size = s;
            total = new int[s];
            digits = new int[s][c];
            for (int x = 0; x < s; x++) {
                int t = 0;
                for (int i = 0; i < c; i++) {
                    digits[x][i] = (x / weight[i]) % radix[i];
                    t += digits[x][i];
                }
                total[x] = t;
            }
            single = c == 1;
        }

        int add(int a, int b) {
            if (single) {
                int c = a + b;
                return c < size ? c : -1;
            }
            for (int i = 0; i < radix.length; i++) {
                if (digits[a][i] + digits[b][i] >= radix[i]) {
                    return -1;
                }
            }
            return a + b;
        }

        int full() {
            return size - 1;
        }
    }

    private Object solve(ClusterSnapshot snapshot, List<PodClass> classes, NodeRailView[][] views,
                         RailVector[] combo, int scopeLimit, int relax, Map<String, DomainTree> trees,
                         boolean probe, int bestTier, long[] nodeFree, Fixed fixed) {
        FabricModel fabric = snapshot.fabric();
        int n = snapshot.nodes().size();
        States st = new States(classes);
        // rails the gang uses
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
            for (int c = 0; c < classes.size(); c++) {
                for (int i = 0; i < n; i++) {
                    if (views[c][i] != null) {
                        for (int r = 0; r < views[c][i].railCount(); r++) {
                            if (views[c][i].usable(r)) {
                                railSet.add(r);
                            }
                        }
                    }
                }
            }
        }
        railSet.addAll(fixed.rails());
        if (railSet.isEmpty()) {
            railSet.add(0);
        }
        int[] rails = railSet.stream().mapToInt(Integer::intValue).toArray();
        DomainTree tree = trees.computeIfAbsent(Arrays.toString(rails), k -> DomainTree.of(snapshot, rails));
        int levelLimit = tree.levelOf(scopeLimit);  // scope is a switch tier; an NVLink level lies inside tier 1
        // bound members: the one domain per level that holds them all (-2: none at that level), their hops
        int[] boundItem = null;
        long[] boundHops = null;
        int boundTier = 0;
        if (!fixed.isEmpty()) {
            int[][] item = items(tree, n);
            boundItem = new int[tree.top + 1];
            boundTier = tree.top;
            for (int t = tree.top; t >= 0; t--) {
                int first = item[t][fixed.nodes()[0]];
                for (int b : fixed.nodes()) {
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
            boundHops = new long[n];
            for (int i = 0; i < n; i++) {
                for (int b : fixed.nodes()) {
                    int t = 0;
                    while (item[t][i] != item[t][b]) {
                        t++;
                    }
                    boundHops[i] += tree.hops(t);
                }
            }
            if (!probe && levelLimit != Integer.MAX_VALUE) {
                // the bound members are where they are: a scope they already exceed cannot hold, keep the rest
                // inside their domain instead
                levelLimit = Math.max(levelLimit, boundTier);
            }
        }
        // lower bound on the tier: the lowest level with a domain whose nodes can host every class's pods
        int lowest = Math.max(boundTier, tierLowerBound(classes, views, combo, tree, n));
        if (lowest > bestTier) {
            return null;
        }
        if (probe && lowest > levelLimit) {
            return new Failure(List.of(), null, 0);
        }
        long[][] domainFree = tree.freeGpus(nodeFree);

        // level 0: node tables
        Table[] level = new Table[n];
        long gangGpus = 0;
        for (PodClass pc : classes) {
            gangGpus += (long) pc.count() * pc.template.gpus();
        }
        for (int i = 0; i < n; i++) {
            level[i] = levelLimit == 0 && !hostsAll(classes, views, combo, i) ? Table.EMPTY
                    : nodeTable(st, classes, views, combo, i, boundHops == null ? 0 : boundHops[i]);
        }
        Table[][] tables = new Table[tree.top + 1][];
        tables[0] = level;
        int full = st.full();
        long[] tmp = new long[2];
        int maxPods = 0;
        for (int t = 0; t <= tree.top; t++) {
            if (t > 0) {
                int size = tree.size(t);
                Table[] next = new Table[size];
                long w = tree.hops(t);
                for (int d = 0; d < size; d++) {
                    next[d] = merge(st, tables[t - 1], tree.children[t][d], w, null);
                }
                tables[t] = next;
            }
            // does some domain at this level hold the whole gang?
            int bestD = -1;
            PlanCost bestCost = null;
            for (int d = 0; d < tables[t].length; d++) {
                Table tb = tables[t][d];
                for (int s : tb.states()) {
                    maxPods = Math.max(maxPods, st.total[s]);
                }
                if (tb.total(full, tmp) < 0 || (boundItem != null && d != boundItem[t])) {
                    continue;
                }
                List<Long> enclosing = new ArrayList<>();
                int up = d;
                for (int u = t; u < tree.top - 1; u++) {
                    up = tree.parent[u][up];
                    enclosing.add(domainFree[u + 1][up] - gangGpus);
                }
                PlanCost cost = new PlanCost(relax, t, tmp[0], tmp[1], domainFree[t][d] - gangGpus, enclosing);
                if (bestCost == null || cost.compareTo(bestCost) < 0) {
                    bestD = d;
                    bestCost = cost;
                }
            }
            if (bestD < 0 && probe && t >= levelLimit) {
                return new Failure(List.of(), null, 0);
            }
            if (bestD >= 0) {
                if (t > levelLimit) {
                    return new Failure(List.of(new Reason(ReasonCode.SCOPE_TOO_SMALL, "fabric scope too small",
                            "the gang fits in one " + tree.levelName(fabric, t) + " domain (tier " + tree.tierOf(t)
                                    + ") at the smallest" + (fixed.isEmpty() ? "" : " with its bound members")
                                    + ", its scope allows " + fabric.tierName(scopeLimit)
                                    + " (tier " + scopeLimit + ")" + railNote(combo))), null, 0);
                }
                Map<Integer, int[]> nodeStates = new TreeMap<>();
                backtrack(st, tables, tree, t, bestD, full, nodeStates);
                return new Candidate(bestCost, t, bestD, nodeStates, combo.clone(), rails, tree, boundTier);
            }
        }
        int need = 0;
        for (PodClass pc : classes) {
            need += pc.count();
        }
        return new Failure(List.of(new Reason(ReasonCode.GANG_TOO_LARGE, "not enough room for the gang",
                need + " pods needed, at most " + maxPods + " fit together"
                        + (fixed.isEmpty() ? "" : " in a domain with the bound members") + railNote(combo))),
                null, 0);
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
    private static boolean hostsAll(List<PodClass> classes, NodeRailView[][] views, RailVector[] combo, int i) {
        for (int c = 0; c < classes.size(); c++) {
            NodeRailView v = views[c][i];
            if (v == null || v.capacity(combo[c]) < classes.get(c).count()) {
                return false;
            }
        }
        return true;
    }

    /**
     * @return the lowest level of the tree with a domain whose nodes together have room for every class (each class
     * counted alone, so a necessary condition), or {@code tree.top + 1} when none
     */
    private static int tierLowerBound(List<PodClass> classes, NodeRailView[][] views, RailVector[] combo,
                                      DomainTree tree, int n) {
        int cc = classes.size();
        long[][] sums = new long[cc][n];
        int[] need = new int[cc];
        boolean fits = false;
        for (int c = 0; c < cc; c++) {
            need[c] = classes.get(c).count();
        }
        for (int i = 0; i < n; i++) {
            boolean all = true;
            for (int c = 0; c < cc; c++) {
                NodeRailView v = views[c][i];
                sums[c][i] = v == null ? 0 : Math.min(need[c], v.capacity(combo[c]));
                all &= sums[c][i] >= need[c];
            }
            fits |= all;
        }
        if (fits) {
            return 0;
        }
        for (int t = 1; t <= tree.top; t++) {
            int size = tree.size(t);
            long[][] next = new long[cc][size];
            boolean any = false;
            for (int d = 0; d < size; d++) {
                boolean all = true;
                for (int c = 0; c < cc; c++) {
                    long s = 0;
                    for (int k : tree.children[t][d]) {
                        s += sums[c][k];
                    }
                    next[c][d] = Math.min(s, need[c]);
                    all &= next[c][d] >= need[c];
                }
                any |= all;
            }
            if (any) {
                return t;
            }
            sums = next;
        }
        return tree.top + 1;
    }

    /** Node i's table; each pod on it adds {@code hopsPerPod} (its switch hops to the bound members). */
    private Table nodeTable(States st, List<PodClass> classes, NodeRailView[][] views, RailVector[] combo, int i,
                            long hopsPerPod) {
        int cCount = classes.size();
        int[] cap = new int[cCount];
        boolean any = false;
        for (int c = 0; c < cCount; c++) {
            NodeRailView v = views[c][i];
            cap[c] = v == null ? 0 : Math.min(classes.get(c).count(), v.capacity(combo[c]));
            any |= cap[c] > 0;
        }
        if (!any) {
            return Table.EMPTY;
        }
        List<Integer> states = new ArrayList<>();
        List<long[]> costs = new ArrayList<>();
        int[] m = new int[cCount];
        enumerateNode(st, classes, views, combo, i, cap, 0, m, states, costs);
        int[] s = new int[states.size()];
        long[] h = new long[s.length];
        long[] l = new long[s.length];
        Integer[] order = new Integer[s.length];
        for (int k = 0; k < s.length; k++) {
            order[k] = k;
        }
        Arrays.sort(order, Comparator.comparingInt(states::get));
        for (int k = 0; k < s.length; k++) {
            s[k] = states.get(order[k]);
            h[k] = hopsPerPod * st.total[s[k]];
            l[k] = costs.get(order[k])[0];
        }
        return new Table(s, h, l);
    }

    private void enumerateNode(States st, List<PodClass> classes, NodeRailView[][] views, RailVector[] combo,
                               int i, int[] cap, int c, int[] m, List<Integer> states, List<long[]> costs) {
        if (c == classes.size()) {
            int state = 0;
            for (int k = 0; k < m.length; k++) {
                state += m[k] * st.weight[k];
            }
            if (state == 0) {
                states.add(0);
                costs.add(new long[]{0});
                return;
            }
            NodeChoice nc = choose(classes, views, combo, i, m, settings.cost());
            if (nc != null) {
                states.add(state);
                costs.add(new long[]{nc.cost});
            }
            return;
        }
        for (int k = 0; k <= cap[c]; k++) {
            m[c] = k;
            enumerateNode(st, classes, views, combo, i, cap, c + 1, m, states, costs);
        }
        m[c] = 0;
    }

    /** GPUs chosen on one node for m[c] pods of each class, and the node-local cost. */
    record NodeChoice(int[][] positions, long cost) {
    }

    /**
     * Chooses GPUs for {@code m[c]} pods of each class on node i, class by class; null when they do not fit (GPUs,
     * or RDMA resource slots summed over classes).
     */
    static NodeChoice choose(List<PodClass> classes, NodeRailView[][] views, RailVector[] combo, int i, int[] m,
                             CostWeights w) {
        // RDMA resource slots over all classes
        Map<String, Long> need = new HashMap<>();
        for (int c = 0; c < classes.size(); c++) {
            if (m[c] == 0) {
                continue;
            }
            for (var e : classes.get(c).template.rdmaResources().entrySet()) {
                need.merge(e.getKey(), Math.max(1, e.getValue()) * m[c], Long::sum);
            }
        }
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
        for (var e : need.entrySet()) {
            HcaResource r = any.node().hcaResource(e.getKey());
            if (r == null || r.free() < e.getValue()) {
                return null;
            }
        }
        int[][] positions = new int[classes.size()][];
        boolean[] taken = null;
        long penalty = 0;
        int chosen = 0;
        for (int c = 0; c < classes.size(); c++) {
            NodeRailView v = views[c][i];
            int g = classes.get(c).template.gpus();
            if (m[c] == 0 || g == 0) {
                positions[c] = new int[0];
                continue;
            }
            int[] demand = null;
            if (combo[c] != null) {
                demand = new int[combo[c].width()];
                for (int r = 0; r < demand.length; r++) {
                    demand[r] = combo[c].count(r) * m[c];
                }
            }
            LocalSelection.Choice ch = LocalSelection.select(v, taken, demand, g * m[c], w);
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
        if (chosen == 0) {
            return new NodeChoice(positions, 0);
        }
        // cost over all classes together
        NodeRailView v = any;
        int[] after = v.groupFree.clone();
        int capableChosen = 0;
        for (int[] ps : positions) {
            for (int p : ps) {
                v.take(after, p);
                capableChosen += v.capable[p] ? 1 : 0;
            }
        }
        int leftover = v.freeCapable - capableChosen;
        long cost = LocalSelection.cost(v, v.groupFree, after, penalty, leftover, w);
        return new NodeChoice(positions, cost);
    }

    /** Knapsack merge of the children's tables, adding {@code w·|a|·|b|} hops between pods of different children. */
    private static Table merge(States st, Table[] below, int[] children, long w, int[][] choices) {
        int size = st.size;
        int[] accS = {0};
        long[] accH = {0};
        long[] accL = {0};
        long[] nh = new long[size];
        long[] nl = new long[size];
        boolean[] set = new boolean[size];
        for (int j = 0; j < children.length; j++) {
            Table ch = below[children[j]];
            if (ch.states().length == 1 && choices == null) {
                continue; // only "no pod": changes nothing
            }
            Arrays.fill(set, false);
            int[] choice = choices == null ? null : (choices[j] = new int[size]);
            for (int ai = 0; ai < accS.length; ai++) {
                int a = accS[ai];
                long ta = st.total[a];
                for (int bi = 0; bi < ch.states().length; bi++) {
                    int b = ch.states()[bi];
                    int c = st.add(a, b);
                    if (c < 0) {
                        continue;
                    }
                    long h = accH[ai] + ch.hops()[bi] + w * ta * st.total[b];
                    long l = accL[ai] + ch.local()[bi];
                    if (!set[c] || h < nh[c] || (h == nh[c] && l < nl[c])) {
                        set[c] = true;
                        nh[c] = h;
                        nl[c] = l;
                        if (choice != null) {
                            choice[c] = b;
                        }
                    }
                }
            }
            int count = 0;
            for (int s = 0; s < size; s++) {
                if (set[s]) {
                    count++;
                }
            }
            accS = new int[count];
            accH = new long[count];
            accL = new long[count];
            int k = 0;
            for (int s = 0; s < size; s++) {
                if (set[s]) {
                    accS[k] = s;
                    accH[k] = nh[s];
                    accL[k] = nl[s];
                    k++;
                }
            }
        }
        return new Table(accS, accH, accL);
    }

    private static void backtrack(States st, Table[][] tables, DomainTree tree, int level, int d, int state,
                                  Map<Integer, int[]> out) {
        if (state == 0) {
            return;
        }
        if (level == 0) {
            out.put(d, st.digits[state].clone());
            return;
        }
        int[] kids = tree.children[level][d];
        int[][] choices = new int[kids.length][];
        merge(st, tables[level - 1], kids, FabricModel.hopsForTier(level), choices);
        int s = state;
        for (int j = kids.length - 1; j >= 0; j--) {
            int b = choices[j][s];
            backtrack(st, tables, tree, level - 1, kids[j], b, out);
            s = s - b;
        }
    }

    // ---- the plan ----------------------------------------------------------------------------------------------

    private GangPlan buildPlan(ClusterSnapshot snapshot, GangRequest gang, List<PodClass> classes,
                               NodeRailView[][] views, Candidate cand, List<String> notices) {
        // depth-first order of nodes in the chosen domain
        List<Integer> order = new ArrayList<>();
        dfs(cand.tree(), cand.level(), cand.domain(), order);
        PlannedPod[] pods = new PlannedPod[gang.pods().size()];
        int[] next = new int[classes.size()];
        boolean ranks = gang.policy().rankOrder() == RankOrder.FABRIC;
        int[] rankOf = ranks(gang);
        for (int i : order) {
            int[] m = cand.nodeStates().get(i);
            if (m == null) {
                continue;
            }
            NodeChoice nc = choose(classes, views, cand.vectors(), i, m, settings.cost());
            String node = snapshot.nodes().get(i).name();
            for (int c = 0; c < classes.size(); c++) {
                if (m[c] == 0) {
                    continue;
                }
                NodeRailView v = views[c][i];
                List<GpuBinding> chosen = new ArrayList<>();
                for (int p : nc.positions()[c]) {
                    chosen.add(v.binding[p]);
                }
                chosen.sort(Comparator.comparingInt(GpuBinding::rail).thenComparingInt(GpuBinding::gpu));
                int g = classes.get(c).template.gpus();
                RailVector vec = cand.vectors()[c];
                for (int k = 0; k < m[c]; k++) {
                    List<GpuBinding> mine = new ArrayList<>();
                    if (vec != null) {
                        // each pod takes vec.count(r) GPUs of every rail r
                        for (int r : vec.rails()) {
                            List<GpuBinding> onRail = chosen.stream().filter(b -> b.rail() == r).toList();
                            mine.addAll(onRail.subList(k * vec.count(r), (k + 1) * vec.count(r)));
                        }
                    } else {
                        mine.addAll(chosen.subList(k * g, (k + 1) * g));
                    }
                    mine.sort(Comparator.comparingInt(GpuBinding::rail).thenComparingInt(GpuBinding::gpu));
                    int podIndex = classes.get(c).members.get(next[c]++);
                    int[] counts = new int[Math.max(1, v.railCount())];
                    for (GpuBinding b : mine) {
                        counts[b.rail()]++;
                    }
                    pods[podIndex] = new PlannedPod(podIndex, ranks ? rankOf[podIndex] : null,
                            gang.pods().get(podIndex).name(), node, mine, new RailVector(counts));
                }
            }
        }
        List<String> all = new ArrayList<>(notices);
        Set<String> seen = new TreeSet<>();
        Map<String, List<String>> grouped = new LinkedHashMap<>();
        for (PlannedPod p : pods) {
            if (!seen.add(p.node())) {
                continue;
            }
            NodeState ns = snapshot.node(p.node());
            if (ns.topology() != null && !ns.topology().complete()) {
                grouped.computeIfAbsent("NodeTopology incomplete (" + String.join("; ", ns.topology().warnings())
                        + ")", k -> new ArrayList<>()).add(p.node());
            }
            if (!snapshot.fabric().isEmpty() && snapshot.fabric().position(p.node()) == null) {
                grouped.computeIfAbsent("no fabric position", k -> new ArrayList<>()).add(p.node());
            }
            for (GpuBinding b : p.gpus()) {
                if (!b.home()) {
                    grouped.computeIfAbsent("a GPU uses another HCA than its own pair because its own rail HCA is "
                            + "not on the pod's networks", k -> new ArrayList<>()).add(p.node());
                    break;
                }
            }
        }
        grouped.forEach((what, nodes) -> all.add((nodes.size() == 1 ? "node " : "nodes ")
                + String.join(", ", nodes) + ": " + what));
        String domain = cand.level() == 0 ? cand.tree().names[0][cand.domain()]
                : cand.tree().names[cand.level()][cand.domain()];
        return new GangPlan(gang.key(), Arrays.asList(pods), cand.tree().tierOf(cand.level()), domain, cand.cost(), all,
                gang.bound());
    }

    /**
     * @param gang a gang, its bound members with the ranks their hints name
     * @return the rank of each pod to place (by index): the ranks 0..size−1 the bound members' hints leave free, in
     * ascending order, after the lowest free ones are set aside for bound members whose rank is unknown (no hint, a
     * rank out of range, or one another member already holds); equal to the pod's index when no member is bound
     */
    public static int[] ranks(GangRequest gang) {
        int size = gang.size();
        boolean[] taken = new boolean[size];
        int unknown = 0;
        for (BoundMember b : gang.bound()) {
            Integer r = b.rank();
            if (r != null && r >= 0 && r < size && !taken[r]) {
                taken[r] = true;
            } else {
                unknown++;
            }
        }
        int[] out = new int[gang.pods().size()];
        int k = 0;
        for (int r = 0; r < size && k < out.length; r++) {
            if (taken[r]) {
                continue;
            }
            if (unknown > 0) {
                unknown--;
                continue;
            }
            out[k++] = r;
        }
        return out;
    }

    private static void dfs(DomainTree tree, int level, int d, List<Integer> out) {
        if (level == 0) {
            out.add(d);
            return;
        }
        for (int c : tree.children[level][d]) {
            dfs(tree, level - 1, c, out);
        }
    }
}
