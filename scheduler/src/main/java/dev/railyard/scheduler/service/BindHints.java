package dev.railyard.scheduler.service;

import dev.railyard.api.hints.RankOrder;
import dev.railyard.api.volcano.PodGroup;
import dev.railyard.scheduler.cluster.ClusterView;
import dev.railyard.scheduler.cluster.NodeRecord;
import dev.railyard.scheduler.cluster.PodView;
import dev.railyard.scheduler.engine.BoundMember;
import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.GangPlanner;
import dev.railyard.scheduler.engine.GangRequest;
import dev.railyard.scheduler.engine.GangSession;
import dev.railyard.scheduler.engine.NodeState;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.scheduler.engine.PlacementPolicy;
import dev.railyard.scheduler.engine.PlanOutcome;
import dev.railyard.scheduler.engine.PlannedPod;
import dev.railyard.scheduler.engine.PodRequest;
import dev.railyard.scheduler.engine.RailVector;
import dev.railyard.scheduler.hints.NcclSyntax;
import dev.railyard.scheduler.hints.OffPlanHints;
import dev.railyard.scheduler.hints.PlacementHints;
import dev.railyard.scheduler.input.LogText;
import dev.railyard.scheduler.input.RateLimitedLog;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.GangRef;
import dev.railyard.scheduler.protocol.PodRef;

import dev.railyard.topology.InputException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The hint annotations written with a pod's Binding ({@link EnginePlacementDecisions#bindHints}: the bind verb, the
 * {@code pods/binding} webhook, the backfill and its sweep), for the node in the Binding:
 * <ul>
 *   <li>the plan entry the pod was last steered by ({@link GangSession#steered}), when that entry names the node;
 *   </li>
 *   <li>for a pod already bound (the backfill path): paired on its node as if its own GPUs were free;</li>
 *   <li>otherwise the pod's gang decision, taken as Filter and Score take it ({@link Decider}): the plan's pod when
 *       the plan chose the node, else the GPUs on the node that keep the gang's rail set (the one its bound members
 *       hold, else the plan's), or the node's best pairing when it cannot offer it, with the gang's rank and size,
 *       said in the hint's {@code railChoice} ({@link OffPlanHints}).</li>
 * </ul>
 * The annotations are then written in the NCCL syntax the pod's job declares ({@link NcclSyntax#rewrite}). Only pods
 * in Railyard's scope ({@link HintScope}) on a node with a NodeTopology get hints. No call throws for want of a hint:
 * a hint that cannot be computed is an empty map and one rate-limited line ({@code no hints}, {@code hints failed};
 * {@code off plan} says a hint left the plan). Thread-safe when its collaborators are.
 */
final class BindHints {

    /**
     * What the gang decision says about a pod not bound yet.
     *
     * @param request the pod's request
     * @param policy  its placement policy (pod and PodGroup annotations)
     * @param planned its entry in the gang's plan, or null when the plan does not place it
     * @param outcome the gang's plan, or null when none was made; not null when {@code planned} is set
     */
    record PodDecision(PodRequest request, PlacementPolicy policy, PlannedPod planned, PlanOutcome outcome) {
    }

    /** The pod's gang decision over a view: the path Filter and Score take, steering included. */
    @FunctionalInterface
    interface Decider {
        /**
         * @param view the current view
         * @param pod  the pod as the cluster shows it (labels, annotations, its gang), without resources or node
         * @return the decision; an exception propagates to the bind hints' caller
         */
        PodDecision decide(ClusterView view, ExtenderPod pod);
    }

    private final Supplier<ClusterView> views;
    private final PlacementEngine engine;
    private final GangSession session;
    private final GangReader gangReader;
    private final RateLimitedLog lines;
    private final Decider decider;
    private final HintScope hintScope = new HintScope();

    /**
     * @param views      the current view, or null while the cluster cache has not synced (then no hints)
     * @param engine     the engine that pairs a pod off its plan
     * @param session    the gang session whose steered plan entries give the hints of pods bound as planned
     * @param gangReader reads a gang's bound members (shared with the gang decisions: it logs each unhinted
     *                   member once)
     * @param lines      where the {@code no hints}, {@code off plan} and {@code hints failed} lines go
     * @param decider    the pod's gang decision, for a pod not bound yet that its steered entry does not cover
     */
    BindHints(Supplier<ClusterView> views, PlacementEngine engine, GangSession session, GangReader gangReader,
              RateLimitedLog lines, Decider decider) {
        this.views = Objects.requireNonNull(views, "views");
        this.engine = Objects.requireNonNull(engine, "engine");
        this.session = Objects.requireNonNull(session, "session");
        this.gangReader = Objects.requireNonNull(gangReader, "gangReader");
        this.lines = Objects.requireNonNull(lines, "lines");
        this.decider = Objects.requireNonNull(decider, "decider");
    }

    /**
     * @param ref      the pod
     * @param nodeName the node it is (being) bound to
     * @return the hint annotations for the pod on that node in its job's NCCL syntax; empty while the cache has not
     *         synced, for a pod or node the view does not know, a node without a NodeTopology, a pod outside
     *         Railyard's scope, or when no hint can be computed
     * @throws RuntimeException only from the {@link Decider}
     */
    Map<String, String> of(PodRef ref, String nodeName) {
        Map<String, String> hints = plain(ref, nodeName);
        ClusterView view = views.get();
        PodView known = view == null || hints.isEmpty() ? null : view.pod(ref.namespace() + "/" + ref.name());
        return known == null ? hints : NcclSyntax.rewrite(hints, known.annotations(), view.podGroupOf(known));
    }

    /** The hints in the syntax every NCCL release accepts. */
    private Map<String, String> plain(PodRef ref, String nodeName) {
        ClusterView view = views.get();
        if (view == null) {
            return Map.of();
        }
        String key = ref.namespace() + "/" + ref.name();
        PodView known = view.pod(key);
        if (known == null || view.snapshot().node(nodeName) == null
                || view.snapshot().node(nodeName).topology() == null
                || !hintScope.coversOrSays(view.snapshot(), view.request(known))) {
            return Map.of();
        }
        GangSession.Steered last = session.steered(key);
        if (last != null && last.pod().node().equals(nodeName)) {
            try {
                return PlacementHints.annotations(PlacementHints.hint(last.snapshot(), last.plan(), last.pod(),
                        last.request()));
            } catch (RuntimeException e) {
                lines.warn("hints failed", "no hints for {} on {} from its plan: {}", key, nodeName, e.getMessage());
            }
        }
        if (known.node() != null && !known.node().isEmpty()) {
            return forBoundPod(view, known, nodeName, last);
        }
        ExtenderPod pod = new ExtenderPod(ref, known.labels(), known.annotations(), "", null,
                GangRef.of(ref.namespace(), known.labels(), known.annotations()), null);
        PodDecision pc;
        try {
            pc = decider.decide(view, pod);
        } catch (InputException e) {
            // a placement annotation Railyard cannot read: the filter refused every node with it, so no plan to hint
            lines.info("policy invalid", "no hints for {} on {}: {}", LogText.escape(key), nodeName,
                    LogText.escape(e.getMessage()));
            return Map.of();
        }
        try {
            if (pc.planned() != null && pc.planned().node().equals(nodeName)) {
                return PlacementHints.annotations(
                        PlacementHints.hint(view.snapshot(), pc.outcome().plan(), pc.planned(), pc.request()));
            }
            // the scheduler chose another node than the plan: pair the pod on the node in the Binding, keeping the
            // gang's rail set where that node offers it
            PlannedPod planned = pc.planned() != null ? pc.planned() : last == null ? null : last.pod();
            OffPlanHints.Result r = OffPlanHints.hint(engine, view.snapshot(), nodeName, pc.request(), pc.policy(),
                    gangSide(view, known, pc.policy(), planned, pc.request()));
            if (r.hint() == null) {
                lines.info("no hints", "no hints for {} on {}: {}", key, nodeName, r.why());
                return Map.of();
            }
            if (r.hint().railChoice() != null) {
                lines.info("off plan", "hints for {} on {} off its plan: {}", key, nodeName,
                        r.hint().railChoice().reason());
            }
            return new LinkedHashMap<>(PlacementHints.annotations(r.hint()));
        } catch (RuntimeException e) {
            lines.warn("hints failed", "no hints for {} on {}: {}", key, nodeName, e.getMessage());
            return Map.of();
        }
    }

    /**
     * Hints for a pod already bound (the backfill path): paired on its node as if its own GPUs were free, since the
     * cluster view already counts them as taken by it; off its plan, it keeps the gang's rail set where the node
     * offers it ({@link OffPlanHints}).
     */
    private Map<String, String> forBoundPod(ClusterView view, PodView known, String nodeName,
                                            GangSession.Steered last) {
        NodeRecord record = view.record(nodeName);
        NodeState node = record == null ? null : record.without(known.key());
        if (node == null || node.topology() == null) {
            return Map.of();
        }
        PodRequest request = view.request(known);
        PlacementPolicy policy;
        try {
            policy = PlacementPolicy.resolve(null, view.podGroupOf(known), known.annotations(),
                    view.snapshot().fabric());
        } catch (InputException e) {
            lines.info("policy invalid", "no hints for bound pod {} on {}: {}", LogText.escape(known.key()), nodeName,
                    LogText.escape(e.getMessage()));
            return Map.of();
        }
        try {
            // the node as if the pod's GPUs were free, with the view's networks (their pools' ranges give
            // NCCL_IB_ADDR_RANGE)
            ClusterSnapshot one = new ClusterSnapshot(List.of(node), new ArrayList<>(view.snapshot().networks()
                    .values()), view.snapshot().fabric(), null);
            OffPlanHints.Result r = OffPlanHints.hint(engine, one, nodeName, request, policy,
                    gangSide(view, known, policy, last == null ? null : last.pod(), request));
            if (r.hint() == null) {
                lines.info("no hints", "no hints for bound pod {} on {}: {}", known.key(), nodeName, r.why());
                return Map.of();
            }
            return new LinkedHashMap<>(PlacementHints.annotations(r.hint()));
        } catch (RuntimeException e) {
            lines.warn("hints failed", "no hints for bound pod {} on {}: {}", known.key(), nodeName, e.getMessage());
            return Map.of();
        }
    }

    /**
     * What the off-plan hint needs to know about the pod's gang, worked out from the cluster as the planner sees the
     * gang (docs/adr/0005), so that it holds after a restart: the members already bound
     * ({@link GangReader#boundMembers}, the pod itself left out) and the ones still to place (the pod among them), as
     * one {@link GangRequest}.
     * <ul>
     *   <li>rail set: the one the bound, aligned members of the pod's shape hold ({@link GangRequest#boundRailSets},
     *       the rule the planner holds the rest of the gang to), else the plan's rail vector for the pod;</li>
     *   <li>rank: the plan's for the pod, else the one the bound members leave it ({@link GangPlanner#ranks}, as the
     *       planner gives it); none with {@code rank-order: none};</li>
     *   <li>size: bound members and members still to place, as the plan's own hints count it.</li>
     * </ul>
     *
     * @param planned the pod's entry in the gang plan (current, or the one it was last steered by), or null
     */
    private OffPlanHints.GangSide gangSide(ClusterView view, PodView known, PlacementPolicy policy,
                                          PlannedPod planned, PodRequest request) {
        PodGroup group = view.podGroupOf(known);
        if (group == null) {
            return new OffPlanHints.GangSide(known.key(), 1, planned == null ? null : planned.rank(),
                    planned == null ? null : planned.node(), planned == null ? null : planned.rails(),
                    planned == null ? null : "the gang plan");
        }
        String gangKey = group.namespace() + "/" + group.name();
        List<PodView> members = view.members(group);
        List<BoundMember> bound = gangReader.boundMembers(view, gangKey, members, known.key());
        // the pod and the members not bound yet share the ranks the bound ones leave, in rank order
        List<PodView> toPlace = members.stream()
                .filter(m -> m.key().equals(known.key()) || m.node() == null || m.node().isEmpty()).toList();
        GangRequest gang = new GangRequest(group.namespace(), group.name(),
                toPlace.stream().map(view::request).toList(), policy, bound);
        RailVector rails = gang.boundRailSets(request).keySet().stream().findFirst().orElse(null);
        String from = rails == null ? null : "its bound members' hints";
        if (rails == null && planned != null) {
            rails = planned.rails();
            from = rails == null ? null : "the gang plan";
        }
        int position = toPlace.stream().map(PodView::key).toList().indexOf(known.key());
        Integer rank = policy.rankOrder() == RankOrder.NONE ? null
                : planned != null ? planned.rank()
                : position < 0 ? null : GangPlanner.ranks(gang)[position];
        return new OffPlanHints.GangSide(gangKey, gang.size(), rank, planned == null ? null : planned.node(), rails,
                from);
    }
}
