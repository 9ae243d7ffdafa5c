package dev.railyard.scheduler.engine;

import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.scheduler.ipam.PoolReason;
import dev.railyard.scheduler.ipam.PoolVerdict;
import dev.railyard.topology.fabric.FabricModel;

import java.util.ArrayList;
import java.util.List;

/**
 * Railyard's placement decisions, pure: per-pod Filter and Score, and gang plans ({@link GangPlanner}). Plain data
 * in, decisions out; no I/O, no Kubernetes client; deterministic. The Volcano and kube-scheduler adapters, the CLI and
 * the simulator all call this class. Thread-safe.
 */
public final class PlacementEngine {
    private final EngineSettings settings;
    private final GangPlanner planner;

    public PlacementEngine(EngineSettings settings) {
        this.settings = settings == null ? EngineSettings.defaults() : settings;
        this.planner = new GangPlanner(this.settings);
    }

    public PlacementEngine() {
        this(EngineSettings.defaults());
    }

    /** @return the settings */
    public EngineSettings settings() {
        return settings;
    }

    /** Plans a whole gang; see {@link GangPlanner}. */
    public PlanOutcome plan(ClusterSnapshot snapshot, GangRequest gang) {
        return planner.plan(snapshot, gang);
    }

    /**
     * Plans a whole gang, answering at once when the cluster's free GPUs cannot hold it; see
     * {@link GangPlanner#planUnlessShort}.
     */
    public PlanOutcome planUnlessShort(ClusterSnapshot snapshot, GangRequest gang) {
        return planner.planUnlessShort(snapshot, gang);
    }

    /**
     * Filter: can {@code node} take {@code pod}? Checks, with reasons a person can read: the pod's node selector and
     * required node affinity, cordon, NodeTopology,
     * RDMA resources present with free slots, every network's master netdev on the node, enough free GPUs pairing
     * with usable rail HCAs at or under the allowed distance (when affinity is required), the gang's rail vector
     * (when alignment is required) and fabric scope (when required), and a free address in every pool the pod draws
     * from.
     *
     * @param snapshot the cluster
     * @param pod      the pod
     * @param policy   its gang's policy
     * @param node     node name
     * @param context  the gang's placed members and rail vector
     * @return the verdict; a node not in the snapshot is reported as such
     */
    public NodeVerdict filter(ClusterSnapshot snapshot, PodRequest pod, PlacementPolicy policy, String node,
                              GangContext context) {
        NodeState ns = snapshot.node(node);
        if (ns == null) {
            return new NodeVerdict(node, List.of(new Reason(ReasonCode.NODE_UNSCHEDULABLE, "node unknown",
                    "node " + node + " is not in the snapshot")));
        }
        PcieDistance limit = policy.gpuHcaAffinity() == AffinityPolicy.REQUIRED ? policy.maxDistance() : null;
        NodeRailView view = NodeRailView.of(snapshot, ns, pod, limit);
        List<Reason> reasons = new ArrayList<>();
        if (!pod.nodeAffinity().matches(ns)) {
            reasons.add(GangPlanner.nodeAffinityMismatch());
        }
        reasons.addAll(view.reasonsForOnePod());
        if (reasons.isEmpty() && context.rails() != null && policy.railAlignment() == AffinityPolicy.REQUIRED
                && pod.gpus() > 0 && view.capacity(context.rails()) == 0) {
            reasons.add(new Reason(ReasonCode.RAIL_SET_UNAVAILABLE, "rail set " + context.rails() + " unavailable",
                    "qualifying free GPUs per rail " + java.util.Arrays.toString(view.eligiblePerRail())));
        }
        if (policy.scope().required() && !policy.scope().isAny() && !context.placed().isEmpty()) {
            int worst = worstTier(snapshot.fabric(), node, context);
            // members already placed beyond the scope (bound elsewhere than planned) widen it to their domain, as
            // the gang planner does: refusing the rest would leave the gang half placed for ever (docs/adr/0005)
            int spanned = spannedTier(snapshot.fabric(), context);
            int allowed = Math.max(policy.scope().maxTier(), spanned);
            if (worst > allowed) {
                reasons.add(new Reason(ReasonCode.OUTSIDE_FABRIC_SCOPE, "outside the gang's fabric scope",
                        "tier " + worst + " (" + snapshot.fabric().tierName(worst) + ") from the gang's members, "
                                + "scope allows " + policy.scope()
                                + (allowed > policy.scope().maxTier() ? ", widened to the " + snapshot.fabric()
                                .tierName(allowed) + " (tier " + allowed + ") its members already span" : "")));
            }
        }
        if (snapshot.pools() != null && !pod.selections().isEmpty()) {
            PoolVerdict v = snapshot.pools().checkPod(pod.networks(), pod.key(), node);
            if (!v.admitted()) {
                reasons.add(new Reason(v.reason() == PoolReason.POOL_EXHAUSTED ? ReasonCode.POOL_EXHAUSTED
                        : ReasonCode.NETWORK_INVALID, v.reason() == PoolReason.POOL_EXHAUSTED ? "IP pool exhausted"
                        : "network unusable", v.message()));
            }
        }
        return new NodeVerdict(node, reasons);
    }

    /**
     * Places one pod on one node with a given rail set: the cheapest GPU set ({@link CostWeights}) that puts
     * {@code rails.count(r)} GPUs on every rail r, each GPU qualifying as in {@link #filter} (at or under the
     * policy's maximum distance unless affinity is {@code ignore}; a {@code preferred} affinity is held, not
     * relaxed). Used when a pod is bound to another node than its gang plan gave it, so that it keeps the gang's
     * rails where the node allows.
     *
     * @param snapshot the cluster (the pod's own GPUs must not be counted as allocated)
     * @param pod      the pod
     * @param policy   its gang's policy
     * @param node     node name
     * @param rails    the rail set; its total should equal the pod's GPU count
     * @param index    index of the pod in its gang, copied to the result
     * @param rank     its rank, or null, copied to the result
     * @return the pod placed with GPUs in local-rank order (by rail, then GPU index), or why the node cannot
     *         offer the rail set
     */
    public RailSetFit placeOnRails(ClusterSnapshot snapshot, PodRequest pod, PlacementPolicy policy, String node,
                                   RailVector rails, int index, Integer rank) {
        NodeState ns = snapshot.node(node);
        if (ns == null) {
            return new RailSetFit(null, "node " + node + " is not in the snapshot");
        }
        if (rails.total() != pod.gpus()) {
            return new RailSetFit(null, "rail set " + rails + " has " + rails.total() + " GPUs, the pod asks for "
                    + pod.gpus());
        }
        PcieDistance limit = policy.gpuHcaAffinity() == AffinityPolicy.IGNORE ? null : policy.maxDistance();
        NodeRailView view = NodeRailView.of(snapshot, ns, pod, limit);
        if (!view.blockers().isEmpty()) {
            return new RailSetFit(null, node + ": " + view.blockers().get(0));
        }
        if (view.podsByResources() < 1) {
            return new RailSetFit(null, node + ": no free RDMA resource slot");
        }
        LocalSelection.Choice choice = LocalSelection.select(view, null, NodeChoice.demand(rails, 1), pod.gpus(),
                settings.cost());
        if (choice == null) {
            return new RailSetFit(null, node + " cannot offer rail set " + rails + ": qualifying free GPUs per rail "
                    + java.util.Arrays.toString(view.eligiblePerRail()));
        }
        List<GpuBinding> gpus = new ArrayList<>();
        for (int p : choice.positions()) {
            gpus.add(view.binding[p]);
        }
        gpus.sort(java.util.Comparator.comparingInt(GpuBinding::rail).thenComparingInt(GpuBinding::gpu));
        return new RailSetFit(new PlannedPod(index, rank, pod.name(), node, gpus, rails), null);
    }

    /**
     * @return the lowest tier at which one domain per rail holds every placed member (0 for none or one node):
     * domains nest, so it is the largest common tier of the first member with each other one; O(members · rails)
     */
    private static int spannedTier(FabricModel fabric, GangContext context) {
        List<Integer> rails = context.rails() == null ? List.of(0) : context.rails().rails();
        String first = context.placed().get(0);
        int spanned = 0;
        for (String other : context.placed()) {
            for (int r : rails.isEmpty() ? List.of(0) : rails) {
                spanned = Math.max(spanned, fabric.commonTier(first, other, r));
            }
        }
        return spanned;
    }

    private static int worstTier(FabricModel fabric, String node, GangContext context) {
        List<Integer> rails = context.rails() == null ? List.of(0) : context.rails().rails();
        int worst = 0;
        for (String other : context.placed()) {
            for (int r : rails.isEmpty() ? List.of(0) : rails) {
                worst = Math.max(worst, fabric.commonTier(node, other, r));
            }
        }
        return worst;
    }

    /**
     * Score: how good is {@code node} for {@code pod}, 0–100, with a breakdown: the weighted mean of the terms of
     * {@link WeightedScore} (see {@link ScoreWeights}). Call it for nodes that passed {@link #filter}; an infeasible
     * node scores 0.
     */
    public NodeScore score(ClusterSnapshot snapshot, PodRequest pod, PlacementPolicy policy, String node,
                           GangContext context) {
        NodeState ns = snapshot.node(node);
        ScoreWeights w = settings.score();
        if (ns == null) {
            return new NodeScore(node, 0, List.of());
        }
        PcieDistance limit = policy.gpuHcaAffinity() == AffinityPolicy.REQUIRED ? policy.maxDistance() : null;
        NodeRailView view = NodeRailView.of(snapshot, ns, pod, limit);
        RailVector vector = context.rails();
        boolean railOk = vector == null || pod.gpus() == 0 || view.capacity(vector) > 0;
        int[] demand = railOk && pod.gpus() > 0 ? NodeChoice.demand(vector, 1) : null;
        LocalSelection.Choice choice = view.blockers().isEmpty()
                ? LocalSelection.select(view, null, demand, pod.gpus(), settings.cost()) : null;
        if (choice == null) {
            return new NodeScore(node, 0, List.of(new NodeScore.Term("pairing", 0, w.pairing(),
                    "the pod does not fit")));
        }
        return WeightedScore.of(new ScoreInput(snapshot, pod, node, view, context, choice, railOk, settings.cost()),
                w);
    }
}
