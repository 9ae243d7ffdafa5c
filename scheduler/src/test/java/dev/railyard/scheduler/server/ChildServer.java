package dev.railyard.scheduler.server;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A test server in a child JVM (this test JVM's java and class path): its main prints {@code PORT <n>} as its first
 * line and stops when its standard input closes; its standard error goes to {@code log}. For tests that must not
 * share the test JVM's heap, logging settings or crash with the server.
 *
 * @param process the child
 * @param port    the port it listens on (loopback)
 * @param log     its standard error
 */
record ChildServer(Process process, int port, Path log) implements AutoCloseable {
    /**
     * @param logPrefix  prefix of the temporary log file's name
     * @param jvmOptions options before the class path ({@code -Xmx256m}, {@code -D...})
     * @param main       the server's main class
     * @param args       its arguments
     */
    static ChildServer start(String logPrefix, List<String> jvmOptions, Class<?> main, String... args)
            throws Exception {
        Path log = Files.createTempFile(logPrefix, ".log");
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        Process child = new ProcessBuilder(command).redirectError(log.toFile()).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        assertThat(line).as("child server's first line (log: %s)", log).startsWith("PORT ");
        return new ChildServer(child, Integer.parseInt(line.substring(5).trim()), log);
    }

    /** Closes the child's standard input and waits up to 10 s for it to stop, then kills it. */
    @Override
    public void close() throws InterruptedException {
        try {
            process.getOutputStream().close();
        } catch (java.io.IOException e) {
            // already gone
        }
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
