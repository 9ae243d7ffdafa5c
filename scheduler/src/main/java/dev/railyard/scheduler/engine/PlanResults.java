package dev.railyard.scheduler.engine;

import dev.railyard.api.hints.RankOrder;
import dev.railyard.scheduler.engine.PlanSearchResult.Candidate;
import dev.railyard.scheduler.engine.PlanSearchResult.Failure;
import dev.railyard.scheduler.ipam.NetworkVerdict;
import dev.railyard.scheduler.ipam.PoolReason;
import dev.railyard.scheduler.ipam.PoolStatus;
import dev.railyard.scheduler.ipam.PoolVerdict;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The planner's answers as data: a {@link GangPlan} from the winning {@link Candidate} (GPUs per pod, ranks along the
 * fabric, notices about the nodes used), or an unschedulable {@link PlanOutcome} with its reasons and per-node
 * verdicts.
 */
final class PlanResults {
    private PlanResults() {
    }

    /**
     * @param cand    the winning candidate
     * @param notices notices so far; the nodes' own (incomplete topology, no fabric position, borrowed HCAs) follow
     * @return the plan: each pod's node and GPUs; consecutive ranks share a node, then a leaf, then a spine
     */
    static GangPlan plan(PlanInputs in, GangRequest gang, Candidate cand, List<String> notices) {
        List<PodClass> classes = in.classes();
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
            NodeChoice nc = NodeChoice.choose(classes, in.views(), cand.vectors(), i, m, in.weights());
            String node = in.snapshot().nodes().get(i).name();
            for (int c = 0; c < classes.size(); c++) {
                for (List<GpuBinding> mine : split(in.views()[c][i], nc.positions()[c], m[c],
                        classes.get(c).template.gpus(), cand.vectors()[c])) {
                    int podIndex = classes.get(c).members.get(next[c]++);
                    int[] counts = new int[Math.max(1, in.views()[c][i].railCount())];
                    for (GpuBinding b : mine) {
                        counts[b.rail()]++;
                    }
                    pods[podIndex] = new PlannedPod(podIndex, ranks ? rankOf[podIndex] : null,
                            gang.pods().get(podIndex).name(), node, mine, new RailVector(counts));
                }
            }
        }
        List<String> all = new ArrayList<>(notices);
        all.addAll(nodeNotices(in.snapshot(), pods));
        String domain = cand.tree().names[cand.level()][cand.domain()];
        return new GangPlan(gang.key(), Arrays.asList(pods), cand.tree().tierOf(cand.level()), domain, cand.cost(), all,
                gang.bound());
    }

    /**
     * @return the GPUs of each of {@code count} pods of one class on one node, in local-rank order: with a rail
     * vector each pod takes {@code vec.count(r)} GPUs of every rail r; without, {@code g} GPUs in turn
     */
    private static List<List<GpuBinding>> split(NodeRailView v, int[] positions, int count, int g, RailVector vec) {
        List<List<GpuBinding>> out = new ArrayList<>();
        if (count == 0) {
            return out;
        }
        List<GpuBinding> chosen = new ArrayList<>();
        for (int p : positions) {
            chosen.add(v.binding[p]);
        }
        chosen.sort(Comparator.comparingInt(GpuBinding::rail).thenComparingInt(GpuBinding::gpu));
        for (int k = 0; k < count; k++) {
            List<GpuBinding> mine = new ArrayList<>();
            if (vec != null) {
                for (int r : vec.rails()) {
                    List<GpuBinding> onRail = chosen.stream().filter(b -> b.rail() == r).toList();
                    mine.addAll(onRail.subList(k * vec.count(r), (k + 1) * vec.count(r)));
                }
            } else {
                mine.addAll(chosen.subList(k * g, (k + 1) * g));
            }
            mine.sort(Comparator.comparingInt(GpuBinding::rail).thenComparingInt(GpuBinding::gpu));
            out.add(mine);
        }
        return out;
    }

    /** Notices about the nodes a plan uses, one line per kind naming its nodes. */
    private static List<String> nodeNotices(ClusterSnapshot snapshot, PlannedPod[] pods) {
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
            if (p.gpus().stream().anyMatch(b -> !b.home())) {
                grouped.computeIfAbsent("a GPU uses another HCA than its own pair because its own rail HCA is "
                        + "not on the pod's networks", k -> new ArrayList<>()).add(p.node());
            }
        }
        List<String> out = new ArrayList<>();
        grouped.forEach((what, nodes) -> out.add((nodes.size() == 1 ? "node " : "nodes ")
                + String.join(", ", nodes) + ": " + what));
        return out;
    }

    /** See {@link GangPlanner#ranks}. */
    static int[] ranks(GangRequest gang) {
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

    // ---- unschedulable -----------------------------------------------------------------------------------------

    /** @return the outcome without a plan; its summary is the gang reasons, then the node verdicts' summary */
    static PlanOutcome unschedulable(GangRequest gang, List<Reason> reasons, List<NodeVerdict> verdicts,
                                     PoolVerdict pools, List<String> notices) {
        return unschedulable(gang, reasons, verdicts, verdicts.isEmpty() ? "" : Verdicts.summarize(verdicts), pools,
                notices);
    }

    /**
     * An unschedulable answer without per-node verdicts, its summary naming the nodes in one line of its own.
     *
     * @param nodes what the nodes offer, in words ({@code "50/5000 nodes have 8 free GPUs or more"})
     */
    static PlanOutcome unschedulable(GangRequest gang, List<Reason> reasons, String nodes, PoolVerdict pools,
                                     List<String> notices) {
        return unschedulable(gang, reasons, List.of(), nodes, pools, notices);
    }

    private static PlanOutcome unschedulable(GangRequest gang, List<Reason> reasons, List<NodeVerdict> verdicts,
                                             String nodes, PoolVerdict pools, List<String> notices) {
        String head = String.join("; ", reasons.stream().map(Reason::toString).toList());
        String summary = head.isEmpty() ? nodes : nodes.isEmpty() ? head : head + "; " + nodes;
        return new PlanOutcome(gang.key(), null, reasons, verdicts, summary, pools, notices);
    }

    /** @return the gang-level reason of a refused pool verdict: a pool exhausted, or a network unusable */
    static Reason poolReason(PoolVerdict v) {
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

    /**
     * Filter verdicts of the gang's largest pod shape on every node.
     *
     * @param excluded nodes whose node-slice pool is dry
     */
    static List<NodeVerdict> verdicts(ClusterSnapshot snapshot, List<PodClass> classes, NodeRailView[][] views,
                                      Set<String> excluded) {
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

    /**
     * @return the verdicts with the nodes that pass alone but cannot offer the failure's best rail vector marked
     * {@link ReasonCode#RAIL_SET_UNAVAILABLE}
     */
    static List<NodeVerdict> markRailSetUnavailable(ClusterSnapshot snapshot, List<NodeVerdict> verdicts,
                                                    Failure failure, NodeRailView[][] views) {
        List<NodeVerdict> marked = new ArrayList<>();
        for (NodeVerdict v : verdicts) {
            if (v.feasible() && failure != null && failure.bestVector() != null && views != null) {
                NodeRailView view = views[failure.bestClass()][snapshot.indexOf(v.node())];
                if (view != null && view.capacity(failure.bestVector()) == 0) {
                    marked.add(new NodeVerdict(v.node(), List.of(new Reason(ReasonCode.RAIL_SET_UNAVAILABLE,
                            "rail set " + failure.bestVector() + " unavailable",
                            "qualifying free GPUs per rail " + Arrays.toString(view.eligiblePerRail())))));
                    continue;
                }
            }
            marked.add(v);
        }
        return marked;
    }
}
