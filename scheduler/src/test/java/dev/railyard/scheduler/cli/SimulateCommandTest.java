package dev.railyard.scheduler.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class SimulateCommandTest {
    private static final List<String> COLUMNS = List.of("railyard", "random", "binpack", "tier-pack");

    private static String run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = RailyardCommand.commandLine();
        cmd.setOut(new PrintWriter(out));
        cmd.setErr(new PrintWriter(err));
        int rc = cmd.execute(args);
        assertThat(rc).as("exit code; stderr: %s", err).isZero();
        return out.toString();
    }

    /** Row label → values per column, from the printed table. */
    private static Map<String, List<String>> table(String out) {
        Map<String, List<String>> rows = new LinkedHashMap<>();
        for (String line : out.lines().toList()) {
            String[] cells = line.trim().split("\\s{2,}");
            if (Arrays.asList(cells).equals(COLUMNS)) {
                rows.put("", COLUMNS);
            } else if (cells.length == COLUMNS.size() + 1) {
                rows.put(cells[0], Arrays.asList(cells).subList(1, cells.length));
            }
        }
        return rows;
    }

    private static double number(String cell) {
        return Double.parseDouble(cell.replace("%", ""));
    }

    /**
     * Acceptance (issue 3): on the default generated cluster (1,024 nodes, 3 tiers, rail-optimised; three DGX-shaped
     * units for every HGX-with-4-NICs unit) and the default trace, Railyard has no more cross-leaf pairs than any
     * baseline, strictly fewer cross-rail pairs than every baseline, and at least the same share of GPUs at ≤ PXB.
     */
    @Test
    void defaultGeneratedClusterRailyardBeatsEveryBaseline() {
        String out = run("simulate");
        assertThat(out).startsWith("generated cluster: 1024 nodes, 3 tiers, machines dgx:3,hgx4:1 (8192 GPUs); "
                + "generated trace: 1000 jobs");
        Map<String, List<String>> t = table(out);
        assertThat(t.get("")).containsExactlyElementsOf(COLUMNS);
        List<String> leaf = t.get("cross-leaf pairs (total)");
        List<String> rail = t.get("cross-rail pairs (total)");
        List<String> pxb = t.get("share of GPUs at ≤ PXB");
        for (int b = 1; b < COLUMNS.size(); b++) {
            assertThat(number(leaf.get(0))).as("cross-leaf vs %s", COLUMNS.get(b)).isLessThanOrEqualTo(number(leaf.get(b)));
            assertThat(number(rail.get(0))).as("cross-rail vs %s", COLUMNS.get(b)).isLessThan(number(rail.get(b)));
            assertThat(number(pxb.get(0))).as("≤ PXB share vs %s", COLUMNS.get(b)).isGreaterThanOrEqualTo(number(pxb.get(b)));
        }
        // every row of the table is there
        assertThat(t).containsKeys("jobs placed", "jobs unschedulable", "GPUs at PIX", "GPUs at SYS",
                "cross-leaf pairs per job", "cross-rail pairs per job", "fragmentation (free GPUs stranded)",
                "plan time p50 (ms)", "plan time p99 (ms)");
    }

    @Test
    void clusterAndTraceFiles(@TempDir Path dir) throws Exception {
        // the demo's cluster as a cluster file: copy its files next to each other
        for (String f : List.of("cluster.yaml", "fabric.yaml", "case-01-dgx-h100-8gpu-8nic-1to1.txt",
                "case-05-h100-6nic-2gpu-per-nic.txt", "case-06-pcie-8gpu-8nic-4per-switch-sriov.txt")) {
            try (var in = DemoCluster.resource(f)) {
                Files.copy(in, dir.resolve(f));
            }
        }
        Path jobs = dir.resolve("jobs.yaml");
        Files.writeString(jobs, """
                jobs:
                  - {name: a, pods: 2, gpus: 8, duration: 10}
                  - {name: b, pods: 1, gpus: 4, duration: 10, railAlignment: required}
                  - {name: c, pods: 40, gpus: 8, duration: 10}
                """);
        String out = run("simulate", "--cluster", dir.resolve("cluster.yaml").toString(), "--jobs", jobs.toString());
        Map<String, List<String>> t = table(out);
        // c needs 40 nodes with 8 GPUs at <= PXB; the demo cluster has 16 nodes: nobody places it
        assertThat(t.get("jobs unschedulable")).containsExactly("1", "1", "1", "1");
        assertThat(t.get("jobs placed")).containsExactly("2", "2", "2", "2");
        // Railyard: a takes two free pcie-8gpu nodes (16 PIX GPUs), b 4 PIX GPUs
        assertThat(t.get("GPUs at PIX").get(0)).isEqualTo("20");
    }

    @Test
    void badTraceIsOneLineExitTwo(@TempDir Path dir) throws Exception {
        Path jobs = dir.resolve("jobs.yaml");
        Files.writeString(jobs, "jobs:\n  - {name: a, pods: 2, gpus: 8}\n");
        StringWriter err = new StringWriter();
        CommandLine cmd = RailyardCommand.commandLine();
        cmd.setErr(new PrintWriter(err));
        cmd.setOut(new PrintWriter(new StringWriter()));
        assertThat(cmd.execute("simulate", "--nodes", "64", "--jobs", jobs.toString())).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("railyard: " + jobs + ": job a: pods, gpus and duration are required"
                + System.lineSeparator());
        StringWriter err2 = new StringWriter();
        CommandLine cmd2 = RailyardCommand.commandLine();
        cmd2.setErr(new PrintWriter(err2));
        assertThat(cmd2.execute("simulate", "--nodes", "64", "--jobs-mix", "2y8")).isEqualTo(2);
        assertThat(err2.toString()).startsWith("railyard: job mix entry '2y8' is not PODSxGPUS[:WEIGHT]");
    }
}
