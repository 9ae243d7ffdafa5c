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
        if (ex instanceof InputException || ex instanceof IOException || ex instanceof UncheckedIOException
                || ex instanceof IllegalArgumentException) {
            // IllegalArgumentException: the records' own validation of values read from input (a negative GPU
            // request, an unknown enum value); their messages name the object
            cmd.getErr().println("railyard: " + oneLine(ex.getMessage() == null ? ex.toString() : ex.getMessage()));
            return BAD_INPUT;
        }
        cmd.getErr().println("railyard: internal error: " + oneLine(ex.toString()));
        return 1;
    }

    /** Longest message printed, in characters: a parser that quotes its whole input must not flood the terminal. */
    static final int MAX_MESSAGE = 400;

    /** @return the first line of {@code message}, at most {@link #MAX_MESSAGE} characters */
    static String oneLine(String message) {
        String first = message.strip().lines().findFirst().orElse("");
        return first.length() <= MAX_MESSAGE ? first : first.substring(0, MAX_MESSAGE) + "…";
    }

    @Override
    public int handleParseException(CommandLine.ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        // picocli's own near-miss suggestions for a mistyped subcommand or option ("topolgy" -> "topology")
        java.util.List<String> near = ex instanceof CommandLine.UnmatchedArgumentException u ? u.getSuggestions()
                : java.util.List.of();
        String hint = near.isEmpty() ? "" : "; did you mean " + String.join(" or ", near.subList(0, Math.min(3, near.size()))) + "?";
        cmd.getErr().println("railyard: " + oneLine(ex.getMessage()) + hint + " (try '"
                + cmd.getCommandSpec().qualifiedName() + " --help')");
        return BAD_INPUT;
    }
}
