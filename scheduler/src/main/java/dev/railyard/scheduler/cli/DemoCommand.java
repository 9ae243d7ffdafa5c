package dev.railyard.scheduler.cli;

import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.api.hints.PlacementHint;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.GangPlan;
import dev.railyard.scheduler.engine.GangRequest;
import dev.railyard.scheduler.engine.GpuBinding;
import dev.railyard.scheduler.engine.NodeState;
import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.scheduler.engine.PlanOutcome;
import dev.railyard.scheduler.engine.PlannedPod;
import dev.railyard.scheduler.engine.PodRequest;
import dev.railyard.scheduler.engine.Reason;
import dev.railyard.scheduler.engine.Verdicts;
import dev.railyard.scheduler.hints.PlacementHints;
import dev.railyard.scheduler.ipam.PodPlacement;
import dev.railyard.scheduler.ipam.PoolStatus;
import dev.railyard.scheduler.ipam.PoolVerdict;
import dev.railyard.topology.InputException;
import dev.railyard.topology.fabric.FabricModel;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@code railyard demo}: places the demo jobs on the built-in cluster (real machine dumps, the seed's networks and
 * pools, a rail-optimised fabric; see {@code demo/cluster.yaml}), one after the other, printing each placement, the
 * reasons for rejected nodes and the hints each pod would get, and writes an SVG picture of the fabric with the
 * placements. No cluster needed. Exit code 0.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Place the demo jobs on a built-in cluster made from real machine dumps (no cluster needed).")
final class DemoCommand implements Runnable {
    /** Default SVG path, in the working directory. */
    static final String DEFAULT_SVG = "railyard-demo.svg";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--svg", paramLabel = "FILE",
            description = "Where to write the SVG picture; its directory must exist (default: ${DEFAULT-VALUE}).")
    Path svg = Path.of(DEFAULT_SVG);

    @Option(names = "--export-snapshot", paramLabel = "DIR", hidden = true,
            description = "Write the demo cluster as a snapshot directory for 'railyard explain' and stop.")
    Path exportSnapshot;

    @Override
    public void run() {
        PrintWriter out = spec.commandLine().getOut();
        DemoCluster.Loaded cluster = DemoCluster.load();
        if (exportSnapshot != null) {
            out.println("wrote " + String.join(", ", DemoSnapshotExport.write(cluster, exportSnapshot)) + " to "
                    + exportSnapshot);
            out.flush();
            return;
        }
        // checked before any output: missing directories are not created (a typo such as /nonexistent/x.svg must not
        // leave new directories behind)
        Path parent = svg.toAbsolutePath().getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            throw new InputException("--svg " + svg + ": directory " + parent + " does not exist");
        }
        ClusterSnapshot snapshot = cluster.snapshot();
        ClusterSnapshot initial = snapshot;
        PlacementEngine engine = new PlacementEngine();
        List<VolcanoJobFile.VolcanoJob> jobs = VolcanoJobFile.read(DemoCluster.resource("jobs.yaml"),
                DemoCluster.BASE + "jobs.yaml");

        header(out, cluster);
        List<FabricSvg.Job> drawn = new ArrayList<>();
        List<String> svgNotes = new ArrayList<>();
        int n = 0;
        for (VolcanoJobFile.VolcanoJob job : jobs) {
            n++;
            GangRequest gang = VolcanoJobFile.gang(job, snapshot);
            PlanOutcome outcome = engine.plan(snapshot, gang);
            out.println();
            out.printf("== %d. Volcano Job %s: %s%n", n, gang.key(), shape(job));
            out.println("policy: " + gang.policy().describe()
                    + (gang.policy().sources().isEmpty() ? "" : " (" + String.join("; ", gang.policy().sources()) + ")"));
            if (outcome.schedulable()) {
                GangPlan plan = outcome.plan();
                out.printf("placed: %s in %s (tier %d, %s); cost: %s between pods, local %d, slack %s%n",
                        plural(plan.nodes().size(), "node"), plan.domain(), plan.tier(),
                        snapshot.fabric().tierName(plan.tier()), plural((int) plan.cost().hops(), "switch hop"),
                        plan.cost().local(), plural((int) plan.cost().slack(), "GPU"));
                for (PlannedPod p : plan.pods()) {
                    out.printf("  rank %-2s %-22s -> %-7s %s%n", p.rank() == null ? "-" : p.rank(), p.pod(), p.node(),
                            describeGpus(p));
                }
                for (String note : plan.notices()) {
                    out.println("  note: " + note);
                }
                contrastWithoutAlignment(out, engine, snapshot, gang, plan);
            } else {
                out.println("unschedulable: " + String.join("; ", outcome.reasons().stream().map(Reason::toString)
                        .toList()));
                svgNotes.add(gang.key() + " unschedulable: " + outcome.reasons().get(0).summary());
            }
            rejected(out, outcome);
            if (!outcome.schedulable()) {
                continue;
            }
            GangPlan plan = outcome.plan();
            hints(out, snapshot, gang, plan);
            // take the GPUs, RDMA slots and addresses for the next jobs
            List<PodPlacement> placements = new ArrayList<>();
            Map<String, Set<Integer>> gpus = new TreeMap<>();
            Map<String, Map<String, Long>> slots = new TreeMap<>();
            Map<String, List<Integer>> jobGpus = new LinkedHashMap<>();
            Map<String, List<Integer>> jobRails = new LinkedHashMap<>();
            for (PlannedPod p : plan.pods()) {
                PodRequest req = gang.pods().get(p.index());
                placements.add(new PodPlacement(p.pod(), req.networks(), p.node()));
                gpus.computeIfAbsent(p.node(), k -> new TreeSet<>()).addAll(p.gpuIndices());
                req.rdmaResources().forEach((r, v) -> slots.computeIfAbsent(p.node(), k -> new TreeMap<>())
                        .merge(r, v, Long::sum));
                jobGpus.computeIfAbsent(p.node(), k -> new ArrayList<>()).addAll(p.gpuIndices());
                jobRails.computeIfAbsent(p.node(), k -> new ArrayList<>()).addAll(p.rails().rails());
            }
            PoolVerdict held = cluster.ledger().reserve(placements);
            if (!held.admitted()) {
                out.println("  addresses could not be held: " + held.message());
            }
            List<NodeState> changed = new ArrayList<>();
            for (var e : gpus.entrySet()) {
                changed.add(snapshot.node(e.getKey()).withAllocated(e.getValue(),
                        slots.getOrDefault(e.getKey(), Map.of())));
            }
            snapshot = snapshot.withNodes(changed);
            drawn.add(new FabricSvg.Job(gang.key() + " on " + String.join(", ", plan.nodes()), jobGpus, jobRails));
        }
        out.println();
        poolSummary(out, cluster, snapshot);
        String picture = FabricSvg.render(initial, cluster.machineOf(), drawn,
                "railyard demo: " + initial.nodes().size() + " nodes, " + drawn.size() + " jobs placed", svgNotes);
        try {
            Files.writeString(svg, picture, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new InputException("--svg " + svg + ": cannot write the SVG picture: " + InputException.reason(e), e);
        }
        out.println("fabric picture with the placements: " + svg);
        out.flush();
    }

    private static void header(PrintWriter out, DemoCluster.Loaded c) {
        ClusterSnapshot s = c.snapshot();
        FabricModel f = s.fabric();
        out.printf("Railyard demo: %d nodes built from real nvidia-smi topology dumps, the seed's %d rail networks "
                + "with whereabouts pools, a rail-optimised fabric (%s).%n", s.nodes().size(), c.networks().size(),
                String.join(" / ", f.tierNames()));
        Map<String, List<String>> byMachine = new LinkedHashMap<>();
        c.machineOf().forEach((node, m) -> byMachine.computeIfAbsent(m, k -> new ArrayList<>()).add(node));
        for (var e : byMachine.entrySet()) {
            DemoCluster.MachineDoc m = c.machines().get(e.getKey());
            NodeState any = s.node(e.getValue().get(0));
            Map<String, List<Integer>> railGpus = new TreeMap<>();
            any.topology().pairs().forEach(p -> railGpus.computeIfAbsent("rail " + p.rail() + " " + p.hca()
                    + " (" + p.distance() + ")", k -> new ArrayList<>()).add(p.gpu()));
            out.printf("  %-9s %-15s %s%n", e.getKey(), e.getValue().get(0) + ".." + e.getValue()
                    .get(e.getValue().size() - 1), m.dump());
            List<String> rails = new ArrayList<>();
            railGpus.forEach((k, v) -> rails.add(k.replace(" (", " GPU" + join(v) + " (")));
            out.println("            " + String.join(", ", rails));
        }
        List<String> busy = new ArrayList<>();
        for (NodeState n : s.nodes()) {
            if (!n.allocatedGpus().isEmpty()) {
                busy.add(n.name() + " GPU" + join(new ArrayList<>(n.allocatedGpus())));
            }
        }
        out.println("  busy before the demo: " + String.join(", ", busy));
    }

    private static String shape(VolcanoJobFile.VolcanoJob job) {
        List<String> parts = new ArrayList<>();
        for (VolcanoJobFile.Task t : job.tasks()) {
            String nets = t.annotations().getOrDefault("k8s.v1.cni.cncf.io/networks", "");
            parts.add(t.replicas() + " × " + t.gpus() + " GPUs (task " + t.name() + ")"
                    + (nets.isEmpty() ? "" : ", networks " + nets));
        }
        return String.join("; ", parts);
    }

    private static String plural(int n, String word) {
        return n + " " + word + (n == 1 ? "" : "s");
    }

    static String join(List<Integer> xs) {
        List<String> s = new ArrayList<>();
        for (int x : xs) {
            s.add(Integer.toString(x));
        }
        return String.join(",", s);
    }

    private static String describeGpus(PlannedPod p) {
        Map<String, List<Integer>> byHca = new LinkedHashMap<>();
        Map<String, PcieDistance> dist = new HashMap<>();
        for (GpuBinding b : p.gpus()) {
            byHca.computeIfAbsent(b.hca(), k -> new ArrayList<>()).add(b.gpu());
            dist.merge(b.hca(), b.distance(), (a, c) -> a.compareTo(c) >= 0 ? a : c);
        }
        List<String> parts = new ArrayList<>();
        byHca.forEach((h, g) -> parts.add("GPU" + join(g) + "→" + h + " " + dist.get(h)));
        return "rails " + p.rails() + "  " + String.join("  ", parts);
    }

    private void contrastWithoutAlignment(PrintWriter out, PlacementEngine engine, ClusterSnapshot snapshot,
                                          GangRequest gang, GangPlan plan) {
        if (gang.policy().railAlignment() != AffinityPolicy.REQUIRED || plan.nodes().size() < 2) {
            return;
        }
        GangRequest loose = new GangRequest(gang.namespace(), gang.name(), gang.pods(),
                gang.policy().withRailAlignment(AffinityPolicy.IGNORE));
        PlanOutcome o = engine.plan(snapshot, loose);
        if (!o.schedulable()) {
            return;
        }
        List<String> parts = new ArrayList<>();
        Set<String> vectors = new TreeSet<>();
        for (PlannedPod p : o.plan().pods()) {
            parts.add(p.node() + " " + p.rails());
            vectors.add(p.rails().toString());
        }
        if (vectors.size() > 1) {
            out.println("  without rail alignment the cheapest plan would be " + String.join(" + ", parts)
                    + ": GPUs of equal local rank on different rails");
        }
    }

    private static void rejected(PrintWriter out, PlanOutcome o) {
        out.println("nodes: " + (o.verdicts().isEmpty() ? "not examined (the gang was refused before any node)"
                : Verdicts.summarize(o.verdicts())));
        for (NodeVerdict v : o.verdicts()) {
            if (!v.feasible()) {
                out.printf("  %-7s %s%n", v.node(), v.describe());
            }
        }
    }

    private static void hints(PrintWriter out, ClusterSnapshot snapshot, GangRequest gang, GangPlan plan) {
        out.println("hints (written with the Binding):");
        boolean first = true;
        for (PlannedPod p : plan.pods()) {
            PlacementHint h = PlacementHints.hint(snapshot, plan, p, gang.pods().get(p.index()));
            Map<String, String> a = PlacementHints.annotations(h);
            List<String> flat = new ArrayList<>();
            a.forEach((k, v) -> {
                if (!k.equals(HintAnnotations.PLACEMENT)) {
                    flat.add(k.substring(HintAnnotations.PREFIX.length()) + "=\"" + v + "\"");
                }
            });
            out.printf("  %-22s %s%n", p.pod(), String.join(" ", flat));
            if (first) {
                out.println("    " + HintAnnotations.PLACEMENT + ": " + a.get(HintAnnotations.PLACEMENT));
                first = false;
            }
        }
    }

    private static void poolSummary(PrintWriter out, DemoCluster.Loaded c, ClusterSnapshot s) {
        out.println("address pools after the demo:");
        for (DemoCluster.NetworkDoc n : c.networks()) {
            var req = dev.railyard.scheduler.ipam.PodNetworksRequest.ofAnnotation(c.networkNamespace(), n.name());
            PoolVerdict v = c.ledger().check(req, 0, null);
            for (PoolStatus p : v.pools()) {
                out.printf("  %-20s pool %-15s %4d of %4d free (%d allocated%s, %d held by the demo's pods)%n",
                        n.name(), p.poolName(), p.free(), p.usable(), p.allocated(),
                        p.staleAllocations().isEmpty() ? "" : ", " + p.staleAllocations().size() + " stale",
                        p.inFlight());
            }
        }
    }
}
