package dev.railyard.scheduler.cli;

import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.api.hints.PlacementHint;
import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.GangPlan;
import dev.railyard.scheduler.engine.GangRequest;
import dev.railyard.scheduler.engine.NodeState;
import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.engine.PlannedPod;
import dev.railyard.scheduler.engine.Reason;
import dev.railyard.scheduler.engine.Verdicts;
import dev.railyard.scheduler.hints.PlacementHints;
import dev.railyard.scheduler.cluster.PodView;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code railyard demo --verbose}: the machines' rail maps, and per job its policy and where each setting came from,
 * every pod's GPUs, the plan's notes (each said once), the refused nodes grouped by reason, and the hints each pod
 * gets, the placement hint in words.
 */
final class DemoDetails {
    private static final Pattern NODE_NOTE = Pattern.compile("(nodes? [^:]+): (.+)");
    private final DemoText out;
    private final DemoCluster.Loaded cluster;
    /** Node notes already printed, by what they say (without the nodes). */
    private final Set<String> said = new HashSet<>();

    DemoDetails(DemoText out, DemoCluster.Loaded cluster) {
        this.out = out;
        this.cluster = cluster;
    }

    void machines() {
        out.println("");
        out.println("machines (rail: HCA, its GPUs and their PCIe distance to it):");
        Map<String, List<String>> byMachine = new LinkedHashMap<>();
        cluster.machineOf().forEach((node, m) -> byMachine.computeIfAbsent(m, k -> new ArrayList<>()).add(node));
        for (var e : byMachine.entrySet()) {
            NodeState any = cluster.snapshot().node(e.getValue().get(0));
            Map<Integer, List<String>> rails = new TreeMap<>();
            any.topology().pairs().forEach(p -> rails.computeIfAbsent(p.rail(), k -> new ArrayList<>())
                    .add("GPU" + p.gpu() + " " + p.distance()));
            List<String> parts = new ArrayList<>();
            rails.forEach((r, gpus) -> parts.add("rail " + r + " " + hca(any, r) + ": " + String.join(", ", gpus)));
            out.wrap("  " + e.getKey() + " (" + DemoText.nodes(e.getValue()) + ", "
                    + cluster.machines().get(e.getKey()).dump() + "): " + String.join("; ", parts), "      ");
        }
    }

    private static String hca(NodeState n, int rail) {
        return n.topology().pairs().stream().filter(p -> p.rail() == rail).map(p -> p.hca()).findFirst().orElse("?");
    }

    void job(int n, DemoRun.Placed r) {
        GangRequest gang = r.gang();
        out.println("");
        out.wrap("== " + n + ". Volcano Job " + gang.key() + ": " + shape(r), "     ");
        out.wrap("policy: " + gang.policy().describe(), "  ");
        if (!gang.policy().sources().isEmpty()) {
            out.wrap("  set by: " + String.join("; ", gang.policy().sources()), "    ");
        }
        if (r.outcome().schedulable()) {
            placed(r);
        } else {
            out.wrap("unschedulable: " + String.join("; ", r.outcome().reasons().stream().map(Reason::toString)
                    .toList()), "  ");
        }
        refused(r);
        if (r.outcome().schedulable()) {
            hints(r.before(), gang, r.outcome().plan());
        }
    }

    private String shape(DemoRun.Placed r) {
        Map<String, Integer> tasks = new LinkedHashMap<>();
        for (var p : r.job().pods()) {
            tasks.merge(PodView.of(p).annotations().getOrDefault(PodView.TASK_SPEC_ANNOTATION, "?"), 1,
                    Integer::sum);
        }
        List<String> parts = new ArrayList<>();
        int i = 0;
        for (var t : tasks.entrySet()) {
            int gpus = r.gang().pods().get(i).gpus();
            parts.add(t.getValue() + (t.getValue() == 1 ? " pod" : " pods") + " × " + gpus + " GPUs (task "
                    + t.getKey() + ")");
            i += t.getValue();
        }
        String nets = String.join(", ", r.gang().pods().get(0).selections().stream().map(s -> s.name()).toList());
        return String.join("; ", parts) + (nets.isEmpty() ? "" : ", networks " + nets);
    }

    private void placed(DemoRun.Placed r) {
        GangPlan plan = r.outcome().plan();
        out.println("pods:");
        for (PlannedPod p : plan.pods()) {
            List<String> gpus = new ArrayList<>();
            Map<String, ?> dist = DemoReport.distanceByHca(p);
            DemoReport.gpusByHca(p).forEach((h, g) -> gpus.add("GPU" + DemoText.join(g) + "→" + h + " "
                    + dist.get(h)));
            out.wrap(String.format("  rank %-2s %-22s -> %-7s rails %s  %s", p.rank() == null ? "-" : p.rank(),
                    p.pod(), p.node(), p.rails(), String.join("  ", gpus)), "          ");
        }
        for (String note : plan.notices()) {
            out.wrap("  note: " + once(note), "        ");
        }
        if (r.unaligned() != null) {
            List<String> parts = new ArrayList<>();
            r.unaligned().pods().forEach(p -> parts.add(p.node() + " " + p.rails()));
            out.wrap("  without rail alignment the cheapest plan would be " + String.join(" + ", parts)
                    + ": GPUs of equal local rank on different rails", "    ");
        }
        if (r.heldError() != null) {
            out.wrap("  addresses could not be held: " + r.heldError(), "    ");
        }
    }

    /** @return the note, or, for a node note said before, its nodes and "as above" */
    private String once(String note) {
        Matcher m = NODE_NOTE.matcher(note);
        if (!m.matches()) {
            return note;
        }
        String what = m.group(2);
        String head = what.contains(" (") ? what.substring(0, what.indexOf(" (")) : what;
        return said.add(what) ? note : m.group(1) + ": " + head + " (as above)";
    }

    private void refused(DemoRun.Placed r) {
        List<NodeVerdict> verdicts = r.outcome().verdicts();
        if (verdicts.isEmpty()) {
            out.println("nodes: not examined (the gang was refused before any node)");
            return;
        }
        out.wrap("nodes: " + Verdicts.summarize(verdicts), "  ");
        Map<String, List<String>> byReason = new LinkedHashMap<>();
        for (NodeVerdict v : verdicts) {
            if (!v.feasible()) {
                byReason.computeIfAbsent(v.describe(), k -> new ArrayList<>()).add(v.node());
            }
        }
        byReason.forEach((why, nodes) -> out.wrap("  " + String.join(", ", nodes) + ": " + why, "      "));
    }

    private void hints(ClusterSnapshot snapshot, GangRequest gang, GangPlan plan) {
        out.println("hints written with the Binding (annotations railyard.dev/...):");
        PlacementHint first = null;
        for (PlannedPod p : plan.pods()) {
            PlacementHint h = PlacementHints.hint(snapshot, plan, p, gang.pods().get(p.index()));
            first = first == null ? h : first;
            List<String> flat = new ArrayList<>();
            PlacementHints.annotations(h).forEach((k, v) -> {
                if (!k.equals(HintAnnotations.PLACEMENT)) {
                    flat.add(k.substring(HintAnnotations.PREFIX.length()) + "=\"" + v + "\"");
                }
            });
            out.wrap(String.format("  %-22s %s", p.pod(), String.join(" ", flat)), "                         ");
        }
        placementInWords(plan.pods().get(0).pod(), first);
    }

    /** The JSON of {@code railyard.dev/placement} said in words; its schema is in docs/hints.md. */
    private void placementInWords(String pod, PlacementHint h) {
        out.println("  " + HintAnnotations.PLACEMENT + " of " + pod + " (JSON, schema in docs/hints.md), in words:");
        List<String> leaves = new ArrayList<>();
        h.fabric().forEach(l -> leaves.add("rail " + l.rail() + " " + l.leaf()));
        out.wrap("    node " + h.node() + ", gang " + h.gang() + " of " + h.gangSize() + (h.rank() == null ? ""
                : ", rank " + h.rank()) + (leaves.isEmpty() ? "" : "; leaves " + String.join(", ", leaves)), "      ");
        for (PlacementHint.GpuHint g : h.gpus()) {
            out.wrap("    GPU" + g.gpu() + " → " + g.hca() + " port " + g.port() + ", " + g.netdev() + ", rail "
                    + g.rail() + ", " + g.distance() + (g.network() == null ? "" : ", network " + g.network()
                    + " as " + g.iface()), "      ");
        }
    }
}
