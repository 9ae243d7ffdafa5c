package dev.railyard.scheduler.cli;

import dev.railyard.topology.InputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a tired operator gets for bad input, found by trying each command the way the README and docs show it
 * with broken files: one line naming what and where, exit code 2, and no Java exception or class names
 * ({@code java.io.CharConversionException}, {@code Input length = 1}, {@code ServeConfig$Server}, the JDK's bare
 * path as the whole reason). Each case failed before its fix; the old output is in the comment.
 */
class BadInputOneLineTest {
    @TempDir
    Path tmp;

    private static CliRun run(String... args) {
        return CliRun.of(args);
    }

    private static Path resource(String name) {
        try {
            return Path.of(BadInputOneLineTest.class.getResource(name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Bytes that are not UTF-8 (0x91 is a continuation byte with no lead byte), as in a binary file. */
    private Path binary(String name) throws IOException {
        Path f = tmp.resolve(name);
        Files.write(f, new byte[]{'k', ':', ' ', (byte) 0x91, (byte) 0xfe, 0x00, 0x1f, (byte) 0x8b});
        return f;
    }

    private static void assertOneLine(CliRun run, String line) {
        assertThat(run.rc()).isEqualTo(2);
        assertThat(run.err()).endsWith(line + System.lineSeparator());
        assertThat(run.err().lines().filter(l -> l.startsWith("railyard: ")).count()).isEqualTo(1);
        assertThat(run.err()).doesNotContain("java.").doesNotContain("Exception").doesNotContain("\tat ");
    }

    @Test
    void envNamesWhyTheIpAddrFileAndEnvFileFail() throws IOException {
        Path hints = Files.writeString(tmp.resolve("annotations"), "");
        Path missing = tmp.resolve("ip-addr.txt");
        // was: "cannot read --ip-addr-file X: X" (NoSuchFileException's message is the path alone); an ip file is
        // only read when there is a hint, so give the hint JSON of a one-GPU plan
        Path hint = Files.writeString(tmp.resolve("placement.json"), "{\"version\":1,\"node\":\"n\",\"gang\":\"p/j\",\"gangSize\":1,\"rank\":0,\"fabric\":[],\"gpus\":[{\"gpu\":0,"
                + "\"hca\":\"mlx5_0\",\"port\":1,\"rail\":0,\"distance\":\"PIX\",\"interface\":\"net1\"}],"
                + "\"nodeGpus\":[{\"gpu\":0,\"hca\":\"mlx5_0\",\"port\":1,\"rail\":0,\"distance\":\"PIX\","
                + "\"interface\":\"net1\"}],\"nccl\":{}}");
        assertOneLine(run("env", "--hints-file", hint.toString(), "--root", tmp.toString(), "--ip-addr-file",
                        missing.toString(), "--nvidia-visible-devices", "0"),
                "railyard: cannot read --ip-addr-file " + missing + ": no such file or directory");
        // was: "cannot read --ip-addr-file X: Input length = 1" (MalformedInputException)
        Path bin = binary("ip-addr.bin");
        assertOneLine(run("env", "--hints-file", hint.toString(), "--root", tmp.toString(), "--ip-addr-file",
                        bin.toString(), "--nvidia-visible-devices", "0"),
                "railyard: cannot read --ip-addr-file " + bin + ": not UTF-8 text (a binary file?)");
        // was: "cannot write --env-file /x/nccl.env: /x/.railyard-env123.tmp", the JDK naming its temporary file
        Path envFile = tmp.resolve("no-such-dir/nccl.env");
        assertOneLine(run("env", "--hints-file", hints.toString(), "--env-file", envFile.toString()),
                "railyard: cannot write --env-file " + envFile + ": directory " + envFile.getParent()
                        + " does not exist");
    }

    @Test
    void explainNamesBinaryJobFilesDirectoriesAndBadFabricFiles() throws IOException {
        Path snap = resource("/snapshots/demo");
        Path bin = binary("job.yaml");
        // was: "job.yaml line 1, column 1: java.io.CharConversionException: Invalid UTF-8 start byte 0x91 ..."
        assertOneLine(run("explain", "job", bin.toString(), "--snapshot", snap.toString()),
                "railyard: " + bin + ": not UTF-8 text (a binary file?)");

        // was: "'/tmp/.../dir': expected NAMESPACE/NAME" for an existing directory
        Path dir = Files.createDirectory(tmp.resolve("jobs"));
        assertOneLine(run("explain", "job", dir.toString(), "--snapshot", snap.toString()),
                "railyard: " + dir + ": is a directory; give a Volcano Job YAML file or NS/NAME (a snapshot "
                        + "directory goes to --snapshot)");

        Path jobs = snap.resolve("jobs.yaml");
        // was: "empty.yaml line 1, column 1: No content to map due to end-of-input"
        Path empty = Files.writeString(tmp.resolve("empty.yaml"), "");
        assertOneLine(run("explain", "job", jobs.toString(), "--snapshot", snap.toString(), "--fabric",
                empty.toString()), "railyard: " + empty + ": empty: no YAML or JSON content");
        // a node list given as --fabric; was: 'Unrecognized field "items" (class
        // dev.railyard.topology.fabric.FabricFile$Doc), not marked as ignorable'
        Path nodes = snap.resolve("nodes.yaml");
        assertOneLine(run("explain", "job", jobs.toString(), "--snapshot", snap.toString(), "--fabric",
                nodes.toString()), "railyard: " + nodes + ": unknown key \"items\" (known here: apiVersion, kind, "
                + "nodes, switches, tierNames)");
    }

    @Test
    void explainSaysOneSwitchHopInTheSingular() {
        Path snap = resource("/snapshots/demo");
        CliRun run = run("explain", "job", snap.resolve("jobs.yaml").toString(), "--snapshot", snap.toString());
        // demo job 3 (prod/finetune, rail alignment required) lands on gpu-a2 and gpu-a4 under leaves
        // su1-leaf-r2/r3: the two nodes are one switch apart (railyard demo prints "cost: 1 switch hop between
        // pods"); was "1 switch hops"
        assertThat(run.out()).contains("plan: 2 nodes in su1-leaf (tier 1, leaf); 1 switch hop between pods, "
                + "local cost 0, 4 GPUs left free in the domain");
    }

    @Test
    void topologyPairSaysOneGpuInTheSingular() {
        Path case12 = resource("/fixtures/case-12-a100-1gpu-4nic-no-pix-gdr-level.txt");
        CliRun run = run("topology", "pair", case12.toString());
        assertThat(run.rc()).isZero();
        // case-12: one A100 (GPU0) and four NICs; was "1 GPUs, 4 HCAs"
        assertThat(run.out()).startsWith(case12 + ": nvidia-smi, 1 GPU, 4 HCAs, complete\n");
    }

    @Test
    void serveRefusesFlagsThatNeedAClusterWithNoCluster() {
        // was: the service started and silently ignored --webhook-port and --leader-elect
        assertOneLine(run("serve", "--no-cluster", "--port", "0", "--webhook-port", "9443", "--leader-elect"),
                "railyard: --leader-elect, --webhook-port have no effect with --no-cluster (every answer is "
                        + "neutral); drop them or --no-cluster");
        assertOneLine(run("serve", "--no-cluster", "--port", "0", "--kubeconfig", "/etc/kube.conf"),
                "railyard: --kubeconfig has no effect with --no-cluster (every answer is neutral); drop one of them");
    }

    @Test
    void serveNamesBadConfigAndKubeconfigFilesInWords() throws IOException {
        Path bin = binary("serve.yaml");
        // was: "serve.yaml:1:1: java.io.CharConversionException: Invalid UTF-8 start byte 0x91 ..."
        assertOneLine(run("serve", "--config", bin.toString()),
                "railyard: " + bin + ": not UTF-8 text (a binary file?)");
        // was: 'bad value for "server": Cannot deserialize value of type `dev.railyard.scheduler.cli.
        // ServeConfig$Server` from Array value (token `JsonToken.START_ARRAY`)'
        Path list = Files.writeString(tmp.resolve("list.yaml"), "server: [8888]\n");
        assertOneLine(run("serve", "--config", list.toString()),
                "railyard: " + list + ":1:9: bad value for \"server\": expected a mapping, got a list");
        // was: "cannot read kubeconfig X: X"
        Path kubeconfig = tmp.resolve("kubeconfig");
        assertOneLine(run("serve", "--port", "0", "--kubeconfig", kubeconfig.toString()),
                "railyard: cannot read kubeconfig " + kubeconfig + ": no such file or directory");
    }

    @Test
    void simulateNamesBadClusterAndTraceFilesInWords() throws IOException {
        // was: "/tmp/x/dir line 1, column 1: java.io.IOException: Is a directory"
        Path dir = Files.createDirectory(tmp.resolve("cluster"));
        assertOneLine(run("simulate", "--cluster", dir.toString()), "railyard: " + dir + ": is a directory");
        Path bin = binary("trace.yaml");
        // was: "trace.yaml line 1, column 1: java.io.CharConversionException: Invalid UTF-8 start byte 0x91 ..."
        assertOneLine(run("simulate", "--jobs", bin.toString()),
                "railyard: " + bin + ": not UTF-8 text (a binary file?)");
        // was: "Cannot deserialize value of type `dev.railyard.scheduler.simulate.Trace$Doc` from Array value"
        Path list = Files.writeString(tmp.resolve("list.yaml"), "- a\n- b\n");
        assertOneLine(run("simulate", "--jobs", list.toString()),
                "railyard: " + list + " line 1, column 1: expected a mapping, got a list");
        // was: the whole simulation ran first (minutes at 4,096 nodes), then "cannot write" and no table
        assertOneLine(run("simulate", "--report", tmp.toString()), "railyard: --report " + tmp
                + ": is a directory; give a file name such as " + tmp.resolve("railyard-simulate.svg"));
        // was: a tar.gz written to a file named "-" or "x.zip", which topology pair then did not know as an archive
        for (String name : new String[] {"-", "node.zip"}) {
            assertOneLine(run("topology", "collect", "--root", tmp.toString(), "--out", name), "railyard: --out "
                    + name + ": the archive is a .tar.gz; give a name ending in .tar.gz or .tgz (topology pair "
                    + "detects archives by it)");
        }
        // was: "empty machine mix", as if nothing had been given
        assertOneLine(run("simulate", "--machines", "dgx:-1"),
                "railyard: machine mix entry 'dgx:-1': count must be 0 or more");
    }

    @Test
    void aKubeconfigThatCannotBeParsedIsNamedOnOneLineByServeAndTheAgent() throws IOException {
        // A cut YAML flow mapping. SnakeYAML (under fabric8's Config) says it over eight lines: "while parsing a flow
        // node", " in reader, line 2, column 3:", the source line, a caret, "expected the node content, but found
        // '-'", and the position again. Was: the first of them alone after "internal error:", exit 1, in the agent
        // and in pools/explain/serve without --kubeconfig (the same parser, through Config.autoConfigure).
        Path cut = Files.writeString(tmp.resolve("cut-kubeconfig"), "garbage: [\n  - {");
        String yaml = "while parsing a flow node (line 2, column 3); expected the node content, but found '-' "
                + "(line 2, column 3)";
        assertOneLine(run("serve", "--port", "0", "--kubeconfig", cut.toString()),
                "railyard: kubeconfig " + cut + " is not usable: " + yaml);
        assertOneLine(run("agent", "--kubeconfig", cut.toString(), "--sys-root", tmp.toString(), "--node-name", "n1",
                "--listen", "none"), "railyard: kubeconfig " + cut + " is not usable: " + yaml);
        // was: "internal error: ... KubernetesClientException: /x (File) is not a parseable Kubernetes Config"
        Path missing = tmp.resolve("no-kubeconfig");
        assertOneLine(run("agent", "--kubeconfig", missing.toString(), "--sys-root", tmp.toString(), "--node-name",
                "n1", "--listen", "none"), "railyard: cannot read kubeconfig " + missing + ": no such file or directory");
        // valid YAML of the wrong shape: Jackson's words, on one line, naming the file and the field
        Path shape = Files.writeString(tmp.resolve("shape-kubeconfig"), "apiVersion: v1\nkind: Config\nclusters: 5\n");
        assertThatThrownBy(() -> ApiServerConfigSource.fromKubeconfig(shape))
                .isInstanceOf(InputException.class)
                .hasMessageStartingWith("kubeconfig " + shape + " is not usable: ")
                .hasMessageContaining("Config[\"clusters\"]")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void noApiServerConfigurationIsOneLineNotAConnectionStackTrace() throws IOException {
        Path token = tmp.resolve("token");
        // was: after ~20 s per kind, "cannot list nodes from https://kubernetes.default.svc/: Operation: [list] for
        // kind: [Node] with name: [null] in namespace: [null] failed. (ConnectException)", and in serve a fabric8
        // stack trace per informer
        assertThatThrownBy(() -> ApiServerConfigSource.require(List.of(tmp.resolve("config").toString()), Map.of(),
                null, token, "give --snapshot DIR"))
                .isInstanceOf(InputException.class)
                .hasMessage("no Kubernetes API server configured ($KUBECONFIG is unset and ~/.kube/config does not "
                        + "exist, and this is not a pod: no KUBERNETES_SERVICE_HOST); give --snapshot DIR");
        assertThatThrownBy(() -> ApiServerConfigSource.require(List.of("/nope/a", "/nope/b"),
                Map.of("KUBECONFIG", "/nope/a:/nope/b"), null, token, "x"))
                .hasMessageStartingWith("no Kubernetes API server configured ($KUBECONFIG=/nope/a:/nope/b names no "
                        + "existing file, ");

        Path config = Files.writeString(tmp.resolve("config"), "apiVersion: v1\nkind: Config\n");
        assertThat(ApiServerConfigSource.require(List.of("/nope/a", config.toString()), Map.of(), null, token, "x"))
                .isEqualTo("kubeconfig " + config);
        assertThat(ApiServerConfigSource.require(List.of(), Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1"), null,
                token, "x")).isEqualTo("in-cluster service account");
        Files.writeString(token, "eyJ...");
        assertThat(ApiServerConfigSource.require(List.of(), Map.of(), null, token, "x"))
                .isEqualTo("in-cluster service account");
        assertThat(ApiServerConfigSource.require(List.of(), Map.of("KUBERNETES_MASTER", "https://10.0.0.1:6443"),
                null, tmp.resolve("none"), "x")).isEqualTo("KUBERNETES_MASTER");
    }

    @Test
    void unreachableApiServerIsNamedWithoutFabric8Wording() throws IOException {
        int port;
        try (var socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();                       // closed again: nothing listens there
        }
        io.fabric8.kubernetes.client.Config config = new io.fabric8.kubernetes.client.ConfigBuilder()
                .withMasterUrl("https://127.0.0.1:" + port).withRequestRetryBackoffLimit(0).build();
        try (var client = new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(config).build()) {
            // was: "cannot list nodes from https://127.0.0.1:P/: Operation: [list] for kind: [Node] with name:
            // [null] in namespace: [null] failed. (ConnectException)"
            assertThatThrownBy(() -> dev.railyard.scheduler.cluster.ClusterListing.listOnce(client, new java.util.ArrayList<>()))
                    .isInstanceOf(InputException.class)
                    .hasMessage("cannot list nodes from https://127.0.0.1:" + port + "/: cannot connect (connection "
                            + "refused: is the API server running and the kubeconfig's server address right?)");
        }
    }

    @Test
    void unreadableSnapshotFilesAreBadInputInWords() throws IOException {
        Path snap = Files.createDirectory(tmp.resolve("snap"));
        try (var files = Files.list(resource("/snapshots/demo"))) {
            for (Path f : files.toList()) {
                Files.copy(f, snap.resolve(f.getFileName().toString()));
            }
        }
        binary("snap/bin.yaml");
        // (line and column as the YAML reader reports them); was a warning after the answer: "bin.yaml line 1,
        // column 1 (document 1): java.io.CharConversionException: Invalid UTF-8 start byte 0x91 ...", and before
        // that the file was dropped (docs/explain.md: a damaged snapshot file is bad input)
        assertOneLine(run("pools", "--snapshot", snap.toString()), "railyard: snapshot " + snap + ": bin.yaml line "
                + "1, column 2 (document 1): not UTF-8 text (a binary file?); " + SNAPSHOT_DAMAGED);
        Files.delete(snap.resolve("bin.yaml"));
        // was: "deep.yaml (document 1): Document nesting depth (1001) exceeds the maximum allowed (1000, from
        // `StreamReadConstraints.getMaxNestingDepth()`)"
        Files.writeString(snap.resolve("deep.yaml"), "a: " + "[".repeat(1500) + "]".repeat(1500) + "\n");
        CliRun deep = run("pools", "--snapshot", snap.toString());
        assertThat(deep.err()).startsWith("railyard: snapshot " + snap + ": deep.yaml ")
                .contains("(document 1): nested more than 1000 levels deep; ").doesNotContain("StreamReadConstraints");
        assertOneLine(deep, deep.err().strip());
    }

    private static final String SNAPSHOT_DAMAGED = "fix or remove the file: read in part, its missing objects would "
            + "look absent (their GPUs free, their addresses unused)";

    @CommandLine.Command(name = "oom")
    static final class RunsOutOfMemory implements Runnable {
        @Override
        public void run() {
            // what Files.readAllBytes threw for `railyard env --hints-file /dev/zero` (hints/HintFile)
            throw new OutOfMemoryError("Java heap space");
        }
    }

    @Test
    void anOutOfMemoryErrorIsOneLineNotAStackTrace() {
        StringWriter err = new StringWriter();
        CommandLine cmd = new CommandLine(new RunsOutOfMemory());
        cmd.setErr(new PrintWriter(err));
        // was: "Exception in thread "main" java.lang.OutOfMemoryError: Java heap space" and 17 "at" lines
        assertThat(RailyardCommand.execute(cmd)).isEqualTo(1);
        assertThat(err.toString()).isEqualTo("railyard: internal error: out of memory (an input far larger than "
                + "expected? raise -Xmx through RAILYARD_JAVA_OPTS)" + System.lineSeparator());
    }
}
