package dev.railyard.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One control-plane process (etcd, kube-apiserver, a scheduler, …) started from a binary, with its stdout and
 * stderr in {@code <logDir>/<name>.log} and its PID in {@code <logDir>/<name>.pid}.
 *
 * <p>{@link #close()} stops it by that PID only: SIGTERM, then SIGKILL when it has not exited after the grace
 * period. Nothing is ever stopped by name.
 */
public final class ComponentProcess implements AutoCloseable {

    private final String name;
    private final Process process;
    private final Path log;
    private final Duration grace;
    private final List<String> command;
    private final Map<String, String> env;

    private ComponentProcess(String name, Process process, Path log, Duration grace, List<String> command,
                             Map<String, String> env) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.grace = grace;
        this.command = List.copyOf(command);
        this.env = Map.copyOf(env);
    }

    /** The command line it was started with (to start it again). */
    public List<String> command() {
        return command;
    }

    /** The extra environment it was started with. */
    public Map<String, String> env() {
        return env;
    }

    /**
     * Starts {@code command} with extra environment {@code env}, appending output to the log.
     *
     * @param grace how long SIGTERM is given before SIGKILL
     * @throws IOException if the binary cannot be started or the log/PID file cannot be written
     */
    public static ComponentProcess start(String name, List<String> command, Map<String, String> env, Path logDir,
                                         Duration grace) throws IOException {
        Files.createDirectories(logDir);
        Path log = logDir.resolve(name + ".log");
        Files.writeString(log, "# " + String.join(" ", command) + System.lineSeparator(), StandardCharsets.UTF_8);
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().putAll(env);
        Process p = pb.start();
        Files.writeString(logDir.resolve(name + ".pid"), Long.toString(p.pid()), StandardCharsets.UTF_8);
        return new ComponentProcess(name, p, log, grace, command, env);
    }

    /** Component name, also the log file's base name. */
    public String name() {
        return name;
    }

    /** The recorded PID. */
    public long pid() {
        return process.pid();
    }

    /** Log file of stdout and stderr. */
    public Path log() {
        return log;
    }

    /** Whether the process is still running. */
    public boolean alive() {
        return process.isAlive();
    }

    /**
     * Throws if the process has exited, quoting the end of its log; used while waiting for readiness so a crash
     * fails fast instead of timing out.
     *
     * @throws IllegalStateException if the process is no longer running
     */
    public void assertAlive() {
        if (!process.isAlive()) {
            throw new IllegalStateException(name + " (pid " + pid() + ") exited with code " + process.exitValue()
                    + "; last log lines of " + log + ":\n" + tail(25));
        }
    }

    /** The last {@code lines} lines of the log (empty if unreadable). */
    public String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * SIGTERM to the recorded PID, SIGKILL after the grace period. Returns the exit code, or empty if it could not
     * be observed.
     */
    public Optional<Integer> stop() {
        if (!process.isAlive()) {
            return Optional.of(process.exitValue());
        }
        ProcessHandle handle = process.toHandle();
        handle.destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                handle.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            handle.destroyForcibly();
        }
        return process.isAlive() ? Optional.empty() : Optional.of(process.exitValue());
    }

    /**
     * SIGKILL to the recorded PID, no grace period (a crash: no shutdown hooks run). Returns the exit code, or empty
     * if it could not be observed.
     */
    public Optional<Integer> kill() {
        if (process.isAlive()) {
            process.toHandle().destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return process.isAlive() ? Optional.empty() : Optional.of(process.exitValue());
    }

    /** The exit code once the process has exited on its own (or was stopped), else empty. */
    public Optional<Integer> exitCode() {
        return process.isAlive() ? Optional.empty() : Optional.of(process.exitValue());
    }

    @Override
    public void close() {
        stop();
    }

    @Override
    public String toString() {
        return name + "(pid " + pid() + ")";
    }
}
