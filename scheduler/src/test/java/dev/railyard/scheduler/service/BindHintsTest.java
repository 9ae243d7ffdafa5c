package dev.railyard.scheduler.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.api.volcano.PodGroup;
import dev.railyard.scheduler.cluster.ClusterView;
import dev.railyard.scheduler.cluster.PodView;
import dev.railyard.scheduler.engine.GangPlan;
import dev.railyard.scheduler.engine.GangRequest;
import dev.railyard.scheduler.engine.GangSession;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.scheduler.engine.PlacementPolicy;
import dev.railyard.scheduler.engine.PlannedPod;
import dev.railyard.scheduler.engine.PodRequest;
import dev.railyard.scheduler.input.RateLimitedLog;
import dev.railyard.scheduler.protocol.GangRef;
import dev.railyard.scheduler.protocol.PodRef;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.railyard.scheduler.cluster.ClusterFixtures.node;
import static dev.railyard.scheduler.cluster.ClusterFixtures.objects;
import static dev.railyard.scheduler.cluster.ClusterFixtures.pod;
import static dev.railyard.scheduler.cluster.ClusterFixtures.podGroup;
import static dev.railyard.scheduler.cluster.ClusterFixtures.seedHint;
import static dev.railyard.scheduler.cluster.ClusterFixtures.seedShape;
import static dev.railyard.scheduler.cluster.ClusterFixtures.topology;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link BindHints} on its own, over views of seed-shaped nodes (8 GPUs, HCAs mlx5_0..3; GPUs 2k and 2k+1 PIX to
 * mlx5_k, which is rail k; {@code ClusterFixtures.seedShape}), with the gang decision given by the test: the plan
 * entry a pod was steered by, the gang's bound members read from the view, the backfill of a bound pod, and the
 * cases without hints. The same paths through {@link EnginePlacementDecisions} are locked by
 * {@code EnginePlacementDecisionsTest}, {@code RestartedGangTest} and {@code DecisionEventsTest}.
 */
class BindHintsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, String> HCA_SLOTS = Map.of("nvidia.com/mlx5_0", "100", "nvidia.com/mlx5_1", "100",
            "nvidia.com/mlx5_2", "100", "nvidia.com/mlx5_3", "100");
    /** GPUs and one slot of each seed HCA resource: in Railyard's hint scope. */
    private static final Map<String, Object> FOUR_GPUS = Map.of("nvidia.com/gpu", "4",
            "nvidia.com/mlx5_0", "1", "nvidia.com/mlx5_1", "1", "nvidia.com/mlx5_2", "1", "nvidia.com/mlx5_3", "1");
    private static final Map<String, String> TRAIN = Map.of(GangRef.VOLCANO_GROUP_ANNOTATION, "train");

    /** A decider for paths that must not ask for the gang decision. */
    private static final BindHints.Decider NOT_ASKED = (view, pod) -> {
        throw new AssertionError("gang decision asked for " + pod.ref());
    };

    private final PlacementEngine engine = new PlacementEngine();
    private final GangSession session = new GangSession(engine);
    private final GangReader reader = new GangReader();
    /** The rate-limited lines, as "LEVEL line" (the clock stands still: one line per key is written). */
    private final List<String> logged = new ArrayList<>();
    private final RateLimitedLog lines = new RateLimitedLog(Duration.ofSeconds(10), () -> 0L,
            (level, line, thrown) -> logged.add(level + " " + line));

    private BindHints hints(ClusterView view, BindHints.Decider decider) {
        return new BindHints(() -> view, engine, session, reader, lines, decider);
    }

    private static ClusterView view(List<GenericKubernetesResource> all) {
        return ClusterView.of(objects(all), null, null);
    }

    private static Map<String, String> with(Map<String, String> a, String key, String value) {
        Map<String, String> out = new LinkedHashMap<>(a);
        out.put(key, value);
        return out;
    }

    private static JsonNode placement(Map<String, String> hints) throws Exception {
        return JSON.readTree(hints.get(HintAnnotations.PLACEMENT));
    }

    private static List<Integer> gpus(JsonNode hint) {
        List<Integer> out = new ArrayList<>();
        hint.path("gpus").forEach(g -> out.add(g.path("gpu").asInt()));
        return out;
    }

    // --- (a) a pod steered by its plan, bound to the planned node ---

    /** gpu-a with GPUs 4..7 held by another job (its hint): GPUs 0..3 (rails 0 and 1) are all that is free. */
    private static List<GenericKubernetesResource> halfFullNode(List<GenericKubernetesResource> more) {
        List<GenericKubernetesResource> all = new ArrayList<>(List.of(node("gpu-a", Map.of(), HCA_SLOTS),
                topology("gpu-a", seedShape(), null),
                pod("prod", "other", "gpu-a", Map.of(HintAnnotations.PLACEMENT,
                        seedHint("prod/other", "gpu-a", 1, 0, 4, 5, 6, 7)), FOUR_GPUS)));
        all.addAll(more);
        return all;
    }

    @Test
    void aPodSteeredByItsPlanAndBoundToThePlannedNodeGetsThePlansHints() throws Exception {
        ClusterView view = view(halfFullNode(List.of(podGroup("prod", "pg", 1, Map.of()),
                pod("prod", "p0", null, Map.of(GangRef.VOLCANO_GROUP_ANNOTATION, "pg"), FOUR_GPUS))));
        PodRequest request = view.request(view.pod("prod/p0"));
        GangPlan plan = engine.plan(view.snapshot(), new GangRequest("prod", "pg", List.of(request),
                PlacementPolicy.defaults())).plan();
        PlannedPod planned = plan.pods().get(0);
        session.steered("prod/p0", new GangSession.Steered(view.snapshot(), plan, planned, request));

        Map<String, String> hints = hints(view, NOT_ASKED).of(new PodRef("prod", "p0", "uid-p0"), "gpu-a");

        // by hand: the plan can only give p0 gpu-a's free GPUs 0..3; GPUs 0, 1 pair PIX with mlx5_0 (rail 0) and
        // GPUs 2, 3 with mlx5_1 (rail 1)
        assertThat(planned.node()).isEqualTo("gpu-a");
        JsonNode hint = placement(hints);
        assertThat(hint.path("node").asText()).isEqualTo("gpu-a");
        assertThat(gpus(hint)).containsExactly(0, 1, 2, 3);
        assertThat(hints).containsEntry(HintAnnotations.RAILS, "0,0,1,1")
                .containsEntry(HintAnnotations.NCCL_IB_HCA, "=mlx5_0:1,mlx5_1:1");
        // the plan's own hint: no railChoice, the PodGroup as the gang
        assertThat(hint.has("railChoice")).isFalse();
        assertThat(hint.path("gang").asText()).isEqualTo("prod/pg");
        assertThat(logged).isEmpty();
    }

    // --- (b) a gang pod bound to another node than planned: OffPlanHints with the gang's side ---

    /**
     * RestartedGangTest's cluster: gpu-a..gpu-d under leaf-1, gpu-e..gpu-h under leaf-2 (all spine-1). Gang "train"
     * ({@code rail-alignment: required}, {@code fabric-scope: leaf}), four pods × 4 GPUs: train-0 bound to gpu-a and
     * train-1 to gpu-b, each on GPUs 0..3 (rails 0, 1) with ranks 0 and 1 in their hints; train-2 and train-3
     * pending. Another job holds GPUs 4..7 of gpu-c and gpu-d. So the plan puts train-2 on gpu-c and train-3 on
     * gpu-d (the only free rails {0,1} under leaf-1; derived in RestartedGangTest), ranks 2 and 3.
     */
    private static ClusterView trainCluster() {
        List<GenericKubernetesResource> all = new ArrayList<>();
        for (String n : List.of("gpu-a", "gpu-b", "gpu-c", "gpu-d", "gpu-e", "gpu-f", "gpu-g", "gpu-h")) {
            all.add(node(n, Map.of("network.topology.nvidia.com/leaf", n.compareTo("gpu-e") < 0 ? "leaf-1" : "leaf-2",
                    "network.topology.nvidia.com/spine", "spine-1"), HCA_SLOTS));
            all.add(topology(n, seedShape(), null));
        }
        all.add(podGroup("prod", "train", 4, Map.of(HintAnnotations.RAIL_ALIGNMENT, "required",
                HintAnnotations.FABRIC_SCOPE, "leaf")));
        all.add(pod("prod", "train-0", "gpu-a", with(TRAIN, HintAnnotations.PLACEMENT,
                seedHint("prod/train", "gpu-a", 4, 0, 0, 1, 2, 3)), FOUR_GPUS));
        all.add(pod("prod", "train-1", "gpu-b", with(TRAIN, HintAnnotations.PLACEMENT,
                seedHint("prod/train", "gpu-b", 4, 1, 0, 1, 2, 3)), FOUR_GPUS));
        all.add(pod("prod", "train-2", null, TRAIN, FOUR_GPUS));
        all.add(pod("prod", "train-3", null, TRAIN, FOUR_GPUS));
        for (String n : List.of("gpu-c", "gpu-d")) {
            all.add(pod("prod", "other-" + n, n, Map.of(HintAnnotations.PLACEMENT,
                    seedHint("prod/other", n, 1, 0, 4, 5, 6, 7)), FOUR_GPUS));
        }
        return view(all);
    }

    /** The gang decision as EnginePlacementDecisions takes it for a pod of a PodGroup (its session and reader). */
    private BindHints.Decider planning() {
        return (view, pod) -> {
            String key = pod.ref().namespace() + "/" + pod.ref().name();
            PodView known = view.pod(key);
            PodGroup group = view.podGroupOf(known);
            GangSession.Decision d = session.decide(view.snapshot(), key, pod.ref().name(),
                    reader.gangOf(view, group));
            return new BindHints.PodDecision(view.request(known), PlacementPolicy.resolve(null, group,
                    pod.annotations(), view.snapshot().fabric()), d.planned(), d.outcome());
        };
    }

    @Test
    void aGangPodBoundElsewhereThanPlannedKeepsTheBoundMembersRailsWithItsRankAndTheGangsSize() throws Exception {
        ClusterView view = trainCluster();

        Map<String, String> hints = hints(view, planning()).of(new PodRef("prod", "train-2", "uid-train-2"),
                "gpu-d");

        // gpu-d's free GPUs 0..3 are rails 0 and 1, the rail set train-0's and train-1's hints hold; rank 2 is the
        // plan's for train-2 (the same the bound members' ranks 0 and 1 leave it)
        JsonNode hint = placement(hints);
        assertThat(hint.path("node").asText()).isEqualTo("gpu-d");
        assertThat(gpus(hint)).containsExactly(0, 1, 2, 3);
        assertThat(hints).containsEntry(HintAnnotations.RAILS, "0,0,1,1").containsEntry(HintAnnotations.RANK, "2");
        assertThat(hint.path("gang").asText()).isEqualTo("prod/train");
        assertThat(hint.path("gangSize").asInt()).isEqualTo(4);
        JsonNode choice = hint.path("railChoice");
        assertThat(choice.path("source").asText()).isEqualTo("gang-rails");
        assertThat(choice.path("plannedNode").asText()).isEqualTo("gpu-c");
        assertThat(choice.path("gangRails").asText()).isEqualTo("0,0,1,1");
        assertThat(choice.path("reason").asText()).contains("bound to gpu-d, not the planned gpu-c")
                .contains("its bound members' hints");
        assertThat(logged).singleElement().asString()
                .startsWith("INFO hints for prod/train-2 on gpu-d off its plan: ");
    }

    @Test
    void withoutAPlanEntryTheGangPodTakesTheRankTheBoundMembersLeaveIt() throws Exception {
        ClusterView view = trainCluster();
        // no plan covers train-3 (say its gang's plan failed): the gang side is read from the cluster alone
        BindHints.Decider noPlan = (v, pod) -> {
            PodView known = v.pod("prod/" + pod.ref().name());
            return new BindHints.PodDecision(v.request(known), PlacementPolicy.resolve(null, v.podGroupOf(known),
                    pod.annotations(), v.snapshot().fabric()), null, null);
        };

        Map<String, String> hints = hints(view, noPlan).of(new PodRef("prod", "train-3", "uid-train-3"), "gpu-h");

        // by hand: the bound members hold ranks 0 and 1, so train-2 and train-3 (in member order) get 2 and 3; gpu-h
        // is empty, so the gang's rails {0,1} are GPUs 0..3 (the node's own best for 4 GPUs is 4..7, as
        // EnginePlacementDecisionsTest's onePodBest shows on a free seed node)
        JsonNode hint = placement(hints);
        assertThat(gpus(hint)).containsExactly(0, 1, 2, 3);
        assertThat(hints).containsEntry(HintAnnotations.RAILS, "0,0,1,1").containsEntry(HintAnnotations.RANK, "3")
                .containsEntry(HintAnnotations.NCCL_IB_HCA, "=mlx5_0:1,mlx5_1:1");
        assertThat(hint.path("gangSize").asInt()).isEqualTo(4);
        JsonNode choice = hint.path("railChoice");
        assertThat(choice.path("source").asText()).isEqualTo("gang-rails");
        assertThat(choice.has("plannedNode")).isFalse();
        assertThat(choice.path("reason").asText()).contains("its bound members' hints");
    }

    // --- (c) a pod already bound without hints: the backfill path ---

    @Test
    void aPodBoundWithoutHintsIsPairedOnItsNodeAsIfItsOwnGpusWereFree() throws Exception {
        // solo (4 GPUs, no gang) is bound to gpu-a without a hint: the view counts it on the lowest free GPUs 0..3,
        // so with the other job's 4..7 gpu-a shows no free GPU at all
        ClusterView view = view(halfFullNode(List.of(pod("prod", "solo", "gpu-a", Map.of(), FOUR_GPUS))));
        assertThat(view.snapshot().node("gpu-a").freeGpuCount()).isZero();

        Map<String, String> hints = hints(view, NOT_ASKED).of(new PodRef("prod", "solo", "uid-solo"), "gpu-a");

        // with its own GPUs freed, 0..3 are free again: GPUs 0, 1 PIX to mlx5_0 and 2, 3 PIX to mlx5_1
        JsonNode hint = placement(hints);
        assertThat(hint.path("node").asText()).isEqualTo("gpu-a");
        assertThat(gpus(hint)).containsExactly(0, 1, 2, 3);
        assertThat(hints).containsEntry(HintAnnotations.NCCL_IB_HCA, "=mlx5_0:1,mlx5_1:1")
                .containsEntry(HintAnnotations.RAILS, "0,0,1,1");
        // no PodGroup: a gang of one, named after the pod, nothing to line up with
        assertThat(hint.path("gang").asText()).isEqualTo("prod/solo");
        assertThat(hint.path("gangSize").asInt()).isEqualTo(1);
        assertThat(hint.has("railChoice")).isFalse();
    }

    @Test
    void theHintsAreWrittenInTheNcclSyntaxThePodDeclares() {
        ClusterView view = view(halfFullNode(List.of(pod("prod", "solo", "gpu-a",
                Map.of(HintAnnotations.NCCL_VERSION, "2.30.7"), FOUR_GPUS))));

        Map<String, String> hints = hints(view, NOT_ASKED).of(new PodRef("prod", "solo", "uid-solo"), "gpu-a");

        // the same pairs as above, in the 2.30.5+ form <hca>:<port>:<rail> (the seed shape names no planes)
        assertThat(hints).containsEntry(HintAnnotations.NCCL_IB_HCA, "=mlx5_0:1:0,mlx5_1:1:1");
    }

    // --- (d) no hints ---

    @Test
    void anUnknownPodANodeWithoutTopologyOrAColdCacheGetNoHints() {
        List<GenericKubernetesResource> all = new ArrayList<>(halfFullNode(List.of(
                pod("prod", "p0", null, Map.of(), FOUR_GPUS),
                pod("prod", "gpu-only", null, Map.of(), Map.of("nvidia.com/gpu", "4")))));
        all.add(node("gpu-x", Map.of(), HCA_SLOTS)); // no NodeTopology
        BindHints h = hints(view(all), NOT_ASKED);

        assertThat(h.of(new PodRef("prod", "nobody", "uid-nobody"), "gpu-a")).as("unknown pod").isEmpty();
        assertThat(h.of(new PodRef("prod", "p0", "uid-p0"), "gpu-z")).as("unknown node").isEmpty();
        assertThat(h.of(new PodRef("prod", "p0", "uid-p0"), "gpu-x")).as("node without topology").isEmpty();
        // GPUs but no RDMA resource and no managed network: outside Railyard's hint scope
        assertThat(h.of(new PodRef("prod", "gpu-only", "uid-gpu-only"), "gpu-a")).as("out of scope").isEmpty();
        assertThat(hints(null, NOT_ASKED).of(new PodRef("prod", "p0", "uid-p0"), "gpu-a")).as("cold cache")
                .isEmpty();
        assertThat(logged).isEmpty();
    }

    @Test
    void aNodeThatCannotTakeThePodGivesNoHintsAndOneLine() {
        // p0 (4 GPUs, not bound, no plan) is bound to gpu-a, whose GPUs are all held (other: 4..7, busy: 0..3)
        ClusterView view = view(halfFullNode(List.of(pod("prod", "p0", null, Map.of(), FOUR_GPUS),
                pod("prod", "busy", "gpu-a", Map.of(HintAnnotations.PLACEMENT,
                        seedHint("prod/busy", "gpu-a", 1, 0, 0, 1, 2, 3)), FOUR_GPUS))));
        BindHints.Decider noPlan = (v, pod) -> new BindHints.PodDecision(v.request(v.pod("prod/p0")),
                PlacementPolicy.defaults(), null, null);

        assertThat(hints(view, noPlan).of(new PodRef("prod", "p0", "uid-p0"), "gpu-a")).isEmpty();
        assertThat(logged).singleElement().asString().startsWith("INFO no hints for prod/p0 on gpu-a: ");
    }

    @Test
    void theGangDecisionsErrorsReachTheCaller() {
        // the decision is taken outside the hints' own error handling (as EnginePlacementDecisions always did): what
        // it throws reaches the caller rather than becoming an empty map and a "hints failed" line
        ClusterView view = view(halfFullNode(List.of(pod("prod", "p0", null, Map.of(), FOUR_GPUS))));
        BindHints.Decider failing = (v, pod) -> {
            throw new IllegalStateException("no decision");
        };

        assertThatThrownBy(() -> hints(view, failing).of(new PodRef("prod", "p0", "uid-p0"), "gpu-a"))
                .isInstanceOf(IllegalStateException.class).hasMessage("no decision");
        assertThat(logged).isEmpty();
    }
}
