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
    void dryRunWithoutSysfsIsOneLineAndExitTwo() {
        // was: exit 1 with a Stale NodeTopology and a WARN log line; a dry run is a person checking the flags
        Path missing = dir.resolve("no-sys");
        int code = run("agent", "--node-name", "gpu-node-07", "--dry-run", "--sys-root", missing.toString(),
                "--nvidia-smi", "none", "--pod-resources-socket", dir.resolve("kubelet.sock").toString());
        assertThat(code).isEqualTo(2);
        assertThat(out.toString()).isEmpty();
        assertThat(err.toString()).isEqualTo("railyard: --sys-root " + missing + ": no such file or directory\n");
    }

    @Test
    void dryRunWithSysfsButNoKubeletPrintsAStaleObjectAndExitsOne() throws Exception {
        Path host = dir.resolve("host");
        TopologyCollectCommandTest.writeHost(host);
        int code = run("agent", "--node-name", "gpu-node-07", "--dry-run", "--sys-root", host.toString(),
                "--nvidia-smi", "none", "--pod-resources-socket", dir.resolve("kubelet.sock").toString());
        assertThat(code).isEqualTo(1);
        assertThat(out.toString())
                .startsWith("{\"apiVersion\":\"railyard.dev/v1alpha1\",\"kind\":\"NodeTopology\",\"metadata\":")
                .contains("\"name\":\"gpu-node-07\"")
                // the host of TopologyCollectCommandTest: one GPU and mlx5_0 under one switch
                .contains("\"mlx5_0\"")
                .contains("\"type\":\"Stale\"");
    }

    @Test
    void listenPortOutOfRangeIsNamed() {
        // was: "railyard: port out of range:99999" (InetSocketAddress's message)
        assertThat(run("agent", "--node-name", "n", "--dry-run", "--listen", "1.2.3.4:99999")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("railyard: --listen: port 99999 is out of range (0 to 65535) in "
                + "'1.2.3.4:99999'\n");
    }

    @Test
    void listenTakesBracketedIpv6() {
        assertThat(AgentCommand.address("[::1]:8080").getAddress().getHostAddress()).isEqualTo("0:0:0:0:0:0:0:1");
        assertThat(AgentCommand.address(":9090").getPort()).isEqualTo(9090);
    }

    @Test
    void emptyGpuResourceIsRefused() {
        // was: accepted, so no device id was ever read as a GPU UUID
        assertThat(run("agent", "--node-name", "n", "--dry-run", "--gpu-resource", "")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("railyard: --gpu-resource: '' is not an extended resource name "
                + "(expected DOMAIN/NAME such as nvidia.com/gpu)\n");
    }

    @Test
    void missingOrBinaryRdmaSharedConfigIsSaidInWords() throws Exception {
        // was: "...: cannot read rdma-shared-dev-plugin config (PATH)" and "(Input length = 1)"
        Path missing = dir.resolve("missing.json");
        assertThat(run("agent", "--node-name", "n", "--dry-run", "--rdma-shared-config", missing.toString()))
                .isEqualTo(2);
        assertThat(err.toString()).isEqualTo("railyard: " + missing + ": cannot read rdma-shared-dev-plugin config: "
                + "no such file or directory\n");
        err.getBuffer().setLength(0);
        Path binary = dir.resolve("config.json");
        Files.write(binary, new byte[]{'{', (byte) 0x91, (byte) 0xfe, 0x00, '}'});
        assertThat(run("agent", "--node-name", "n", "--dry-run", "--rdma-shared-config", binary.toString()))
                .isEqualTo(2);
        assertThat(err.toString()).isEqualTo("railyard: " + binary + ": cannot read rdma-shared-dev-plugin config: "
                + "not UTF-8 text (a binary file?)\n");
    }
}
