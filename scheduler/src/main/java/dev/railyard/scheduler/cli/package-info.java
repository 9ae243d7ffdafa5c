/**
 * The {@code railyard} command line (picocli): {@link dev.railyard.scheduler.cli.RailyardCommand} and one command
 * class per subcommand ({@code demo}, {@code topology pair|collect}, {@code serve}, {@code agent}, {@code env},
 * {@code explain}, {@code pools}, {@code simulate}), plus the demo cluster and its SVG picture and the reader of
 * Volcano Job files. Commands only wire inputs to the engine, the ledger and the service; bad input ends in one line
 * on stderr and exit code 2 ({@link dev.railyard.scheduler.cli.CliErrors}).
 */
package dev.railyard.scheduler.cli;
