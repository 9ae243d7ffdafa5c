package dev.railyard.scheduler.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of {@code railyard.jar}: one picocli command with a subcommand per job.
 *
 * <p>Exit codes: 0 success, 1 the command ran but found a problem it reports (for example an unschedulable
 * job), 2 bad input or usage (a one-line error on stderr, never a stack trace).
 */
@Command(name = "railyard",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Topology-aware RDMA placement for GPU clusters on Kubernetes.",
        subcommands = {
                TopologyCommand.class,
                DemoCommand.class,
                SimulateCommand.class,
                ServeCommand.class,
                ExplainCommand.class,
                PoolsCommand.class,
                EnvCommand.class,
                AgentCommand.class,
                CommandLine.HelpCommand.class
        })
public final class RailyardCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** Builds the command line with Railyard's error handling: bad input prints one line and exits 2. */
    public static CommandLine commandLine() {
        return new CommandLine(new RailyardCommand())
                .setExecutionExceptionHandler(new CliErrors())
                .setParameterExceptionHandler(new CliErrors());
    }

    public static void main(String[] args) {
        System.exit(execute(commandLine(), args));
    }

    /**
     * Runs {@code cmd}; the JVM errors picocli does not handle (out of memory on an input far larger than expected,
     * a stack overflow) become one line on stderr and exit code 1 instead of a stack trace.
     *
     * @return the exit code
     */
    static int execute(CommandLine cmd, String... args) {
        try {
            return cmd.execute(args);
        } catch (OutOfMemoryError | StackOverflowError e) {
            if (System.getenv("RAILYARD_DEBUG") != null) {
                e.printStackTrace(cmd.getErr());
            }
            cmd.getErr().println("railyard: internal error: " + (e instanceof OutOfMemoryError
                    ? "out of memory (an input far larger than expected? raise -Xmx through RAILYARD_JAVA_OPTS)"
                    : "stack overflow (an input nested far deeper than expected?)"));
            cmd.getErr().flush();
            return 1;
        }
    }
}
