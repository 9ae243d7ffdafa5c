package dev.railyard.scheduler.cli;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * One in-process run of the {@code railyard} command line, as a user would type it.
 *
 * @param rc  the exit code
 * @param out what it printed on stdout
 * @param err what it printed on stderr
 */
record CliRun(int rc, String out, String err) {

    /** Runs {@code railyard args...} with stdout and stderr captured. */
    static CliRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = RailyardCommand.commandLine();
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        int rc = cmd.execute(args);
        return new CliRun(rc, out.toString(), err.toString());
    }
}
