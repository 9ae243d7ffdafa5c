package dev.railyard.scheduler.cli;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class SimulateCommandTest {
    private static final List<String> COLUMNS = List.of("railyard", "railyard-relax", "random", "binpack", "volcano",
            "kai", "koordinator");
    private static final List<String> BASELINES = COLUMNS.subList(2, COLUMNS.size());

    @TempDir
    static Path dir;
    private static String out;

    /** One generated run shared by the tests below: 256 nodes (8 scalable units, 3 tiers), 500 jobs, load 0.85. */
    @BeforeAll
    static void simulate() {
        CliRun r = CliRun.of("simulate", "--nodes", "256", "--job-count", "500", "--report",
                dir.resolve("report.svg").toString());
        assertThat(r.rc()).as("exit code; stderr: %s", r.err()).isZero();
        out = r.out();
    }

    /** Row label → values per column, from the printed table. */
    private static Map<String, List<String>> table(String text, List<String> columns) {
        Map<String, List<String>> rows = new LinkedHashMap<>();
        for (String line : text.lines().toList()) {
            String[] cells = line.trim().split("\\s{2,}");
            if (Arrays.asList(cells).equals(columns)) {
                rows.put("", columns);
            } else if (cells.length == columns.size() + 1) {
                rows.put(cells[0], Arrays.asList(cells).subList(1, cells.length));
            }
        }
        return rows;
    }

    private static double number(String cell) {
        return Double.parseDouble(cell.replace("%", ""));
    }

    private static double cell(Map<String, List<String>> t, String row, String column) {
        return number(t.get(row).get(COLUMNS.indexOf(column)));
    }

    @Test
    void everyRowOfTheComparisonIsPrintedForEveryStrategy() {
        assertThat(out).startsWith("generated cluster: 256 nodes, 3 tiers, machines dgx:3,hgx4:1 (2048 GPUs)\n"
                + "workload generator (");
        assertThat(out).contains("500 jobs, Poisson arrivals at offered load 0.85");
        Map<String, List<String>> t = table(out, COLUMNS);
        assertThat(t.get("")).containsExactlyElementsOf(COLUMNS);
        assertThat(t).containsKeys("jobs finished", "jobs still queued at the end", "queue wait mean (min)",
                "queue wait p99 (min)", "modelled JCT mean (h)", "slowdown vs ideal placement, mean",
                "slowdown vs ideal placement, p99", "GPU utilisation (GPUs held)", "goodput (held ÷ slowdown)",
                "cross-rail flows per multi-pod job", "cross-leaf flows per multi-pod job", "GPUs at PIX",
                "GPUs at SYS", "share of GPUs at ≤ PXB", "place() time p50 (ms)", "place() time p99 (ms)");
        // no job dropped: finished + still queued = 500 in every column
        for (String c : COLUMNS) {
            assertThat(cell(t, "jobs finished", c) + cell(t, "jobs still queued at the end", c)).as(c)
                    .isEqualTo(500);
        }
        assertThat(out).contains("best baseline by mean JCT: ").contains("railyard vs ");
    }

    /**
     * Acceptance (issues 3 and 18): with jobs coming and going, Railyard keeps every GPU at ≤ PXB (no baseline
     * does on this cluster, whose HGX units have GPUs SYS to every NIC, except Koordinator, which refuses them),
     * crosses rails less than every baseline and has the lowest modelled slowdown.
     */
    @Test
    void railyardKeepsPairsAndRailsAndRunsJobsFastest() {
        Map<String, List<String>> t = table(out, COLUMNS);
        assertThat(cell(t, "share of GPUs at ≤ PXB", "railyard")).isEqualTo(100.0);
        for (String b : BASELINES) {
            assertThat(cell(t, "cross-rail flows per multi-pod job", "railyard")).as("cross-rail vs %s", b)
                    .isLessThan(cell(t, "cross-rail flows per multi-pod job", b));
            assertThat(cell(t, "slowdown vs ideal placement, mean", "railyard")).as("slowdown vs %s", b)
                    .isLessThan(cell(t, "slowdown vs ideal placement, mean", b));
        }
        // cross-leaf: fewer than the rail-blind node-by-node baselines; Volcano and KAI confine a gang to one leaf
        // group first and give up rails for it, Railyard the other way round (docs/simulation.md)
        for (String b : List.of("random", "binpack")) {
            assertThat(cell(t, "cross-leaf flows per multi-pod job", "railyard")).as("cross-leaf vs %s", b)
                    .isLessThan(cell(t, "cross-leaf flows per multi-pod job", b));
        }
    }

    @Test
    void theReportIsAnSvgWithTheThreeCharts() throws Exception {
        Path svg = dir.resolve("report.svg");
        assertThat(out).contains("report: " + svg);
        String text = Files.readString(svg);
        assertThat(text).contains("<svg xmlns='http://www.w3.org/2000/svg'")
                .contains("CDF of modelled slowdown vs ideal placement")
                .contains("CDF of queue wait").contains("GPU utilisation over time");
        for (String c : COLUMNS) {
            assertThat(text).as("legend entry %s", c).contains(">" + c + "<");
        }
    }

    @Test
    void clusterAndTraceFiles(@TempDir Path files) throws Exception {
        // the demo's cluster as a cluster file: copy its files next to each other
        for (String f : List.of("cluster.yaml", "fabric.yaml", "case-01-dgx-h100-8gpu-8nic-1to1.txt",
                "case-05-h100-6nic-2gpu-per-nic.txt", "case-06-pcie-8gpu-8nic-4per-switch-sriov.txt")) {
            try (var in = DemoCluster.resource(f)) {
                Files.copy(in, files.resolve(f));
            }
        }
        Path jobs = files.resolve("jobs.yaml");
        Files.writeString(jobs, """
                jobs:
                  - {name: a, pods: 2, gpus: 8, duration: 10}
                  - {name: b, pods: 1, gpus: 4, duration: 10, railAlignment: required}
                  - {name: c, pods: 40, gpus: 8, duration: 10}
                """);
        CliRun r = CliRun.of("simulate", "--cluster", files.resolve("cluster.yaml").toString(), "--jobs",
                jobs.toString(), "--report", "none");
        assertThat(r.rc()).as(r.err()).isZero();
        Map<String, List<String>> t = table(r.out(), COLUMNS);
        // c needs 40 nodes of 8 GPUs; the demo cluster has 16 nodes: it waits to the end in every column, never
        // dropped, and the other two finish
        assertThat(t.get("jobs still queued at the end")).containsOnly("1");
        assertThat(t.get("jobs finished")).containsOnly("2");
        // Railyard: a takes two free pcie-8gpu nodes (16 PIX GPUs), b 4 PIX GPUs
        assertThat(t.get("GPUs at PIX").get(0)).isEqualTo("20");
        assertThat(r.out()).doesNotContain("report:");
    }

    @Test
    void badInputIsOneLineExitTwo(@TempDir Path files) throws Exception {
        Path jobs = files.resolve("jobs.yaml");
        Files.writeString(jobs, "jobs:\n  - {name: a, pods: 2, gpus: 8}\n");
        assertOneLine(CliRun.of("simulate", "--nodes", "64", "--jobs", jobs.toString()),
                "railyard: " + jobs + ": job a: pods, gpus and duration are required");
        Files.writeString(jobs, "jobs:\n  - {name: a, pods: 2, gpus: 8, duration: 5, commShare: 2}\n");
        assertOneLine(CliRun.of("simulate", "--nodes", "64", "--jobs", jobs.toString()),
                "railyard: " + jobs + ": job a: commShare must be in [0, 1], got 2.0");
        Files.writeString(jobs, "jobs:\n  - {name: a, pods: 2, gpus: 8, duration: 5, collective: tree}\n");
        assertOneLine(CliRun.of("simulate", "--nodes", "64", "--jobs", jobs.toString()),
                "railyard: " + jobs + ": job a: collective 'tree' is not ring-all-reduce or all-to-all");
        assertOneLine(CliRun.of("simulate", "--nodes", "64", "--jobs-mix", "2y8"),
                "railyard: job mix entry '2y8' is not PODSxGPUS[:WEIGHT] with positive numbers");
        assertOneLine(CliRun.of("simulate", "--nodes", "64", "--workload", "borg"),
                "railyard: workload 'borg' is not one of [generator, philly, pai, helios]");
        assertOneLine(CliRun.of("simulate", "--nodes", "64", "--relax-affinity-after", "soon"),
                "railyard: --relax-affinity-after must be seconds ≥ 0 or 'never', got 'soon'");
        assertOneLine(CliRun.of("simulate", "--nodes", "64", "--load", "1.5"),
                "railyard: --load must be a share of GPUs in (0, 1], got 1.5");
        assertOneLine(CliRun.of("simulate", "--nodes", "64", "--model", files.resolve("none.yaml").toString()),
                "railyard: " + files.resolve("none.yaml") + ": no such file");
        Path missing = files.resolve("no/such/dir/r.svg");
        assertOneLine(CliRun.of("simulate", "--nodes", "64", "--job-count", "5", "--report", missing.toString()),
                "railyard: --report " + missing + ": directory " + missing.getParent() + " does not exist");
    }

    private static void assertOneLine(CliRun r, String line) {
        assertThat(r.rc()).as(r.err()).isEqualTo(2);
        assertThat(r.err()).isEqualTo(line + System.lineSeparator());
    }
}
