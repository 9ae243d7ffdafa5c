package dev.railyard.scheduler.cli;

import dev.railyard.scheduler.explain.Explanation;
import dev.railyard.scheduler.explain.ExplanationJson;
import dev.railyard.scheduler.explain.ExplanationTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Acceptance (issue 10): the demo scenario exported as a snapshot directory
 * ({@code src/test/resources/snapshots/demo}, written by {@code railyard demo --export-snapshot}) gives the same
 * placements through {@code explain --snapshot} as {@code demo} prints; broken snapshot files are named and the
 * other files still used; exit codes 0 / 1 / 2.
 */
class ExplainCommandTest {
    /** {@code rank 0  rdma-test-master-0     -> gpu-a1  rails {0×2,...}  GPU0,1→mlx5_0 PIX  ...} as demo prints it. */
    private static final Pattern DEMO_RANK = Pattern.compile("^  rank \\S+\\s+(\\S+)\\s+-> (\\S+)\\s+rails (\\S+)  (.*)$");

    @TempDir
    Path tmp;

    private static CliRun run(String... args) {
        return CliRun.of(args);
    }

    static Path demoSnapshot() {
        try {
            return Path.of(ExplainCommandTest.class.getResource("/snapshots/demo").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return pod → "node rails pairs" from the explanation's placements */
    private static Map<String, String> placements(Explanation e) {
        Map<String, String> out = new TreeMap<>();
        for (Explanation.Gang g : e.gangs()) {
            for (Explanation.Placement p : g.placements()) {
                out.put(p.pod(), p.node() + " " + p.railSet() + " " + ExplanationTable.pairs(p));
            }
        }
        return out;
    }

    @Test
    void explainOnTheExportedDemoSnapshotGivesTheDemosPlacements() {
        CliRun demo = run("demo", "--verbose", "--svg", tmp.resolve("demo.svg").toString());
        assertThat(demo.rc()).isZero();
        Map<String, String> expected = new TreeMap<>();
        for (String line : demo.out().lines().toList()) {
            Matcher m = DEMO_RANK.matcher(line);
            if (m.matches()) {
                expected.put(m.group(1), m.group(2) + " " + m.group(3) + " " + m.group(4));
            }
        }
        // rdma-test 1 pod, llm-pretrain 4, finetune 2; eval is refused (its pool runs dry)
        assertThat(expected).hasSize(7);
        assertThat(demo.out()).contains("unschedulable: pool 192.168.16.0-22 exhausted");

        Path snap = demoSnapshot();
        CliRun explain = run("explain", "job", snap.resolve("jobs.yaml").toString(), "--snapshot", snap.toString(),
                "--output", "json");

        assertThat(explain.err()).isEmpty();
        assertThat(explain.rc()).as("eval is unschedulable").isEqualTo(1);
        Explanation e = ExplanationJson.read(explain.out());
        assertThat(e.warnings()).isEmpty();
        assertThat(e.source().fabric()).isEqualTo("Volcano HyperNodes");
        assertThat(placements(e)).isEqualTo(expected);
        assertThat(e.gangs()).extracting(Explanation.Gang::gang, Explanation.Gang::status).containsExactly(
                org.assertj.core.groups.Tuple.tuple("prod/rdma-test", "schedulable"),
                org.assertj.core.groups.Tuple.tuple("prod/llm-pretrain", "schedulable"),
                org.assertj.core.groups.Tuple.tuple("prod/finetune", "schedulable"),
                org.assertj.core.groups.Tuple.tuple("prod/eval", "unschedulable"));
        // each job sees the earlier ones placed: rdma-test took all 8 GPUs of gpu-a1 before finetune was planned
        assertThat(e.gangs().get(2).nodes()).filteredOn(n -> n.node().equals("gpu-a1")).singleElement()
                .satisfies(n -> {
                    assertThat(n.freeGpus()).isZero();
                    assertThat(n.gpuAccounting()).isEqualTo("what-if: prod/rdma-test GPUs [0, 1, 2, 3, 4, 5, 6, 7]");
                });
        Explanation.Gang eval = e.gangs().get(3);
        assertThat(eval.reasons()).singleElement().satisfies(r -> {
            assertThat(r.code()).isEqualTo("POOL_EXHAUSTED");
            assertThat(r.summary()).isEqualTo("pool 192.168.16.0-22 exhausted");
        });
        // lan5: 1015 of 1022 allocated (3 stale), and jobs 1-3 hold 1 + 4 + 2 = 7 in flight
        assertThat(eval.pools()).filteredOn(l -> "prod/rdma-net-ipam-lan5".equals(l.network())).singleElement()
                .satisfies(l -> {
                    assertThat(List.of(l.usable(), l.allocated(), l.stale(), l.inFlight(), l.free(), l.needed()))
                            .containsExactly(1022L, 1015L, 3L, 7L, 0L, 1L);
                    assertThat(l.staleHolders()).extracting(Explanation.StaleHolder::podRef).containsExactly(
                            "prod/batch-lan5-1013", "prod/batch-lan5-1014", "prod/batch-lan5-1015");
                });
    }

    @Test
    void theCommittedSnapshotIsWhatDemoExportWrites() throws IOException {
        CliRun export = run("demo", "--export-snapshot", tmp.toString());
        assertThat(export.rc()).isZero();
        Path committed = demoSnapshot();
        TreeSet<String> written = new TreeSet<>();
        try (Stream<Path> files = Files.list(tmp)) {
            files.forEach(p -> written.add(p.getFileName().toString()));
        }
        TreeSet<String> shipped = new TreeSet<>();
        try (Stream<Path> files = Files.list(committed)) {
            files.forEach(p -> shipped.add(p.getFileName().toString()));
        }
        assertThat(shipped).isEqualTo(written);
        for (String f : written) {
            assertThat(Files.readString(committed.resolve(f)))
                    .as("%s differs from a fresh export: regenerate with 'railyard demo --export-snapshot "
                            + "scheduler/src/test/resources/snapshots/demo'", f)
                    .isEqualTo(Files.readString(tmp.resolve(f)));
        }
    }

    @Test
    void brokenSnapshotObjectsAreNamedAndTheOtherObjectsStillUsed() throws IOException {
        Path snap = tmp.resolve("snap");
        Files.createDirectories(snap);
        try (Stream<Path> files = Files.list(demoSnapshot())) {
            for (Path p : files.toList()) {
                Files.copy(p, snap.resolve(p.getFileName()));
            }
        }
        // nodes.yaml's last item (gpu-c4) without its metadata, the list itself complete (a cut file is bad
        // input: aSnapshotFileCutMidwayIsBadInputNotAnEmptierCluster)
        String nodes = Files.readString(snap.resolve("nodes.yaml"));
        int last = nodes.lastIndexOf("  - apiVersion: v1\n    kind: Node\n");
        Files.writeString(snap.resolve("nodes.yaml"), nodes.substring(0, last) + "  - apiVersion: v1\n    kind: Node\n"
                + "kind: List\n");

        CliRun r = run("explain", "job", snap.resolve("jobs.yaml").toString(), "--snapshot", snap.toString(), "-o",
                "json");

        assertThat(r.rc()).isEqualTo(1);
        Explanation e = ExplanationJson.read(r.out());
        assertThat(e.warnings()).contains("nodes.yaml document 1 items[15] (Node (no name)): metadata is missing; "
                + "skipped", "NodeTopology gpu-c4: no Node of that name; ignored");
        // every other file is still used: the demo's first placements are unchanged, gpu-c4 is gone
        assertThat(placements(e)).containsEntry("rdma-test-master-0", "gpu-a1 {0×2,1×2,2×2,3×2} GPU0,1→mlx5_0 PIX  "
                + "GPU2,3→mlx5_1 PIX  GPU4,5→mlx5_2 PIX  GPU6,7→mlx5_3 PIX");
        assertThat(e.gangs().get(0).nodes()).extracting(Explanation.NodeEntry::node).hasSize(15)
                .doesNotContain("gpu-c4");

        // the table names them too
        CliRun table = run("pools", "--snapshot", snap.toString());
        assertThat(table.rc()).isZero();
        assertThat(table.out()).contains("warnings:\n  ").contains("nodes.yaml document 1 items[15]");
    }

    @Test
    void aSnapshotFileCutMidwayIsBadInputNotAnEmptierCluster() throws IOException {
        Path snap = tmp.resolve("snap");
        Files.createDirectories(snap);
        try (Stream<Path> files = Files.list(demoSnapshot())) {
            for (Path p : files.toList()) {
                Files.copy(p, snap.resolve(p.getFileName()));
            }
        }
        // pods.yaml (one kind: List) cut in the middle of a line: "      namesp" is a key without its ':'
        String pods = Files.readString(snap.resolve("pods.yaml"));
        int cut = pods.indexOf("namespace: prod", pods.length() / 2) + "namesp".length();
        Files.writeString(snap.resolve("pods.yaml"), pods.substring(0, cut));

        // was: every pod dropped with a warning at the end, all GPUs free, "would be placed", exit 0
        CliRun r = run("explain", "job", snap.resolve("jobs.yaml").toString(), "--snapshot", snap.toString());
        assertThat(r.rc()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        // the reader's place: the end of the line before the cut ("      name: batch-lan5-49", 25 characters), where
        // the key "namesp" would have needed its ':'
        assertThat(r.err()).isEqualTo("railyard: snapshot " + snap + ": pods.yaml line 2837, column 26 (document 1): "
                + "while scanning a simple key: could not find expected ':'; fix or remove the file: read in part, its "
                + "missing objects would look absent (their GPUs free, their addresses unused)\n");
        assertThat(r.err().lines().count()).isEqualTo(1);
    }

    @Test
    void aBadHintInAWhatIfNamesTheFileJobAndTask() throws IOException {
        Path job = tmp.resolve("job.yaml");
        Files.writeString(job, """
                apiVersion: batch.volcano.sh/v1alpha1
                kind: Job
                metadata: {name: ring, namespace: prod}
                spec:
                  tasks:
                    - name: worker
                      replicas: 2
                      template:
                        metadata:
                          annotations: {railyard.dev/fabric-scope: rack-ish}
                        spec:
                          containers: [{name: main, resources: {limits: {nvidia.com/gpu: 4}}}]
                """);
        // was: "railyard: annotation railyard.dev/fabric-scope: 'rack-ish' is not node, ..." (no file, job or task)
        CliRun r = run("explain", "job", job.toString(), "--snapshot", demoSnapshot().toString());
        assertThat(r.rc()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("railyard: " + job + " document 1 (Job prod/ring): spec.tasks[0] (task worker)"
                + ".template.metadata.annotations: annotation railyard.dev/fabric-scope: 'rack-ish' is not node, "
                + "leaf, spine, core, any or a tier number\n");

        // on the Job itself
        Files.writeString(job, Files.readString(job).replace("metadata: {name: ring, namespace: prod}",
                "metadata: {name: ring, namespace: prod, annotations: {railyard.dev/rail-alignment: always}}"));
        r = run("explain", "job", job.toString(), "--snapshot", demoSnapshot().toString());
        assertThat(r.err()).isEqualTo("railyard: " + job + " document 1 (Job prod/ring): metadata.annotations: "
                + "annotation railyard.dev/rail-alignment: 'always' is not required, preferred or ignore\n");
    }

    @Test
    void exitCodesAndOneLineErrors() {
        Path snap = demoSnapshot();
        CliRun missing = run("pools", "--snapshot", tmp.resolve("nope").toString());
        assertThat(missing.rc()).isEqualTo(2);
        assertThat(missing.err()).isEqualTo("railyard: snapshot " + tmp.resolve("nope") + ": not a directory\n");

        CliRun badOutput = run("pools", "--snapshot", snap.toString(), "-o", "yaml");
        assertThat(badOutput.rc()).isEqualTo(2);
        assertThat(badOutput.err()).isEqualTo("railyard: --output yaml: use table or json\n");

        CliRun badName = run("explain", "job", "a/b/c", "--snapshot", snap.toString());
        assertThat(badName.rc()).isEqualTo(2);
        assertThat(badName.err()).isEqualTo("railyard: 'a/b/c': expected NAMESPACE/NAME\n");

        CliRun unknown = run("explain", "pod", "prod/nope", "--snapshot", snap.toString());
        assertThat(unknown.rc()).isEqualTo(2);
        assertThat(unknown.err()).isEqualTo("railyard: no pod prod/nope in the cluster objects\n");

        // a job named NS/NAME that is only a Volcano Job in the snapshot: placed on the fresh cluster
        CliRun job = run("explain", "job", "prod/rdma-test", "--snapshot", snap.toString());
        assertThat(job.rc()).isZero();
        assertThat(job.out()).contains("== Volcano Job prod/rdma-test (PodGroup prod/rdma-test, minMember 1): "
                + "would be placed").contains("rdma-test-master-0  gpu-a1");

        CliRun pools = run("pools", "--snapshot", snap.toString());
        assertThat(pools.rc()).isZero();
        assertThat(pools.out()).contains("prod/rdma-net-ipam-lan5  lan5    192.168.16.0-22  kube-system  1022    "
                + "1015       0         0          3      7     ok")
                .contains("stale in 192.168.16.0-22: 192.168.19.245 (prod/batch-lan5-1013 net1), "
                        + "192.168.19.246 (prod/batch-lan5-1014 net1), 192.168.19.247 (prod/batch-lan5-1015 net1)");
    }
}
