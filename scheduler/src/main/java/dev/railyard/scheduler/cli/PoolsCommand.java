package dev.railyard.scheduler.cli;

import dev.railyard.scheduler.explain.ExplainRequest;
import dev.railyard.scheduler.explain.Explainer;
import dev.railyard.scheduler.explain.Explanation;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.concurrent.Callable;

/**
 * {@code railyard pools}: one line per network (and per IPPool no network uses) with usable, allocated, reserved by
 * other ranges, in-flight, stale and free addresses, and the stale holders named, against the cluster of the
 * kubeconfig or a {@code --snapshot} directory. Exit codes: 0 listed, 2 bad input.
 */
@Command(name = "pools", mixinStandardHelpOptions = true,
        description = {"List every network's whereabouts pool: usable, allocated, reserved, stale and free addresses.",
                "Exit 0: listed; 2: bad input."})
final class PoolsCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    ClusterSourceOptions source;

    @Override
    public Integer call() {
        source.checkOutput();
        try (ClusterSourceOptions.Source s = source.load()) {
            Explanation e = new Explainer().explain(s.objects(), ExplainRequest.pools(), s.context());
            source.print(spec.commandLine().getOut(), e, false);
            return 0;
        }
    }
}
