package dev.railyard.scheduler.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AgentCommandTest {
    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cli = RailyardCommand.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    @Test
    void durationsAreGoStyleOrIso() {
        AgentCommand.DurationConverter c = new AgentCommand.DurationConverter();
        assertThat(c.convert("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.convert("1m30s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(c.convert("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(c.convert("2h")).isEqualTo(Duration.ofHours(2));
        assertThat(c.convert("PT5M")).isEqualTo(Duration.ofMinutes(5));
        assertThatThrownBy(() -> c.convert("30")).isInstanceOf(CommandLine.TypeConversionException.class);
        assertThatThrownBy(() -> c.convert("5m junk")).isInstanceOf(CommandLine.TypeConversionException.class);
    }

    @Test
    void nodeNameIsRequired() {
        // NODE_NAME is not set in the test environment; --node-name given empty stands for it either way.
        assertThat(run("agent", "--node-name", "", "--dry-run")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("railyard: --node-name is required (or set NODE_NAME)\n");
    }

    @Test
    void badDurationIsAUsageError() {
        assertThat(run("agent", "--node-name", "n", "--refresh", "0s", "--dry-run")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("railyard: refresh period must be positive, got PT0S\n");
    }

    @Test
    void invalidRdmaSharedConfigIsOneLineNamingTheFile() throws Exception {
        Path config = dir.resolve("config.json");
        Files.writeString(config, "{\"configList\":[{\"resourceName\":\"mlx5-0\",\"rdmaHcaMax\":1,\"selectors\":{}}]}");
        assertThat(run("agent", "--node-name", "n", "--dry-run", "--rdma-shared-config", config.toString()))
                .isEqualTo(2);
        assertThat(err.toString()).isEqualTo("railyard: " + config
                + ": configList[0]: resourceName 'mlx5-0' must match ^[a-zA-Z0-9_]+$\n");
    }

    @Test
    void dryRunWithoutSysfsOrKubeletPrintsAStaleObjectAndExitsOne() {
        Path missing = dir.resolve("no-sys");
        int code = run("agent", "--node-name", "gpu-node-07", "--dry-run", "--sys-root", missing.toString(),
                "--nvidia-smi", "none", "--pod-resources-socket", dir.resolve("kubelet.sock").toString());
        assertThat(code).isEqualTo(1);
        assertThat(out.toString())
                .startsWith("{\"apiVersion\":\"railyard.dev/v1alpha1\",\"kind\":\"NodeTopology\",\"metadata\":")
                .contains("\"name\":\"gpu-node-07\"")
                .doesNotContain("\"spec\"")
                .contains("\"health\":\"UNKNOWN\"")
                .contains("\"reason\":\"SysfsUnreadable\",\"status\":\"True\",\"type\":\"Stale\"");
    }
}
