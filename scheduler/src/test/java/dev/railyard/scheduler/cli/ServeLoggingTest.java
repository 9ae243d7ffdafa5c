package dev.railyard.scheduler.cli;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code serve --log-level} takes effect: slf4j-simple fixes its settings when the first logger is created, so a
 * logger created while picocli parses the flags (a static field of a class a default value comes from) silently
 * kept the default level and format. Run in a child JVM, since this test JVM has created loggers long before.
 */
class ServeLoggingTest {
    @Test
    void theLevelAndFormatGivenOnTheCommandLineApplyFromTheFirstLine() throws Exception {
        List<String> lines = serveUntilNoClusterWarning("warn");
        String warn = lines.get(lines.size() - 1);
        assertThat(warn).contains("--no-cluster");
        // ServeLogging's format: ISO date-time, level, short logger name, no thread name
        assertThat(warn).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d) WARN ServeCommand - .*");
        assertThat(lines).noneMatch(l -> l.contains(" INFO "));
    }

    @Test
    void theServingLineNamesThePortAsBound() throws Exception {
        // --port 0 lets the OS pick: the line says the port it picked, not 0
        List<String> lines = serveUntilNoClusterWarning("info");
        assertThat(lines).anySatisfy(l -> assertThat(l).matches(".* INFO ServeCommand - serving Volcano verbs /volcano/, "
                + "kube-scheduler verbs /kube/ on 127\\.0\\.0\\.1:[1-9][0-9]* \\(loopback: no authentication\\)"));
    }

    private static List<String> serveUntilNoClusterWarning(String level) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(List.of(java, "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), RailyardCommand.class.getName(), "serve", "--no-cluster",
                "--port", "0", "--log-level=" + level)).redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            // --no-cluster logs one WARN once it serves (ServeCommand); every INFO before it must be filtered out
            while ((line = out.readLine()) != null) {
                lines.add(line);
                if (line.contains("--no-cluster: no Kubernetes API server")) {
                    break;
                }
            }
        } finally {
            child.destroy();
            child.waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(lines).as("serve's output").isNotEmpty();
        return lines;
    }
}
