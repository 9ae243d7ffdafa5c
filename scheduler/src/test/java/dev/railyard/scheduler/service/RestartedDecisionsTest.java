package dev.railyard.scheduler.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.scheduler.cluster.ClusterObjects;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.protocol.AllocationVerdict;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.GangRef;
import dev.railyard.scheduler.engine.NodeScore;
import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.protocol.PodRef;
import dev.railyard.scheduler.protocol.ResourceRequests;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.railyard.scheduler.cluster.ClusterFixtures.ipPool;
import static dev.railyard.scheduler.cluster.ClusterFixtures.nad;
import static dev.railyard.scheduler.cluster.ClusterFixtures.node;
import static dev.railyard.scheduler.cluster.ClusterFixtures.objects;
import static dev.railyard.scheduler.cluster.ClusterFixtures.pod;
import static dev.railyard.scheduler.cluster.ClusterFixtures.podGroup;
import static dev.railyard.scheduler.cluster.ClusterFixtures.seedShape;
import static dev.railyard.scheduler.cluster.ClusterFixtures.topology;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A freshly started {@link EnginePlacementDecisions} (no plans, steered pods or holds in memory: a restarted
 * Railyard) over a cluster whose earlier pods are already bound: the next gang is placed on the GPUs and addresses
 * those pods leave free, judged from the cluster alone (docs/adr/0005). The e2e scenario RailyardVolcanoIT #7 in
 * small.
 *
 * <p>Cluster: four seed-shaped nodes gpu-a..gpu-d (8 GPUs; GPUs 2k, 2k+1 PIX to mlx5_k, which is rail k;
 * {@code ClusterFixtures.seedShape}). The earlier gang "first" holds 4 GPUs on gpu-a and 4 on gpu-b. The next gang
 * "second", 2 pods × 4 GPUs with rail alignment required, may only use gpu-a and gpu-b (required node affinity by
 * hostname, as RailyardVolcanoIT pins it); gpu-c and gpu-d are empty and would take it more cheaply.
 */
class RestartedDecisionsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** GPUs and one slot of each seed HCA resource, as the seed's rdma-test job asks: in Railyard's hint scope. */
    private static final Map<String, Object> FOUR_GPUS = Map.of("nvidia.com/gpu", "4",
            "nvidia.com/mlx5_0", "1", "nvidia.com/mlx5_1", "1", "nvidia.com/mlx5_2", "1", "nvidia.com/mlx5_3", "1");
    private static final Map<String, String> HCA_SLOTS = Map.of("nvidia.com/mlx5_0", "100", "nvidia.com/mlx5_1", "100",
            "nvidia.com/mlx5_2", "100", "nvidia.com/mlx5_3", "100");
    private static final Map<String, String> SECOND = Map.of(GangRef.VOLCANO_GROUP_ANNOTATION, "second");
    private static final List<String> A_AND_B = List.of("gpu-a", "gpu-b");
    private final Clock clock = Clock.fixed(Instant.parse("2026-09-01T00:00:00Z"), ZoneOffset.UTC);

    /** @return the version-1 hint Railyard writes at bind time, for {@code gpus} on {@code node} */
    private static String hint(String node, int... gpus) {
        StringBuilder b = new StringBuilder("{\"version\":1,\"node\":\"" + node
                + "\",\"gang\":\"prod/first\",\"gangSize\":2,\"rank\":0,\"gpus\":[");
        for (int i = 0; i < gpus.length; i++) {
            int g = gpus[i];
            b.append(i == 0 ? "" : ",").append("{\"gpu\":").append(g).append(",\"hca\":\"mlx5_").append(g / 2)
                    .append("\",\"port\":1,\"rail\":").append(g / 2).append(",\"distance\":\"PIX\"}");
        }
        return b.append("]}").toString();
    }

    /** A pending pod of "second" with a required node affinity {@code kubernetes.io/hostname In [gpu-a, gpu-b]}. */
    @SuppressWarnings("unchecked")
    private static GenericKubernetesResource pinned(String name) {
        GenericKubernetesResource p = pod("prod", name, null, SECOND, FOUR_GPUS);
        Map<String, Object> spec = (Map<String, Object>) p.getAdditionalProperties().get("spec");
        spec.put("affinity", Map.of("nodeAffinity", Map.of("requiredDuringSchedulingIgnoredDuringExecution",
                Map.of("nodeSelectorTerms", List.of(Map.of("matchExpressions", List.of(Map.of(
                        "key", "kubernetes.io/hostname", "operator", "In", "values", A_AND_B))))))));
        return p;
    }

    /**
     * @param firstAnnotations annotations of the first gang's pods on gpu-a and gpu-b (their hints, or none)
     */
    private static List<GenericKubernetesResource> cluster(Map<String, String> onA, Map<String, String> onB) {
        List<GenericKubernetesResource> all = new ArrayList<>();
        for (String n : List.of("gpu-a", "gpu-b", "gpu-c", "gpu-d")) {
            all.add(node(n, Map.of("kubernetes.io/hostname", n), HCA_SLOTS));
            all.add(topology(n, seedShape(), null));
        }
        all.add(pod("prod", "first-0", "gpu-a", onA, FOUR_GPUS));
        all.add(pod("prod", "first-1", "gpu-b", onB, FOUR_GPUS));
        all.add(podGroup("prod", "second", 2, Map.of(HintAnnotations.RAIL_ALIGNMENT, "required")));
        all.add(pinned("second-0"));
        all.add(pinned("second-1"));
        return all;
    }

    private EnginePlacementDecisions fresh(List<GenericKubernetesResource> all) {
        ClusterObjects o = objects(all);
        return new EnginePlacementDecisions(() -> o, new IpPoolLedger(clock), new PlacementEngine(), null, 50,
                new SimpleMeterRegistry());
    }

    private static ExtenderPod task(String name) {
        return new ExtenderPod(new PodRef("prod", name, "uid-" + name), Map.of(), SECOND, "volcano",
                new ResourceRequests(Map.of("nvidia.com/gpu", BigDecimal.valueOf(4))),
                GangRef.of("prod", Map.of(), SECOND), null);
    }

    /**
     * Drives the Volcano session for "second" as vc-scheduler does (prioritize, allocateFunc, predicate for the next
     * task) and returns node → the placement hint each pod gets at bind time.
     */
    private static Map<String, JsonNode> placeSecond(EnginePlacementDecisions d) throws Exception {
        List<NodeScore> scores = d.score(task("second-0"), A_AND_B);
        // the gang plan steers second-0: its node gets 100, the other at most 50
        NodeScore top = scores.stream().filter(s -> s.score() == NodeScore.MAX).findFirst().orElseThrow(
                () -> new AssertionError("no node steered for second-0 among gpu-a, gpu-b: " + scores));
        String first = top.node();
        String other = first.equals("gpu-a") ? "gpu-b" : "gpu-a";
        AllocationVerdict allocated = d.allocated(task("second-0"), first);
        assertThat(allocated.accepted()).as(allocated.reason()).isTrue();
        // each node has 4 free GPUs, so second-1 must take the other node, with the same rails
        List<NodeVerdict> verdicts = d.filter(task("second-1"), A_AND_B);
        assertThat(verdicts).filteredOn(v -> v.node().equals(other)).singleElement()
                .isEqualTo(NodeVerdict.pass(other));
        Map<String, JsonNode> hints = new LinkedHashMap<>();
        Map<String, String> h0 = d.bindHints(new PodRef("prod", "second-0", "uid-second-0"), first);
        Map<String, String> h1 = d.bindHints(new PodRef("prod", "second-1", "uid-second-1"), other);
        assertThat(h0.get(HintAnnotations.RAILS)).as("rails of second-0 and second-1")
                .isEqualTo(h1.get(HintAnnotations.RAILS));
        hints.put(first, JSON.readTree(h0.get(HintAnnotations.PLACEMENT)));
        hints.put(other, JSON.readTree(h1.get(HintAnnotations.PLACEMENT)));
        return hints;
    }

    private static Set<Integer> gpus(JsonNode hint) {
        Set<Integer> out = new HashSet<>();
        hint.path("gpus").forEach(g -> out.add(g.path("gpu").asInt()));
        return out;
    }

    @Test
    void theNextGangGetsTheGpusTheHintedPodsLeaveFreeOnTheNodesItMayUse() throws Exception {
        // first-0 and first-1 hold GPUs 4..7 (rails 2 and 3) on gpu-a and gpu-b, as their bind-time hints say
        var d = fresh(cluster(Map.of(HintAnnotations.PLACEMENT, hint("gpu-a", 4, 5, 6, 7)),
                Map.of(HintAnnotations.PLACEMENT, hint("gpu-b", 4, 5, 6, 7))));

        Map<String, JsonNode> hints = placeSecond(d);

        // by hand: rails 0 and 1 (GPUs 0..3) are all that is free on both nodes
        assertThat(hints.keySet()).containsExactlyInAnyOrder("gpu-a", "gpu-b");
        for (var e : hints.entrySet()) {
            assertThat(e.getValue().path("node").asText()).isEqualTo(e.getKey());
            assertThat(gpus(e.getValue())).as("GPUs hinted on %s", e.getKey()).containsExactlyInAnyOrder(0, 1, 2, 3);
        }
    }

    @Test
    void podsBoundWithoutHintsAreCountedByRequestOnTheLowestFreeGpus() throws Exception {
        // no agent, no hints: each first pod is taken to hold the lowest free GPUs 0..3 (rails 0 and 1), so the next
        // gang gets GPUs 4..7; the count is exact, which GPUs is the documented assumption (NodeStateConverter)
        var d = fresh(cluster(Map.of(), Map.of()));

        Map<String, JsonNode> hints = placeSecond(d);

        for (var e : hints.entrySet()) {
            assertThat(gpus(e.getValue())).as("GPUs hinted on %s", e.getKey()).containsExactlyInAnyOrder(4, 5, 6, 7);
        }
    }

    @Test
    void addressesOfBoundPodsWhereaboutsHasNotRecordedStayCounted() {
        // rail0's 192.168.4.0/30 has 2 usable addresses: prod/other holds one in the IPPool; prod/bound is bound to
        // gpu-a and attaches rail0 but whereabouts has not recorded its address yet (its sandbox has not started).
        // A restarted Railyard holds nothing in memory, yet the last address is promised to prod/bound.
        Map<String, String> onRail0 = Map.of(GangRef.VOLCANO_GROUP_ANNOTATION, "pg",
                "k8s.v1.cni.cncf.io/networks", "rail0");
        List<GenericKubernetesResource> all = new ArrayList<>(List.of(
                node("gpu-a", Map.of(), Map.of()), topology("gpu-a", seedShape(), null),
                podGroup("prod", "pg", 1, Map.of()),
                pod("prod", "bound", "gpu-a", onRail0, Map.of()),
                pod("prod", "next", null, onRail0, Map.of()),
                nad("prod", "rail0", "lan2", "192.168.4.0/30"),
                ipPool("kube-system", "192.168.4.0-30", "192.168.4.0/30", List.of("prod/other"))));
        var d = fresh(all);
        ExtenderPod next = new ExtenderPod(new PodRef("prod", "next", "uid-next"), Map.of(), onRail0, "volcano",
                ResourceRequests.NONE, GangRef.of("prod", Map.of(), onRail0), null);

        AllocationVerdict v = d.allocated(next, "gpu-a");

        assertThat(v.accepted()).isFalse();
        // 2 usable − 1 allocated − 1 in flight (prod/bound) = 0 free
        assertThat(v.reason()).contains("192.168.4.0-30").contains("0 of 2 free").contains("1 in flight");

        // once whereabouts records prod/bound's address it counts once, as an allocation: still nothing free
        all.removeIf(o -> "192.168.4.0-30".equals(o.getMetadata().getName()));
        all.add(ipPool("kube-system", "192.168.4.0-30", "192.168.4.0/30", List.of("prod/other", "prod/bound")));
        AllocationVerdict recorded = fresh(all).allocated(next, "gpu-a");
        assertThat(recorded.accepted()).isFalse();
        assertThat(recorded.reason()).contains("0 of 2 free").contains("0 in flight");

        // and when prod/bound finishes without an address, the address is free again
        all.removeIf(o -> "192.168.4.0-30".equals(o.getMetadata().getName()) || "bound".equals(o.getMetadata()
                .getName()));
        all.add(ipPool("kube-system", "192.168.4.0-30", "192.168.4.0/30", List.of("prod/other")));
        GenericKubernetesResource finished = pod("prod", "bound", "gpu-a", onRail0, Map.of());
        finished.setAdditionalProperty("status", Map.of("phase", "Succeeded"));
        all.add(finished);
        AllocationVerdict afterwards = fresh(all).allocated(next, "gpu-a");
        assertThat(afterwards.accepted()).as(afterwards.reason()).isTrue();
    }
}
