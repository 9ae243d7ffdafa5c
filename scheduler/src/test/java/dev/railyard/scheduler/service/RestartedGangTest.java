package dev.railyard.scheduler.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.scheduler.cluster.ClusterObjects;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.GangRef;
import dev.railyard.scheduler.engine.NodeScore;
import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.protocol.PodRef;
import dev.railyard.scheduler.protocol.ResourceRequests;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static dev.railyard.scheduler.cluster.ClusterFixtures.node;
import static dev.railyard.scheduler.cluster.ClusterFixtures.objects;
import static dev.railyard.scheduler.cluster.ClusterFixtures.pod;
import static dev.railyard.scheduler.cluster.ClusterFixtures.podGroup;
import static dev.railyard.scheduler.cluster.ClusterFixtures.seedShape;
import static dev.railyard.scheduler.cluster.ClusterFixtures.topology;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 5 (docs/adr/0005): a gang that kube-scheduler binds one pod at a time, interrupted by a Railyard restart. A
 * freshly started {@link EnginePlacementDecisions} (no plan in memory) must place the rest on the rail set, under the
 * leaf and with the ranks the bound members' {@code railyard.dev/placement} hints give.
 *
 * <p>Cluster: eight seed-shaped nodes (8 GPUs; GPUs 2k and 2k+1 PIX to mlx5_k, rail k; {@code ClusterFixtures
 * .seedShape}); gpu-a..gpu-d carry the labels leaf-1 / spine-1, gpu-e..gpu-h leaf-2 / spine-1 (topograph tree keys).
 * Gang "train": PodGroup with {@code rail-alignment: required} and {@code fabric-scope: leaf}, four pods × 4 GPUs.
 * train-0 is bound to gpu-a and train-1 to gpu-b, each on GPUs 0..3 (rails {0,1}), ranks 0 and 1. Another job holds
 * GPUs 4..7 of gpu-c and gpu-d. gpu-e..gpu-h are empty.
 *
 * <p>By hand: rails {0,1} under leaf-1 are free only on gpu-c and gpu-d (GPUs 0..3 each, one pod each; gpu-a and
 * gpu-b have rails 2 and 3 left), so train-2 goes to gpu-c and train-3 to gpu-d, ranks 2 and 3. Planned on its own
 * (Railyard before issue 5), the rest of the gang would share one empty node of leaf-2 with ranks 0 and 1.
 */
class RestartedGangTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** GPUs and one slot of each seed HCA resource, as the seed's rdma-test job asks: in Railyard's hint scope. */
    private static final Map<String, Object> FOUR_GPUS = Map.of("nvidia.com/gpu", "4",
            "nvidia.com/mlx5_0", "1", "nvidia.com/mlx5_1", "1", "nvidia.com/mlx5_2", "1", "nvidia.com/mlx5_3", "1");
    private static final Map<String, String> HCA_SLOTS = Map.of("nvidia.com/mlx5_0", "100", "nvidia.com/mlx5_1", "100",
            "nvidia.com/mlx5_2", "100", "nvidia.com/mlx5_3", "100");
    private static final Map<String, String> TRAIN = Map.of(GangRef.VOLCANO_GROUP_ANNOTATION, "train");
    private static final List<String> NODES = List.of("gpu-a", "gpu-b", "gpu-c", "gpu-d", "gpu-e", "gpu-f", "gpu-g",
            "gpu-h");
    private final Clock clock = Clock.fixed(Instant.parse("2026-09-01T00:00:00Z"), ZoneOffset.UTC);

    /** @return the version-1 hint Railyard writes at bind time for {@code gpus} of the seed shape on {@code node} */
    private static String hint(String gang, String node, int rank, int... gpus) {
        StringBuilder b = new StringBuilder("{\"version\":1,\"node\":\"" + node + "\",\"gang\":\"" + gang
                + "\",\"gangSize\":4,\"rank\":" + rank + ",\"gpus\":[");
        for (int i = 0; i < gpus.length; i++) {
            int g = gpus[i];
            b.append(i == 0 ? "" : ",").append("{\"gpu\":").append(g).append(",\"hca\":\"mlx5_").append(g / 2)
                    .append("\",\"port\":1,\"rail\":").append(g / 2).append(",\"distance\":\"PIX\"}");
        }
        return b.append("]}").toString();
    }

    private static Map<String, String> trainHint(String node, int rank) {
        Map<String, String> a = new LinkedHashMap<>(TRAIN);
        a.put(HintAnnotations.PLACEMENT, hint("prod/train", node, rank, 0, 1, 2, 3));
        return a;
    }

    /** @param train1 annotations of train-1 on gpu-b (with or without its hint) */
    private static List<GenericKubernetesResource> cluster(Map<String, String> train1) {
        List<GenericKubernetesResource> all = new ArrayList<>();
        for (String n : NODES) {
            String leaf = n.compareTo("gpu-e") < 0 ? "leaf-1" : "leaf-2";
            all.add(node(n, Map.of("network.topology.nvidia.com/leaf", leaf,
                    "network.topology.nvidia.com/spine", "spine-1"), HCA_SLOTS));
            all.add(topology(n, seedShape(), null));
        }
        all.add(podGroup("prod", "train", 4, Map.of(HintAnnotations.RAIL_ALIGNMENT, "required",
                HintAnnotations.FABRIC_SCOPE, "leaf")));
        all.add(pod("prod", "train-0", "gpu-a", trainHint("gpu-a", 0), FOUR_GPUS));
        all.add(pod("prod", "train-1", "gpu-b", train1, FOUR_GPUS));
        all.add(pod("prod", "train-2", null, TRAIN, FOUR_GPUS));
        all.add(pod("prod", "train-3", null, TRAIN, FOUR_GPUS));
        for (String n : List.of("gpu-c", "gpu-d")) {
            all.add(pod("prod", "other-" + n, n, Map.of(HintAnnotations.PLACEMENT,
                    hint("prod/other", n, 0, 4, 5, 6, 7)), FOUR_GPUS));
        }
        return all;
    }

    private static ClusterObjects at(long version, List<GenericKubernetesResource> all) {
        ClusterObjects o = objects(all);
        return new ClusterObjects(o.takenAt(), version, o.objects(), o.disabled(), o.synced());
    }

    private EnginePlacementDecisions fresh(AtomicReference<ClusterObjects> objects) {
        return new EnginePlacementDecisions(objects::get, new IpPoolLedger(clock), new PlacementEngine(), null, 50,
                new SimpleMeterRegistry());
    }

    /** The pod as kube-scheduler's extender call carries it. */
    private static ExtenderPod kubePod(String name) {
        return new ExtenderPod(new PodRef("prod", name, "uid-" + name), Map.of(), TRAIN, "default-scheduler",
                new ResourceRequests(Map.of("nvidia.com/gpu", BigDecimal.valueOf(4))),
                GangRef.of("prod", Map.of(), TRAIN), null);
    }

    /** kube-scheduler's cycle for one pod: filter, prioritize over the nodes that passed, bind on the best. */
    private static Map<String, String> schedule(EnginePlacementDecisions d, String pod, String expectedNode) {
        List<String> passed = d.filter(kubePod(pod), NODES).stream().filter(v -> v.equals(NodeVerdict.pass(v.node())))
                .map(NodeVerdict::node).toList();
        assertThat(passed).as("nodes passing Filter for %s", pod).contains(expectedNode);
        List<NodeScore> scores = d.score(kubePod(pod), passed);
        NodeScore best = scores.stream().max(java.util.Comparator.comparingInt(NodeScore::score)).orElseThrow();
        assertThat(best.node()).as("best score for %s among %s", pod, scores).isEqualTo(expectedNode);
        assertThat(best.score()).isEqualTo(NodeScore.MAX);
        return d.bindHints(new PodRef("prod", pod, "uid-" + pod), best.node());
    }

    private static void assertHint(Map<String, String> annotations, String node, int rank) throws Exception {
        assertThat(annotations.get(HintAnnotations.RAILS)).isEqualTo("0,0,1,1");
        assertThat(annotations.get(HintAnnotations.RANK)).isEqualTo(Integer.toString(rank));
        JsonNode h = JSON.readTree(annotations.get(HintAnnotations.PLACEMENT));
        assertThat(h.path("node").asText()).isEqualTo(node);
        assertThat(h.path("gang").asText()).isEqualTo("prod/train");
        assertThat(h.path("gangSize").asInt()).isEqualTo(4);
        List<Integer> gpus = new ArrayList<>();
        h.path("gpus").forEach(g -> gpus.add(g.path("gpu").asInt()));
        assertThat(gpus).containsExactly(0, 1, 2, 3);
        List<String> leaves = new ArrayList<>();
        h.path("fabric").forEach(f -> leaves.add(f.path("rail").asInt() + ":" + f.path("leaf").asText()));
        assertThat(leaves).containsExactly("0:leaf-1", "1:leaf-1");
    }

    /** Binds {@code pod} to {@code node} with the annotations Railyard's bind wrote, as the API server would. */
    private static List<GenericKubernetesResource> bind(List<GenericKubernetesResource> all, String pod, String node,
                                                         Map<String, String> hints) {
        List<GenericKubernetesResource> next = new ArrayList<>(all);
        next.removeIf(o -> o.getKind().equals("Pod") && o.getMetadata().getName().equals(pod));
        Map<String, String> a = new LinkedHashMap<>(TRAIN);
        a.putAll(hints);
        next.add(pod("prod", pod, node, a, FOUR_GPUS));
        return next;
    }

    @Test
    void aRestartedRailyardPlacesTheRestOfTheGangOnTheBoundMembersRailsLeafAndRanks() throws Exception {
        List<GenericKubernetesResource> all = cluster(trainHint("gpu-b", 1));
        AtomicReference<ClusterObjects> objects = new AtomicReference<>(at(1, all));
        EnginePlacementDecisions restarted = fresh(objects);

        // Filter: gpu-a, gpu-b have only rails 2, 3 free (required alignment refuses them), leaf-2 is outside scope
        List<NodeVerdict> verdicts = restarted.filter(kubePod("train-2"), NODES);
        assertThat(verdicts).filteredOn(v -> v.equals(NodeVerdict.pass(v.node()))).extracting(NodeVerdict::node)
                .containsExactly("gpu-c", "gpu-d");

        Map<String, String> h2 = schedule(restarted, "train-2", "gpu-c");
        assertHint(h2, "gpu-c", 2);

        // kube-scheduler binds train-2; then schedules train-3 over the updated cluster
        all = bind(all, "train-2", "gpu-c", h2);
        objects.set(at(2, all));
        Map<String, String> h3 = schedule(restarted, "train-3", "gpu-d");
        assertHint(h3, "gpu-d", 3);

        // and a second restart between the two binds gives train-3 the same answer
        assertHint(schedule(fresh(objects), "train-3", "gpu-d"), "gpu-d", 3);
    }

    @Test
    void aMemberBoundWithoutAHintCountsByItsNodeOnlyAndIsLoggedOnce() throws Exception {
        // train-1 was bound while the hint webhook was down: it holds GPUs 0..3 of gpu-b by the request-count rule,
        // its rails and rank are unknown. The rail set comes from train-0 alone; rank 1 is set aside for train-1.
        List<GenericKubernetesResource> all = cluster(TRAIN);
        AtomicReference<ClusterObjects> objects = new AtomicReference<>(at(1, all));
        EnginePlacementDecisions restarted = fresh(objects);

        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        Map<String, String> h2;
        try {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            h2 = schedule(restarted, "train-2", "gpu-c");
            objects.set(at(2, all)); // a new view: the gang is planned again, the log line is not repeated
            schedule(restarted, "train-2", "gpu-c");
        } finally {
            System.setErr(err);
        }
        assertHint(h2, "gpu-c", 2);
        String line = "gang prod/train: member prod/train-1 is bound to gpu-b without a railyard.dev/placement hint: "
                + "counted by its node only (its rails and rank are unknown)";
        assertThat(captured.toString(StandardCharsets.UTF_8).split("\n")).filteredOn(l -> l.contains(line))
                .hasSize(1);

        // when the backfill then writes train-1's hint, it gets the rank set aside for it and the gang's rails
        Map<String, String> h1 = restarted.bindHints(new PodRef("prod", "train-1", "uid-train-1"), "gpu-b");
        assertHint(h1, "gpu-b", 1);
    }

    @Test
    void aPodBoundElsewhereThanPlannedStillGetsTheGangsRailsAndItsRank() throws Exception {
        // the plan says train-2 → gpu-c; kube-scheduler's own scoring picks gpu-d, which has rails {0,1} free too
        List<GenericKubernetesResource> all = cluster(trainHint("gpu-b", 1));
        AtomicReference<ClusterObjects> objects = new AtomicReference<>(at(1, all));
        EnginePlacementDecisions restarted = fresh(objects);
        restarted.score(kubePod("train-2"), List.of("gpu-c", "gpu-d"));

        assertHint(restarted.bindHints(new PodRef("prod", "train-2", "uid-train-2"), "gpu-d"), "gpu-d", 2);
    }

    @Test
    void aMemberBackfilledOffTheGangsRailsSaysSoAndDoesNotMoveTheGangsRailSet() throws Exception {
        // train-1 was bound while Railyard was down, without a hint, to gpu-e, where another job holds GPUs 0..3
        // (rails 0 and 1). The restarted Railyard backfills its hint: the gang's rail set is train-0's {0×2,1×2}
        // (its bound members' hints), which gpu-e cannot offer, so the node's best pairing (GPUs 4..7, rails 2 and
        // 3) with railChoice saying so (docs/hints.md); its rank is the one train-0 leaves it among train-1..3 (1), and
        // gangSize counts all four.
        List<GenericKubernetesResource> all = new ArrayList<>(cluster(TRAIN));
        all.removeIf(o -> o.getKind().equals("Pod") && o.getMetadata().getName().equals("train-1"));
        all.add(pod("prod", "train-1", "gpu-e", TRAIN, FOUR_GPUS));
        all.add(pod("prod", "other-gpu-e", "gpu-e", Map.of(HintAnnotations.PLACEMENT,
                hint("prod/other", "gpu-e", 0, 0, 1, 2, 3)), FOUR_GPUS));
        AtomicReference<ClusterObjects> objects = new AtomicReference<>(at(1, all));
        EnginePlacementDecisions restarted = fresh(objects);

        Map<String, String> h1 = restarted.bindHints(new PodRef("prod", "train-1", "uid-train-1"), "gpu-e");

        assertThat(h1.get(HintAnnotations.RAILS)).isEqualTo("2,2,3,3");
        assertThat(h1.get(HintAnnotations.RANK)).isEqualTo("1");
        JsonNode hint = JSON.readTree(h1.get(HintAnnotations.PLACEMENT));
        assertThat(hint.path("gang").asText()).isEqualTo("prod/train");
        assertThat(hint.path("gangSize").asInt()).isEqualTo(4);
        List<Integer> gpus = new ArrayList<>();
        hint.path("gpus").forEach(g -> gpus.add(g.path("gpu").asInt()));
        assertThat(gpus).containsExactly(4, 5, 6, 7);
        JsonNode choice = hint.path("railChoice");
        assertThat(choice.path("source").asText()).isEqualTo("node-best");
        assertThat(choice.has("plannedNode")).as("no plan after the restart").isFalse();
        assertThat(choice.path("gangRails").asText()).isEqualTo("0,0,1,1");
        assertThat(choice.path("reason").asText()).isEqualTo("the node's best pairing: gpu-e cannot offer rail set "
                + "{0×2,1×2}: qualifying free GPUs per rail [0, 0, 2, 2]");

        // the backfill patch lands; train-1's rails {2,3} are off the gang's by its own hint, so they do not vote: the
        // rest keeps train-0's rails {0,1} (were train-1 counted, {2,3} on gpu-a and gpu-b would be 1 hop cheaper:
        // 3 + 4 + 1 against 4 + 4 + 1). On {0,1} the cheapest pair is gpu-c and gpu-d (leaf-1, 4 hops each to
        // gpu-a and gpu-e, 1 between them; no GPU left stranded), ranks after train-0's 0 and train-1's 1
        all.removeIf(o -> o.getKind().equals("Pod") && o.getMetadata().getName().equals("train-1"));
        Map<String, String> a = new LinkedHashMap<>(TRAIN);
        a.putAll(h1);
        all.add(pod("prod", "train-1", "gpu-e", a, FOUR_GPUS));
        objects.set(at(2, all));
        assertHint(schedule(restarted, "train-2", "gpu-c"), "gpu-c", 2);
    }
}
