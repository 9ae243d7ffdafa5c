package dev.railyard.scheduler.cli;

import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.scheduler.explain.VolcanoJobTemplate;
import dev.railyard.topology.InputException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code railyard demo}: places the demo jobs on the built-in cluster (real machine dumps, the seed's networks and
 * pools, a rail-optimised fabric; see {@code demo/cluster.yaml}), one after the other, and prints a summary row per
 * job with the terms explained; {@code --verbose} adds each job's policy, pods, refused nodes and hints. Writes an
 * SVG picture of the fabric with the placements and a legend for rails, HCAs and pools. No cluster needed. Exit
 * code 0; 2 for bad options.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Place the demo jobs on a built-in cluster made from real machine dumps (no cluster needed).")
final class DemoCommand implements Runnable {
    /** Default SVG path, in the working directory. */
    static final String DEFAULT_SVG = "railyard-demo.svg";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--svg", paramLabel = "FILE",
            description = "Where to write the SVG picture; its directory must exist (default: ${DEFAULT-VALUE}).")
    Path svg = Path.of(DEFAULT_SVG);

    @Option(names = {"-v", "--verbose"},
            description = "Also print each job's policy, pods, notes, refused nodes and hints.")
    boolean verbose;

    @Option(names = "--export-snapshot", paramLabel = "DIR",
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
        if (Files.isDirectory(svg)) {
            throw new InputException("--svg " + svg + ": is a directory; give a file name such as " + svg.resolve(DEFAULT_SVG));
        }
        List<VolcanoJobTemplate.Job> jobs = VolcanoJobTemplate.read(DemoCluster.resource("jobs.yaml"),
                DemoCluster.BASE + "jobs.yaml");
        ClusterSnapshot[] after = new ClusterSnapshot[1];
        List<DemoRun.Placed> runs = DemoRun.run(cluster, jobs, new PlacementEngine(), after);

        DemoReport report = new DemoReport(out, cluster);
        report.header();
        report.text().println("");
        report.summary(runs);
        report.terms();
        if (verbose) {
            DemoDetails details = new DemoDetails(report.text(), cluster);
            details.machines();
            for (int i = 0; i < runs.size(); i++) {
                details.job(i + 1, runs.get(i));
            }
        }
        report.pools();
        writeSvg(cluster, runs, report.legend());
        report.text().println("");
        if (!verbose) {
            report.text().println("each job's policy, pods, refused nodes and hints: railyard demo --verbose");
        }
        report.text().println("fabric picture with the placements: " + svg);
        out.flush();
    }

    private void writeSvg(DemoCluster.Loaded cluster, List<DemoRun.Placed> runs, List<String> legend) {
        List<FabricSvg.Job> drawn = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        for (DemoRun.Placed r : runs) {
            if (!r.outcome().schedulable()) {
                notes.add(r.gang().key() + " unschedulable: " + r.outcome().reasons().get(0).summary());
                continue;
            }
            Map<String, List<Integer>> gpus = new LinkedHashMap<>();
            Map<String, List<Integer>> rails = new LinkedHashMap<>();
            r.outcome().plan().pods().forEach(p -> {
                gpus.computeIfAbsent(p.node(), k -> new ArrayList<>()).addAll(p.gpuIndices());
                rails.computeIfAbsent(p.node(), k -> new ArrayList<>()).addAll(p.rails().rails());
            });
            drawn.add(new FabricSvg.Job(r.gang().key() + " on " + String.join(", ", r.outcome().plan().nodes()),
                    gpus, rails));
        }
        ClusterSnapshot initial = cluster.snapshot();
        String picture = FabricSvg.render(initial, cluster.machineOf(), drawn,
                "railyard demo: " + initial.nodes().size() + " nodes, " + drawn.size() + " jobs placed", legend,
                notes);
        try {
            Files.writeString(svg, picture, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new InputException("--svg " + svg + ": cannot write the SVG picture: " + InputException.reason(e), e);
        }
    }
}
