package dev.railyard.scheduler.cli;

import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.NodeState;
import dev.railyard.scheduler.simulate.GeneratedCluster;
import dev.railyard.scheduler.simulate.ReportChart;
import dev.railyard.scheduler.simulate.ReportTable;
import dev.railyard.scheduler.simulate.Simulator;
import dev.railyard.scheduler.simulate.StepTimeModel;
import dev.railyard.scheduler.simulate.StrategyResult;
import dev.railyard.scheduler.simulate.Trace;
import dev.railyard.scheduler.simulate.TraceJob;
import dev.railyard.scheduler.simulate.Workloads;
import dev.railyard.topology.InputException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * {@code railyard simulate}: a discrete-event simulation of a job trace on a cluster, Railyard against the
 * baselines, with a modelled step time per placement (docs/simulation.md). The cluster is a cluster file
 * ({@code --cluster}) or generated ({@code --nodes}, {@code --tiers}, {@code --machines}); the trace is a file
 * ({@code --jobs}) or generated ({@code --workload}, {@code --jobs-mix}, {@code --job-count}, {@code --load}).
 * Prints a table; writes an SVG report.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = "Simulate jobs arriving, queueing, running and leaving on a cluster under Railyard and the "
                + "baselines; print queue wait, modelled job-completion time and slowdown, utilisation, cross-rail "
                + "and cross-leaf flows and GPU–HCA distances; write an SVG report.")
final class SimulateCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--cluster", paramLabel = "FILE", description = "Cluster file (machines, nodes, fabric), as "
            + "demo/cluster.yaml in the jar. Default: a generated cluster.")
    Path clusterFile;

    @Option(names = "--jobs", paramLabel = "FILE", description = "Trace file (YAML: jobs with pods, gpus, duration "
            + "in seconds, optional arrival, railAlignment, commShare, collective, messageMiB). Default: generated.")
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

    @Option(names = "--workload", description = "Generated trace: generator, philly, pai or helios "
            + "(default ${DEFAULT-VALUE}; sources in docs/simulation.md).")
    String workload = "generator";

    @Option(names = "--jobs-mix", description = "Generated trace: PODSxGPUS:WEIGHT,... replacing the workload's mix.")
    String mix;

    @Option(names = "--job-count", description = "Generated trace: jobs (default ${DEFAULT-VALUE}).")
    int jobCount = 1500;

    @Option(names = "--load", description = "Generated trace: offered load, share of GPUs, in (0, 1] "
            + "(default ${DEFAULT-VALUE}).")
    double load = 0.85;

    @Option(names = "--comm-share", description = "Generated trace: communication share of a step, [0, 1] "
            + "(default ${DEFAULT-VALUE}).")
    double commShare = TraceJob.DEFAULT_COMM_SHARE;

    @Option(names = "--a2a-share", description = "Generated trace: share of multi-pod jobs doing all-to-all "
            + "instead of ring all-reduce, [0, 1] (default ${DEFAULT-VALUE}).")
    double a2aShare = 0.2;

    @Option(names = "--seed", description = "Random seed (default ${DEFAULT-VALUE}).")
    long seed = 1;

    @Option(names = "--model", paramLabel = "FILE", description = "Step-time model (YAML, every key of the "
            + "default one). Default: simulate/step-time-model.yaml in the jar.")
    Path modelFile;

    @Option(names = "--relax-affinity-after", paramLabel = "SECONDS", description = "Add a Railyard column that "
            + "plans a job with gpu-hca-affinity preferred once it has waited this long (0 = always; "
            + "default ${DEFAULT-VALUE}; 'never' for no such column).")
    String relaxAfter = "600";

    @Option(names = "--report", paramLabel = "FILE", description = "SVG report (default ${DEFAULT-VALUE}; "
            + "'none' for no report).")
    Path report = Path.of("railyard-simulate.svg");

    @Option(names = "--threads", description = "Strategies simulated at once (default: the machine's processors).")
    int threads = Runtime.getRuntime().availableProcessors();

    @Override
    public void run() {
        if (nodes < 1 || nodes > MAX_NODES) {
            throw new InputException("--nodes must be 1.." + MAX_NODES + ", got " + nodes);
        }
        if (threads < 1) {
            throw new InputException("--threads must be ≥ 1, got " + threads);
        }
        if (!(load > 0 && load <= 1)) {
            throw new InputException("--load must be a share of GPUs in (0, 1], got " + load);
        }
        if (!(commShare >= 0 && commShare <= 1) || !(a2aShare >= 0 && a2aShare <= 1)) {
            throw new InputException("--comm-share and --a2a-share must be in [0, 1], got " + commShare + " and "
                    + a2aShare);
        }
        if (jobCount < 1) {
            throw new InputException("--job-count must be ≥ 1, got " + jobCount);
        }
        double relax = relaxSeconds();
        boolean writeReport = !report.toString().equals("none");
        Path parent = report.toAbsolutePath().getParent();
        if (writeReport && parent != null && !Files.isDirectory(parent)) {
            throw new InputException("--report " + report + ": directory " + parent + " does not exist");
        }
        if (writeReport && Files.isDirectory(report)) {
            // found before the simulation runs, not after it (the run can take minutes at 4,096 nodes)
            throw new InputException("--report " + report + ": is a directory; give a file name such as "
                    + report.resolve("railyard-simulate.svg"));
        }
        PrintWriter out = spec.commandLine().getOut();
        try {
            StepTimeModel model = modelFile == null ? StepTimeModel.defaults() : StepTimeModel.read(modelFile);
            ClusterSnapshot cluster;
            String what;
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
                traceWhat = "trace " + jobsFile + " (" + trace.size() + " jobs)";
            } else {
                Workloads.Preset preset = Workloads.preset(workload);
                trace = Workloads.generate(preset, mix, new Workloads.Params(jobCount, load, commShare, a2aShare,
                        seed), gpus);
                traceWhat = String.format(Locale.ROOT, "workload %s (%s)%s: %d jobs, Poisson arrivals at offered "
                                + "load %.2f, comm share %.2f, all-to-all share %.2f, seed %d", preset.name(),
                        preset.source(), mix == null ? "" : ", mix " + mix, jobCount, load, commShare, a2aShare,
                        seed);
            }
            out.println(what + " (" + gpus + " GPUs)");
            out.println(traceWhat);
            out.println("step-time model " + (modelFile == null ? "simulate/step-time-model.yaml (built in)"
                    : modelFile.toString()) + "; queue FIFO with greedy backfill");
            out.flush();
            List<StrategyResult> results = Simulator.run(cluster, trace, seed, model, relax, threads);
            out.print(ReportTable.table(results));
            if (writeReport) {
                writeReport(what + "; " + (jobsFile != null ? "trace " + jobsFile : "workload " + workload
                        + ", load " + load), results);
                out.println("report: " + report);
            }
            out.flush();
        } catch (IllegalArgumentException e) {
            throw new InputException(e.getMessage(), e);
        }
    }

    private double relaxSeconds() {
        if (relaxAfter.equalsIgnoreCase("never")) {
            return Double.POSITIVE_INFINITY;
        }
        try {
            double v = Double.parseDouble(relaxAfter);
            if (v >= 0 && !Double.isInfinite(v)) {
                return v;
            }
        } catch (NumberFormatException e) {
            // fall through to the one-line reason
        }
        throw new InputException("--relax-affinity-after must be seconds ≥ 0 or 'never', got '" + relaxAfter + "'");
    }

    private void writeReport(String title, List<StrategyResult> results) {
        try {
            ReportChart.write(report, title, results);
        } catch (IOException e) {
            throw new InputException("--report " + report + ": cannot write (" + e.getMessage() + ")", e);
        }
    }
}
