package dev.railyard.scheduler.cli;

import dev.railyard.scheduler.explain.ExplainRequest;
import dev.railyard.scheduler.explain.Explainer;
import dev.railyard.scheduler.explain.Explanation;
import dev.railyard.scheduler.explain.VolcanoJobTemplate;
import dev.railyard.topology.InputException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code railyard explain job NS/NAME | FILE.yaml} and {@code railyard explain pod NS/NAME}: where a gang goes or why
 * it waits, against the cluster of the kubeconfig or a {@code --snapshot} directory (see {@link Explainer} and
 * docs/explain.md). Exit codes: 0 every job or pod placed or would be placed, 1 unschedulable (the explanation is
 * printed), 2 bad input.
 */
@Command(name = "explain", mixinStandardHelpOptions = true,
        description = "Explain where a Volcano Job, PodGroup or pod goes, or why it waits.",
        subcommands = {ExplainCommand.Job.class, ExplainCommand.Pod.class})
final class ExplainCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name what to explain: job or pod");
    }

    /** What {@code explain job} and {@code explain pod} share: the cluster source and {@code --nodes}. */
    abstract static class Subcommand implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Mixin
        ClusterSourceOptions source;

        @Option(names = "--nodes", description = "List every node's reasons, not only the aggregate.")
        boolean nodes;
    }

    /** {@code explain job}. */
    @Command(name = "job", mixinStandardHelpOptions = true,
            description = {"Explain a Volcano Job or PodGroup (NS/NAME), or where the Volcano Jobs of FILE would land "
                    + "(what-if; several jobs are placed one after the other).",
                    "Exit 0: placed or would be placed; 1: unschedulable; 2: bad input."})
    static final class Job extends Subcommand {
        @Parameters(paramLabel = "NS/NAME|FILE", description = "A Volcano Job or PodGroup, or a Volcano Job YAML file.")
        String target;

        @Override
        public Integer call() {
            source.checkOutput();
            List<VolcanoJobTemplate.Job> jobs = null;
            if (!target.matches("[^/.][^/]*(/[^/]+)?") && Files.isDirectory(Path.of(target))) {
                // a path that cannot be NS/NAME and is a directory: "expected NAMESPACE/NAME" would hide that the
                // path exists, and a directory is what --snapshot takes
                throw new InputException(target + ": is a directory; give a Volcano Job YAML file or NS/NAME "
                        + "(a snapshot directory goes to --snapshot)");
            }
            if (looksLikeFile(target)) {
                jobs = VolcanoJobTemplate.read(Path.of(target));
            }
            List<VolcanoJobTemplate.Job> whatIf = jobs;
            return explainAndPrint(spec, source, nodes, s -> {
                if (whatIf != null) {
                    return ExplainRequest.whatIf(whatIf);
                }
                String[] nn = split(target, s.namespace());
                return ExplainRequest.job(nn[0], nn[1]);
            });
        }
    }

    /** {@code explain pod}. */
    @Command(name = "pod", mixinStandardHelpOptions = true,
            description = {"Explain where a pod is, or why it waits and where its gang would go.",
                    "Exit 0: placed or would be placed; 1: unschedulable; 2: bad input."})
    static final class Pod extends Subcommand {
        @Parameters(paramLabel = "NS/NAME", description = "The pod (namespace of the kubeconfig context when omitted).")
        String target;

        @Override
        public Integer call() {
            source.checkOutput();
            return explainAndPrint(spec, source, nodes, s -> {
                String[] nn = split(target, s.namespace());
                return ExplainRequest.pod(nn[0], nn[1]);
            });
        }
    }

    /** Loads the cluster source, explains the request made from it, prints it; exit 0 when all placed, else 1. */
    private static int explainAndPrint(CommandLine.Model.CommandSpec spec, ClusterSourceOptions source, boolean nodes,
                                       java.util.function.Function<ClusterSourceOptions.Source, ExplainRequest> request) {
        try (ClusterSourceOptions.Source s = source.load()) {
            Explanation e = new Explainer().explain(s.objects(), request.apply(s), s.context());
            source.print(spec.commandLine().getOut(), e, nodes);
            return e.allPlaced() ? 0 : 1;
        }
    }

    /** @return true when the argument names a file rather than NS/NAME */
    static boolean looksLikeFile(String target) {
        String t = target.toLowerCase(Locale.ROOT);
        return t.endsWith(".yaml") || t.endsWith(".yml") || t.endsWith(".json") || Files.isRegularFile(Path.of(target));
    }

    /** @return {namespace, name}; a name without namespace gets {@code dflt} */
    static String[] split(String target, String dflt) {
        String[] parts = target.split("/", -1);
        if (parts.length == 1 && !parts[0].isBlank()) {
            return new String[]{dflt, parts[0]};
        }
        if (parts.length == 2 && !parts[0].isBlank() && !parts[1].isBlank()) {
            return parts;
        }
        throw new InputException("'" + target + "': expected NAMESPACE/NAME");
    }
}
