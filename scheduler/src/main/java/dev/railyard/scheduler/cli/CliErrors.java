package dev.railyard.scheduler.cli;

import dev.railyard.topology.InputException;
import picocli.CommandLine;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Turns failures into one line on stderr and an exit code: 2 for bad input and usage, 1 for anything else.
 * Never prints a stack trace unless {@code RAILYARD_DEBUG} is set.
 */
final class CliErrors implements CommandLine.IExecutionExceptionHandler, CommandLine.IParameterExceptionHandler {
    static final int BAD_INPUT = 2;

    @Override
    public int handleExecutionException(Exception ex, CommandLine cmd, CommandLine.ParseResult parseResult) {
        if (System.getenv("RAILYARD_DEBUG") != null) {
            ex.printStackTrace(cmd.getErr());
        }
        if (ex instanceof InputException || ex instanceof IOException || ex instanceof UncheckedIOException) {
            cmd.getErr().println("railyard: " + ex.getMessage());
            return BAD_INPUT;
        }
        cmd.getErr().println("railyard: internal error: " + ex);
        return 1;
    }

    @Override
    public int handleParseException(CommandLine.ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        cmd.getErr().println("railyard: " + ex.getMessage());
        cmd.getErr().println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help'.");
        return BAD_INPUT;
    }
}
