package dev.railyard.scheduler.cli;

import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.NodeState;
import dev.railyard.scheduler.simulate.GeneratedCluster;
import dev.railyard.scheduler.simulate.Simulator;
import dev.railyard.scheduler.simulate.StrategyResult;
import dev.railyard.scheduler.simulate.Trace;
import dev.railyard.scheduler.simulate.TraceJob;
import dev.railyard.topology.InputException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code railyard simulate}: replays a job trace on a cluster against Railyard and the baselines and prints a table
 * (see {@link Simulator}). The cluster is a cluster file ({@code --cluster}, the demo's {@code cluster.yaml} format
 * with its fabric file) or generated ({@code --nodes}, {@code --tiers}, {@code --machines}); the trace is a file
 * ({@code --jobs}) or generated ({@code --jobs-mix}, {@code --job-count}, {@code --load}).
 */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = "Replay a job trace against Railyard and baselines; print GPU–HCA distances, cross-leaf and "
                + "cross-rail pairs, fragmentation, unschedulable jobs and plan time.")
final class SimulateCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--cluster", paramLabel = "FILE", description = "Cluster file (machines, nodes, fabric), as "
            + "demo/cluster.yaml in the jar. Default: a generated cluster.")
    Path clusterFile;

    @Option(names = "--jobs", paramLabel = "FILE", description = "Trace file (YAML: jobs with pods, gpus, duration, "
            + "optional arrival and railAlignment). Default: a generated trace.")
    Path jobsFile;

    /** Largest generated cluster: 4× the 4,096 nodes the plan-time goal is stated for. */
    static final int MAX_NODES = 16_384;

    @Option(names = "--nodes", description = "Generated cluster: nodes, 1..16384 (default ${DEFAULT-VALUE}).")
    int nodes = 1024;

    @Option(names = "--tiers", description = "Generated cluster: switch tiers 1-4 (default ${DEFAULT-VALUE}).")
    int tiers = 3;

    @Option(names = "--machines", description = "Generated cluster: machine mix per scalable unit, dgx:N,hgx4:N "
            + "(default ${DEFAULT-VALUE}).")
    String machines = "dgx:3,hgx4:1";

    @Option(names = "--jobs-mix", description = "Generated trace: PODSxGPUS:WEIGHT,... (default ${DEFAULT-VALUE}).")
    String mix = "1x8:20,2x8:15,4x8:10,8x8:5,2x4:15,4x2:15,8x1:10,4x1:10";

    @Option(names = "--job-count", description = "Generated trace: jobs (default ${DEFAULT-VALUE}).")
    int jobCount = 1000;

    @Option(names = "--load", description = "Generated trace: target busy share of GPUs (default ${DEFAULT-VALUE}).")
    double load = 0.75;

    @Option(names = "--seed", description = "Random seed (default ${DEFAULT-VALUE}).")
    long seed = 1;

    @Override
    public void run() {
        if (!(load > 0 && load <= 1)) {
            throw new InputException("--load must be a share of GPUs in (0, 1], got " + load);
        }
        if (nodes < 1 || nodes > MAX_NODES) {
            throw new InputException("--nodes must be 1.." + MAX_NODES + ", got " + nodes);
        }
        PrintWriter out = spec.commandLine().getOut();
        ClusterSnapshot cluster;
        String what;
        try {
            if (clusterFile != null) {
                cluster = DemoCluster.load(clusterFile).snapshot();
                what = "cluster " + clusterFile;
            } else {
                cluster = GeneratedCluster.build(nodes, tiers, machines);
                what = "generated cluster: " + nodes + " nodes, " + tiers + " tiers, machines " + machines;
            }
            long gpus = 0;
            for (NodeState n : cluster.nodes()) {
                gpus += n.topology() == null ? 0 : n.topology().gpus().size();
            }
            List<TraceJob> trace;
            String traceWhat;
            if (jobsFile != null) {
                trace = Trace.read(jobsFile);
                traceWhat = "trace " + jobsFile;
            } else {
                trace = Trace.generate(mix, jobCount, gpus, load, seed);
                traceWhat = "generated trace: " + jobCount + " jobs, mix " + mix + ", load " + load + ", seed " + seed;
            }
            out.println(what + " (" + gpus + " GPUs); " + traceWhat);
            List<StrategyResult> results = Simulator.run(cluster, trace, seed);
            out.print(Simulator.table(results));
            out.flush();
        } catch (IllegalArgumentException e) {
            throw new InputException(e.getMessage(), e);
        }
    }
}
