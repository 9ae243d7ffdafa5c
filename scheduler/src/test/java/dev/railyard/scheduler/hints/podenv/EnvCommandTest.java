package dev.railyard.scheduler.hints.podenv;

import dev.railyard.api.hints.NcclVersion;
import dev.railyard.api.hints.PlacementHint;
import dev.railyard.scheduler.cli.RailyardCommand;
import dev.railyard.scheduler.hints.HintFileTest;
import dev.railyard.scheduler.hints.NcclSyntax;
import dev.railyard.scheduler.hints.NcclSyntaxTest;
import dev.railyard.scheduler.hints.SeedNode;
import dev.railyard.scheduler.hints.SeedNode.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code railyard env} end to end through the real command line, on a fake root. */
class EnvCommandTest {
    @TempDir
    Path root;

    record Run(int exit, String out, String err) {
    }

    private Run env(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = RailyardCommand.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        List<String> all = new ArrayList<>(List.of("env", "--root", root.toString(),
                "--cuda-visible-devices=", "--ip-addr-file", ipAddrFile().toString()));
        all.addAll(List.of(args));
        int exit = cl.execute(all.toArray(String[]::new));
        return new Run(exit, out.toString(), err.toString());
    }

    private Path ipAddrFile() {
        Path f = root.resolve("ip-addr.txt");
        try {
            if (!Files.exists(f)) {
                Files.writeString(f, String.join("\n",
                        "3: eth0@if12    inet 10.244.1.5/24 brd 10.244.1.255 scope global eth0",
                        "4: net1@if2    inet 192.168.4.12/22 brd 192.168.7.255 scope global net1",
                        "5: net2@if3    inet 192.168.8.12/22 brd 192.168.11.255 scope global net2",
                        "6: net3@if4    inet 192.168.12.12/22 brd 192.168.15.255 scope global net3",
                        "7: net4@if5    inet 192.168.16.12/22 brd 192.168.19.255 scope global net4"));
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return f;
    }

    /** mlx5_2's table: the pod's 192.168.12.12 (net3) at 6 (v1) / 7 (v2); other entries EINVAL or empty. */
    private void mlx52Table() throws Exception {
        SeedNode.writePort(root.resolve("sys"), "mlx5_2", 1, "Ethernet", List.of(
                new Row(0, "fe80:0000:0000:0000:0000:00ff:fe00:0002", null, null),
                new Row(3, SeedNode.ZERO, null, null),
                new Row(4, SeedNode.v4(192, 168, 12, 30), null, null),
                new Row(6, SeedNode.v4(192, 168, 12, 12), "IB/RoCE v1", "net3"),
                new Row(7, SeedNode.v4(192, 168, 12, 12), "RoCE v2", "net3")));
    }

    private Path annotations(String placementValueQuoted) throws Exception {
        Path f = root.resolve("annotations");
        Files.writeString(f, "k8s.v1.cni.cncf.io/networks=\"rdma-net-ipam-lan2,rdma-net-ipam-lan3,"
                + "rdma-net-ipam-lan4,rdma-net-ipam-lan5\"\nrailyard.dev/placement=" + placementValueQuoted);
        return f;
    }

    @Test
    void printsExportLinesForTheGpusTheContainerReallyHas() throws Exception {
        mlx52Table();
        Path f = annotations(HintFileTest.goQuote(HintFileTest.hintJson()));
        // planned GPU0,1 (mlx5_0); the container got GPU4,5 → mlx5_2, whose RoCE v2 entry of 192.168.12.12 is 7
        Run r = env("--hints-file", f.toString(), "--nvidia-visible-devices",
                SeedNode.uuid(4) + "," + SeedNode.uuid(5));
        assertThat(r.exit()).isZero();
        assertThat(r.out()).isEqualTo("""
                export NCCL_IB_HCA='=mlx5_2:1'
                export NCCL_IB_GID_INDEX='7'
                export NCCL_IB_ADDR_FAMILY='AF_INET'
                export NCCL_IB_ADDR_RANGE='192.168.12.0/22'
                export NCCL_SOCKET_IFNAME='=eth0'
                """);
        assertThat(r.err()).contains("railyard env: the container has GPUs [4, 5] but the plan said [0, 1]");
    }

    @Test
    void writesTheNccl230SyntaxWhenAskedAndTheClassicOneByDefault() throws Exception {
        // GPU4/5 pair with mlx5_2, rail 2 (SeedNode). NCCL >= 2.30.5 reads <hca>:<port>:<rail>[:<plane>] and
        // NCCL_NET_MERGE_POLICY (NcclSyntaxTest checks the grammar against NCCL's parser); earlier releases
        // and no declaration get =<hca>:<port>.
        mlx52Table();
        String gpus = SeedNode.uuid(4) + "," + SeedNode.uuid(5);
        Path f = annotations(HintFileTest.goQuote(HintFileTest.hintJson()));
        Run classic = env("--hints-file", f.toString(), "--nvidia-visible-devices", gpus);
        assertThat(classic.out()).startsWith("export NCCL_IB_HCA='=mlx5_2:1'\n").doesNotContain("MERGE_POLICY");

        Run asked = env("--hints-file", f.toString(), "--nvidia-visible-devices", gpus, "--nccl-version", "2.30.7");
        assertThat(asked.exit()).isZero();
        assertThat(asked.out()).isEqualTo("""
                export NCCL_IB_HCA='=mlx5_2:1:2'
                export NCCL_NET_MERGE_POLICY='RAIL'
                export NCCL_IB_GID_INDEX='7'
                export NCCL_IB_ADDR_FAMILY='AF_INET'
                export NCCL_IB_ADDR_RANGE='192.168.12.0/22'
                export NCCL_SOCKET_IFNAME='=eth0'
                """);

        // a hint written at bind time for a job declaring 2.30.7 carries it; --nccl-version overrides it
        PlacementHint declared = NcclSyntax.forVersion(SeedNode.hint(List.of(4, 5), "=mlx5_2:1", "192.168.12.0/22"),
                NcclVersion.parse("2.30.7"));
        Path g = annotations(HintFileTest.goQuote(new com.fasterxml.jackson.databind.ObjectMapper()
                .writeValueAsString(declared)));
        assertThat(env("--hints-file", g.toString(), "--nvidia-visible-devices", gpus).out())
                .startsWith("export NCCL_IB_HCA='=mlx5_2:1:2'\nexport NCCL_NET_MERGE_POLICY='RAIL'\n");
        assertThat(env("--hints-file", g.toString(), "--nvidia-visible-devices", gpus, "--nccl-version", "2.29.7")
                .out()).startsWith("export NCCL_IB_HCA='=mlx5_2:1'\n").doesNotContain("MERGE_POLICY");
    }

    @Test
    void aMalformedNcclVersionIsAUsageErrorInOneLine() throws Exception {
        Path f = annotations(HintFileTest.goQuote(HintFileTest.hintJson()));
        Run r = env("--hints-file", f.toString(), "--nccl-version", "newest");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("railyard: --nccl-version: 'newest' is not an NCCL version (expected "
                + "MAJOR.MINOR[.PATCH], e.g. 2.30.7)\n");
    }

    @Test
    void writesAnEnvFileInstead() throws Exception {
        mlx52Table();
        Path f = annotations(HintFileTest.goQuote(HintFileTest.hintJson()));
        Path envFile = root.resolve("nccl.env");
        Run r = env("--hints-file", f.toString(), "--nvidia-visible-devices", "4", "--env-file", envFile.toString());
        assertThat(r.exit()).isZero();
        assertThat(r.out()).isEmpty();
        assertThat(Files.readString(envFile)).isEqualTo("# written by railyard env from " + f + "\n"
                + "NCCL_IB_HCA==mlx5_2:1\nNCCL_IB_GID_INDEX=7\nNCCL_IB_ADDR_FAMILY=AF_INET\n"
                + "NCCL_IB_ADDR_RANGE=192.168.12.0/22\nNCCL_SOCKET_IFNAME==eth0\n");
    }

    @Test
    void noHintsExitsZeroWithAMessageAndNoExports() throws Exception {
        Path f = root.resolve("annotations");
        Files.writeString(f, "k8s.v1.cni.cncf.io/networks=\"rdma-net-ipam-lan2\"");
        Run r = env("--hints-file", f.toString(), "--nvidia-visible-devices", "0");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).isEqualTo("railyard env: no railyard.dev/placement annotation in " + f
                + " (the pod was bound without Railyard hints); nothing to export\n"
                + "railyard env: no NCCL settings exported\n");
    }

    @Test
    void noHintsFileAtAllStillWritesAnEnvFileSoSourcingItWorks() throws Exception {
        Path envFile = root.resolve("nccl.env");
        Run r = env("--hints-file", root.resolve("missing").toString(), "--env-file", envFile.toString());
        assertThat(r.exit()).isZero();
        assertThat(r.err()).contains("no hints file").contains("nothing to export");
        assertThat(Files.readAllLines(envFile)).allMatch(l -> l.startsWith("#"));
    }

    @Test
    void malformedHintIsReportedAndIgnored() throws Exception {
        Path f = annotations("\"{\\\"version\\\":1,\\\"gpus\\\":\"");
        Run r = env("--hints-file", f.toString(), "--nvidia-visible-devices", "0");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).startsWith("railyard env: ignoring the placement hint: " + f
                + " [railyard.dev/placement]: malformed hint JSON:");
    }

    @Test
    void futureVersionHintIsReportedAndIgnored() throws Exception {
        Path f = annotations("\"{\\\"version\\\":7,\\\"node\\\":\\\"gpu-a1\\\"}\"");
        Run r = env("--hints-file", f.toString());
        assertThat(r.exit()).isZero();
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).contains("hint schema version 7 is newer than this railyard understands (1)");
    }

    @Test
    void garbageInTheAnnotationsFileIsIgnoredToo() throws Exception {
        Path f = root.resolve("annotations");
        Files.writeString(f, "\u0000\u0001binary junk");
        Run r = env("--hints-file", f.toString());
        assertThat(r.exit()).isZero();
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).contains("ignoring the placement hint");
    }

    @Test
    void unsetNvidiaVisibleDevicesIsNotTheEmptyValue() throws Exception {
        // picocli's ${env:NVIDIA_VISIBLE_DEVICES} gives null when the variable is unset: "cannot tell" (plan
        // assumed), while NVIDIA_VISIBLE_DEVICES= (empty) is the toolkit's "no GPU"
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("NVIDIA_VISIBLE_DEVICES") == null);
        mlx52Table();
        Path f = annotations(HintFileTest.goQuote(HintFileTest.hintJson()));
        assertThat(env("--hints-file", f.toString()).err()).contains("cannot tell which GPUs this container has");
        Run empty = env("--hints-file", f.toString(), "--nvidia-visible-devices=");
        assertThat(empty.exit()).isZero();
        assertThat(empty.err()).contains("this container has no GPUs (NVIDIA_VISIBLE_DEVICES=(empty): the NVIDIA "
                + "container runtime exposes no GPU)");
    }

    @Test
    void anEndlessHintsFileIsIgnoredWithAMessageAndNoExports() {
        // was: railyard env --hints-file /dev/zero read until the heap ran out (OutOfMemoryError, exit 1)
        Path zero = Path.of("/dev/zero");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(zero), "no /dev/zero here");
        Run r = env("--hints-file", zero.toString(), "--nvidia-visible-devices", "0");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).isEqualTo("railyard env: ignoring the placement hint: hints file /dev/zero is larger "
                + "than 1 MiB, which no pod's annotations are (at most 256 KiB): not a hints file; nothing to export\n"
                + "railyard env: no NCCL settings exported\n");
    }

    @Test
    void garbageInAGidFileIsSaidAndNeverPicked() throws Exception {
        // mlx5_2 port 1: index 7 would be the pod's RoCE v2 entry, but its gids file is garbage (a damaged
        // snapshot); the entry is dropped, as before, and now named on stderr
        mlx52Table();
        Path gid7 = root.resolve("sys/class/infiniband/mlx5_2/ports/1/gids/7");
        Files.writeString(gid7, "not a gid\n");
        Path f = annotations(HintFileTest.goQuote(HintFileTest.hintJson()));
        Run r = env("--hints-file", f.toString(), "--nvidia-visible-devices", "4");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).doesNotContain("NCCL_IB_GID_INDEX").doesNotContain("mlx5_2");
        assertThat(r.err()).contains("railyard env: " + gid7 + ": 'not a gid' is not a GID (8 groups of 4 hex "
                + "digits); entry 7 ignored\n");
    }

    @Test
    void anUnwritableEnvFileIsAUsageError() throws Exception {
        Path f = annotations(HintFileTest.goQuote(HintFileTest.hintJson()));
        Run r = env("--hints-file", f.toString(), "--env-file", root.resolve("no/such/dir/nccl.env").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("railyard: cannot write --env-file");
    }
}
