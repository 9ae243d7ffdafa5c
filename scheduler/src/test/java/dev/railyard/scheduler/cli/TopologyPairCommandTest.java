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
        Run run = run("topology", "pair", case01().toString(), "--format", "lspci");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).startsWith("railyard: Invalid value for option '--format': unknown topology format "
                + "'lspci'; expected one of auto, nvidia-smi, sysfs, nccl-xml").doesNotContain("\tat ");
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
