package dev.railyard.scheduler.hints;

import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.api.hints.PlacementHint;
import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.GangRequest;
import dev.railyard.scheduler.engine.NodeState;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.scheduler.engine.PlacementPolicy;
import dev.railyard.scheduler.engine.PlanOutcome;
import dev.railyard.scheduler.engine.PlannedPod;
import dev.railyard.scheduler.engine.PodRequest;
import dev.railyard.scheduler.engine.RailSetFit;
import dev.railyard.scheduler.engine.RailVector;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The hint for a pod bound to another node than its gang plan gave it, or one no plan covers (the scheduler chose
 * differently, the plan changed, or the hint is written after the bind). The hint is always for the node in the
 * Binding; on that node the GPUs are chosen so that
 * <ol>
 *   <li>the pod keeps the gang's rail set when the node can offer it ({@link PlacementEngine#placeOnRails}), so
 *       that GPUs of equal local rank still share a rail across the gang and NCCL's rings stay on their rails:
 *       {@link PlacementHint.RailChoice#GANG_RAILS};</li>
 *   <li>otherwise, or when no rail set is known or the gang ignores rail alignment, the node's best pairing for
 *       the pod alone (a one-pod plan on that node): {@link PlacementHint.RailChoice#NODE_BEST}, with the reason.
 *       When a required GPU–HCA affinity cannot be met there, the pairing is made as if it were preferred (farther
 *       pairs, and {@code NCCL_NET_GDR_LEVEL} set): the pod is bound there anyway, and a hint that says so is
 *       better than none.</li>
 * </ol>
 * The hint's {@code railChoice} records which, with the planned node and the gang's rails; it is left out for a
 * pod that has no gang to line up with (no plan, no known rail set, gang of one). The gang size and the pod's rank
 * are the gang's, not those of a one-pod plan. Pure; thread-safe.
 */
public final class OffPlanHints {

    private OffPlanHints() {
    }

    /**
     * What is known about the pod's gang: the gang as the planner sees it (its members already bound, as
     * {@link dev.railyard.scheduler.engine.BoundMember}s read from their hints, and the ones still to place) and the
     * pod's entry in the gang plan, if any. The service works it out from the cluster, so it holds after a restart.
     *
     * @param gang        {@code namespace/name} of the PodGroup, or of the pod when it has none
     * @param size        pods in the gang, at least 1: the bound members and those still to place, as in the plan's
     *                    hints ({@link dev.railyard.scheduler.engine.GangPlan#gangSize()})
     * @param rank        the pod's rank: the plan's, else the one the bound members leave it
     *                    ({@link dev.railyard.scheduler.engine.GangPlanner#ranks}); null when unknown or with
     *                    {@code rank-order: none}
     * @param plannedNode the node the gang plan gave the pod, or null when no plan covered it
     * @param rails       the gang's rail set for this pod's shape: the one its bound members hold
     *                    ({@link GangRequest#boundRailSets}, first), else the plan's rail vector for the pod; null when
     *                    none is known
     * @param railsFrom   where {@code rails} came from, for people ({@code "its bound members' hints"},
     *                    {@code "the gang plan"}), or null
     */
    public record GangSide(String gang, int size, Integer rank, String plannedNode, RailVector rails,
                           String railsFrom) {
        public GangSide {
            Objects.requireNonNull(gang, "gang");
            size = Math.max(1, size);
        }
    }

    /**
     * @param hint the hint, or null when the node cannot take the pod at all
     * @param why  null with a hint; otherwise one line saying why there is none
     */
    public record Result(PlacementHint hint, String why) {
    }

    /**
     * @param engine   the placement engine
     * @param snapshot the cluster; the pod's own GPUs must not be counted as allocated on {@code node}
     * @param node     the node in the Binding
     * @param request  the pod
     * @param policy   its gang's policy
     * @param gang     what is known about its gang
     * @return the hint, or why there is none (node unknown or without NodeTopology, or the pod does not fit the
     *         node even with farther pairs: too few free GPUs, RDMA resources or networks missing)
     */
    public static Result hint(PlacementEngine engine, ClusterSnapshot snapshot, String node, PodRequest request,
                              PlacementPolicy policy, GangSide gang) {
        NodeState ns = snapshot.node(node);
        if (ns == null || ns.topology() == null) {
            return new Result(null, "node " + node + (ns == null ? " is unknown" : " has no NodeTopology"));
        }
        // one node, no pool checks: the pod is being bound there whatever its pools say; the hint only describes it
        ClusterSnapshot one = new ClusterSnapshot(List.of(ns), new ArrayList<>(snapshot.networks().values()),
                snapshot.fabric(), null);
        String planned = gang.plannedNode() == null || gang.plannedNode().equals(node) ? null : gang.plannedNode();
        String off = planned == null ? "" : "bound to " + node + ", not the planned " + planned + "; ";
        String gangRails = gang.rails() == null ? null : sequence(gang.rails());
        String why;
        if (request.gpus() == 0) {
            why = null;
        } else if (policy.railAlignment() == AffinityPolicy.IGNORE) {
            why = "the gang does not align rails (" + HintAnnotations.RAIL_ALIGNMENT + ": ignore)";
        } else if (gang.rails() == null) {
            why = "no rail set known for the gang (no plan for this pod, no aligned bound member of its shape)";
        } else {
            RailSetFit fit = engine.placeOnRails(one, request, policy, node, gang.rails(), 0, gang.rank());
            if (fit.fits()) {
                PlacementHint.RailChoice choice = new PlacementHint.RailChoice(PlacementHint.RailChoice.GANG_RAILS,
                        gang.plannedNode(), gangRails, off + "the gang's rail set " + gang.rails()
                        + (gang.railsFrom() == null ? "" : " (from " + gang.railsFrom() + ")") + " kept on " + node);
                return new Result(PlacementHints.hint(one, gang.gang(), gang.size(), fit.pod(), request, choice),
                        null);
            }
            why = fit.reason();
        }
        int slash = gang.gang().indexOf('/');
        String name = slash < 0 ? gang.gang() : gang.gang().substring(slash + 1);
        PlanOutcome single = engine.plan(one, new GangRequest(request.namespace(), name, List.of(request), policy));
        String relaxed = "";
        if (!single.schedulable() && policy.gpuHcaAffinity() == AffinityPolicy.REQUIRED) {
            // the pod is bound here whatever the policy says: describe the pairs it has, farther ones included (the
            // hint then sets NCCL_NET_GDR_LEVEL), rather than leave it without hints
            PlanOutcome loose = engine.plan(one, new GangRequest(request.namespace(), name, List.of(request),
                    policy.withAffinity(AffinityPolicy.PREFERRED, policy.maxDistance())));
            if (loose.schedulable()) {
                relaxed = "; no pairing at or under " + policy.maxDistance() + " on " + node
                        + ", so farther GPU–HCA pairs are described";
                single = loose;
            }
        }
        if (!single.schedulable()) {
            return new Result(null, single.summary());
        }
        PlannedPod p = single.plan().pods().get(0);
        Integer rank = gang.rank() != null ? gang.rank() : gang.size() == 1 ? p.rank() : null;
        PlannedPod pod = new PlannedPod(p.index(), rank, p.pod(), p.node(), p.gpus(), p.rails());
        boolean track = request.gpus() > 0 && (gang.plannedNode() != null || gang.rails() != null
                || gang.size() > 1);
        PlacementHint.RailChoice choice = null;
        if (track) {
            boolean aligned = gang.rails() != null && gang.rails().equals(p.rails());
            choice = new PlacementHint.RailChoice(aligned ? PlacementHint.RailChoice.GANG_RAILS
                    : PlacementHint.RailChoice.NODE_BEST, gang.plannedNode(), gangRails,
                    off + "the node's best pairing: " + why + relaxed);
        }
        return new Result(PlacementHints.hint(one, gang.gang(), gang.size(), pod, request, choice), null);
    }

    /** @return the rail of each GPU in local-rank order, comma-separated ({@code 2,2,3,3}) */
    static String sequence(RailVector rails) {
        return rails.sequence().stream().map(String::valueOf).collect(Collectors.joining(","));
    }
}
