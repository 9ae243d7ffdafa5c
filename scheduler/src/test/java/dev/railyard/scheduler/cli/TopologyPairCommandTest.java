package dev.railyard.scheduler.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code railyard topology pair} end to end through the picocli command line, as the jar runs it. */
class TopologyPairCommandTest {
    private final ObjectMapper json = new ObjectMapper();

    /** Exit code and captured streams of one run. */
    record Run(int exit, String out, String err) {
    }

    @Test
    void printsTheRailMapOfCase01AsJson() throws Exception {
        Run run = run("topology", "pair", case01().toString(), "--output", "json");

        assertThat(run.exit()).isZero();
        assertThat(run.err()).isEmpty();
        JsonNode root = json.readTree(run.out());
        assertThat(root.get("complete").asBoolean()).isTrue();
        assertThat(root.get("source").asText()).isEqualTo("nvidia-smi");
        // case-01: GPUi is PIX to NICi = mlx5_i (NIC Legend), rail i
        assertThat(root.get("pairs")).hasSize(8);
        for (int i = 0; i < 8; i++) {
            JsonNode p = root.get("pairs").get(i);
            assertThat(p.get("gpu").asInt()).isEqualTo(i);
            assertThat(p.get("hca").asText()).isEqualTo("mlx5_" + i);
            assertThat(p.get("distance").asText()).isEqualTo("PIX");
            assertThat(p.get("rail").asInt()).isEqualTo(i);
            assertThat(p.get("gpuDirect").asBoolean()).isTrue();
        }
        assertThat(root.get("excluded")).isEmpty();
        assertThat(root.get("warnings")).isEmpty();
        assertThat(root.get("unpairedGpus")).isEmpty();
    }

    @Test
    void reportsADamagedButUsableDumpWithExitZero(@TempDir Path dir) throws Exception {
        // case-01 without its NIC rows and with row GPU7 (line 9) cut after column NIC3: GPU7 cannot be decided
        String text = Files.readString(case01()).replaceAll("(?m)^NIC\\d+ .*\\n", "")
                .replaceAll("(?m)^(GPU7(?:\\s+\\S+){12}).*$", "$1");
        Path damaged = Files.writeString(dir.resolve("damaged.txt"), text);

        Run run = run("topology", "pair", damaged.toString(), "--output", "json");

        assertThat(run.exit()).isZero();
        assertThat(run.err()).isEmpty();
        JsonNode root = json.readTree(run.out());
        assertThat(root.get("complete").asBoolean()).isFalse();
        assertThat(root.get("pairs")).hasSize(7);
        assertThat(root.get("unpairedGpus").get(0).asInt()).isEqualTo(7);
        assertThat(root.get("warnings").get(0).asText())
                .isEqualTo(damaged + ":9:100: row GPU7 ends after 12 of 16 cells (row cut short); NIC4..NIC7 unknown");
    }

    @Test
    void rejectsUnusableInputWithOneLineAndExitTwo(@TempDir Path dir) throws IOException {
        Path empty = Files.writeString(dir.resolve("empty.txt"), "");
        Path binary = Files.write(dir.resolve("core"), new byte[]{0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0});
        Path missing = dir.resolve("missing.txt");

        assertOneLineError(run("topology", "pair", empty.toString()),
                "railyard: " + empty + ":1:1: empty file, no nvidia-smi topo -m matrix");
        assertOneLineError(run("topology", "pair", binary.toString(), "--output", "json"),
                "railyard: " + binary + ":1:8: binary data (byte 0x00 at offset 7), not a text dump");
        assertOneLineError(run("topology", "pair", missing.toString()),
                "railyard: " + missing + ": no such file or directory");
    }

    @Test
    void rejectsAnUnknownFormatAsAUsageError() throws Exception {
        // issue 17 made lspci one of the formats
        Run run = run("topology", "pair", case01().toString(), "--format", "dmesg");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).startsWith("railyard: Invalid value for option '--format': unknown topology format "
                + "'dmesg'; expected one of auto, nvidia-smi, sysfs, nccl-xml, lspci").doesNotContain("\tat ");
    }

    @Test
    void printsATableForPeopleAndDotForGraphviz() throws Exception {
        Run table = run("topology", "pair", case01().toString());
        assertThat(table.exit()).isZero();
        assertThat(table.out()).startsWith(case01() + ": nvidia-smi, 8 GPUs, 8 HCAs, complete\n"
                + "RAIL  GPU    HCA     DISTANCE  GPUDIRECT\n"
                + "0     GPU0   mlx5_0  PIX       yes\n");

        Run dot = run("topology", "pair", case01().toString(), "--output", "dot", "--format", "nvidia-smi");
        assertThat(dot.exit()).isZero();
        // "node" is a DOT keyword and cannot name a graph (Graphviz refused the old header); checked with JGraphT's
        // DOT grammar (https://graphviz.org/doc/info/lang.html)
        assertThat(dot.out()).startsWith("strict graph node_topology {")
                .contains("gpu7 -- hca_mlx5_7 [ label=\"PIX rail 7\" color=\"red\" penwidth=\"2\" ];");
        org.jgrapht.Graph<String, org.jgrapht.graph.DefaultEdge> parsed = org.jgrapht.graph.builder.GraphTypeBuilder
                .undirected().allowingMultipleEdges(false).allowingSelfLoops(false)
                .vertexSupplier(org.jgrapht.util.SupplierUtil.createStringSupplier())
                .edgeClass(org.jgrapht.graph.DefaultEdge.class).buildGraph();
        org.jgrapht.nio.dot.DOTImporter<String, org.jgrapht.graph.DefaultEdge> importer =
                new org.jgrapht.nio.dot.DOTImporter<>();
        importer.setVertexFactory(id -> id);
        importer.importGraph(parsed, new java.io.StringReader(dot.out()));
        // case-01: 8 GPUs + 8 HCAs + 2 NUMA nodes
        assertThat(parsed.vertexSet()).hasSize(18);
    }

    @Test
    void readsAnLspciTreeAndSaysWhenASourceCannotTell(@TempDir Path dir) throws Exception {
        // lspci -tvnn drawn by pciutils' ls-tree.c rules (docs/formats/lspci-tree.md): GPU 18:00.0 and NIC 19:00.0
        // under one switch, GPU 29:00.0 and NIC 2a:00.0 under another: PIX each, auto-detected as lspci.
        Path tree = Files.writeString(dir.resolve("tree.txt"), String.join("\n",
                "-+-[0000:15]-+-00.0  Intel Corporation Device [8086:09a2]",
                " |           \\-01.0-[16-19]----00.0-[17-19]--+-00.0-[18]----00.0  NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330]",
                " |                                           \\-01.0-[19]----00.0  Mellanox Technologies MT2910 Family [ConnectX-7] [15b3:1021]",
                " \\-[0000:26]-+-00.0  Intel Corporation Device [8086:09a2]",
                "             \\-01.0-[27-2a]----00.0-[28-2a]--+-00.0-[29]----00.0  NVIDIA Corporation GH100 [H100 SXM5 80GB] [10de:2330]",
                "                                             \\-01.0-[2a]----00.0  Mellanox Technologies MT2910 Family [ConnectX-7] [15b3:1021]",
                ""));
        Run lspci = run("topology", "pair", tree.toString(), "--output", "json");
        assertThat(lspci.exit()).isZero();
        JsonNode root = json.readTree(lspci.out());
        assertThat(root.get("source").asText()).isEqualTo("lspci");
        assertThat(root.get("locality").get("basis").asText()).isEqualTo("PCIE");
        assertThat(root.get("pairs").get(0).get("hca").asText()).isEqualTo("0000:19:00.0");
        assertThat(root.get("pairs").get(1).get("hca").asText()).isEqualTo("0000:2a:00.0");
        assertThat(root.get("pairs").get(1).get("distance").asText()).isEqualTo("PIX");

        // A GB200 tray's matrix (sglang#11208 rows): every GPU-NIC cell SYS, GPU NUMA ID numeric, no NIC NUMA
        Path gb200 = Files.writeString(dir.resolve("gb200.txt"), String.join("\n",
                "        GPU0    GPU1    NIC0    NIC1    CPU Affinity    NUMA Affinity   GPU NUMA ID",
                "GPU0     X      NV18    SYS     SYS     0-71    0,3-9,11-17             2",
                "GPU1    NV18     X      SYS     SYS     0-71    0,3-9,11-17             10",
                "NIC0    SYS     SYS      X      NODE",
                "NIC1    SYS     SYS     NODE     X",
                ""));
        Run table = run("topology", "pair", gb200.toString());
        assertThat(table.exit()).isZero();
        assertThat(table.out()).contains("This source cannot tell which HCA is near which GPU: GPU0, GPU1 reach the "
                + "CPU over NVLink-C2C");
        JsonNode g = json.readTree(run("topology", "pair", gb200.toString(), "--output", "json").out());
        assertThat(g.get("locality").get("basis").asText()).isEqualTo("UNDETERMINED");
        assertThat(g.get("pairs")).isEmpty();
        assertThat(g.get("excluded")).isEmpty();
    }

    private static void assertOneLineError(Run run, String line) {
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo(line + System.lineSeparator());
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = RailyardCommand.commandLine();
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        int exit = cmd.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    private static Path case01() throws URISyntaxException {
        return Path.of(Objects.requireNonNull(TopologyPairCommandTest.class
                .getResource("/fixtures/case-01-dgx-h100-8gpu-8nic-1to1.txt")).toURI());
    }
}
