package dev.railyard.scheduler.engine;

import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.api.hints.FabricScope;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.scheduler.cluster.ClusterState;
import dev.railyard.scheduler.cluster.ClusterView;
import dev.railyard.scheduler.cluster.PodView;
import dev.railyard.scheduler.cluster.WatchedKind;
import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.ipam.PodNetworksRequest;
import dev.railyard.scheduler.ipam.PodPlacement;
import dev.railyard.scheduler.ipam.PoolVerdict;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static dev.railyard.scheduler.cluster.ClusterFixtures.ipPool;
import static dev.railyard.scheduler.cluster.ClusterFixtures.nad;
import static dev.railyard.scheduler.cluster.ClusterFixtures.node;
import static dev.railyard.scheduler.cluster.ClusterFixtures.pod;
import static dev.railyard.scheduler.cluster.ClusterFixtures.seedShape;
import static dev.railyard.scheduler.cluster.ClusterFixtures.topology;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Cached per-node answers are the engine's answers: for every node, with the pools shared or checked per node,
 * before and after a hold empties the pool and after a pod changes a node (which makes a new node record).
 * Cluster: seed-shaped gpu-a (6 of 8 GPUs held), gpu-b (free), gpu-c (no NodeTopology); network rail0 (master lan2 =
 * mlx5_0) on 192.168.4.0/30, whose 2 usable addresses (.1 and .2: whereabouts leaves out network and broadcast) one
 * pod holds.
 */
class NodeAnswersTest {
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-09-01T00:00:00Z"), ZoneOffset.UTC);
    private static final Map<String, String> ON_RAIL0 = Map.of("k8s.v1.cni.cncf.io/networks", "rail0");

    private final IpPoolLedger ledger = new IpPoolLedger(CLOCK);
    private final ClusterState state = new ClusterState(null, ledger, ledger::update, CLOCK);
    private final PlacementEngine engine = new PlacementEngine();
    private final NodeAnswers answers = new NodeAnswers(engine);

    private void add(WatchedKind kind, GenericKubernetesResource r) {
        state.upsert(kind, r);
    }

    private ClusterView cluster() {
        for (String n : List.of("gpu-a", "gpu-b", "gpu-c")) {
            add(WatchedKind.NODE, node(n, Map.of(), Map.of()));
        }
        add(WatchedKind.NODE_TOPOLOGY, topology("gpu-a", seedShape(), null));
        add(WatchedKind.NODE_TOPOLOGY, topology("gpu-b", seedShape(), null));
        add(WatchedKind.POD, pod("prod", "busy", "gpu-a", Map.of(), Map.of("nvidia.com/gpu", "6")));
        add(WatchedKind.NETWORK_ATTACHMENT_DEFINITION, nad("prod", "rail0", "lan2", "192.168.4.0/30"));
        add(WatchedKind.IP_POOL, ipPool("kube-system", "192.168.4.0-30", "192.168.4.0/30", List.of("prod/other")));
        add(WatchedKind.POD, pod("prod", "other", "gpu-b", ON_RAIL0, Map.of()));
        return state.snapshot();
    }

    private static PodRequest twoGpusOnRail0() {
        return new PodRequest("prod", "p0", 2, Map.of(), PodNetworksRequest.of("prod", ON_RAIL0), false);
    }

    /** Default policy, and one requiring rail alignment and a tier-1 fabric scope (the context then counts). */
    private static final List<PlacementPolicy> POLICIES = List.of(PlacementPolicy.defaults(),
            new PlacementPolicy(AffinityPolicy.REQUIRED, PcieDistance.PXB, AffinityPolicy.REQUIRED,
                    new FabricScope(1, true), null, null));
    /**
     * No members placed; one on gpu-a; one on gpu-b; two members (one on a node the fabric does not know) with and
     * without a rail vector: answers must follow the context exactly where it counts. The placed lists differ while
     * the rail vector is the same, so the scores share one cached base per node and only proximity is recomputed
     * ({@link NodeAnswers#scoreContext}).
     */
    private static final List<GangContext> CONTEXTS = List.of(GangContext.none(),
            new GangContext(List.of("gpu-a"), null), new GangContext(List.of("gpu-b"), null),
            new GangContext(List.of("gpu-a", "gpu-x"), null),
            new GangContext(List.of("gpu-b", "gpu-a"), new RailVector(new int[]{2})),
            new GangContext(List.of("gpu-b"), new RailVector(new int[]{2})));

    private void assertAnswersAreTheEngines(ClusterSnapshot s, PodRequest pod) {
        for (PlacementPolicy policy : POLICIES) {
            for (GangContext ctx : CONTEXTS) {
                assertAnswersAreTheEngines(s, pod, policy, ctx);
            }
        }
    }

    private void assertAnswersAreTheEngines(ClusterSnapshot s, PodRequest pod, PlacementPolicy policy,
                                            GangContext ctx) {
        PoolVerdict shared = NodeAnswers.shared(s, pod); // asked without a node
        assertThat(shared).isNotNull(); // rail0 is no node-slice network
        for (String n : List.of("gpu-a", "gpu-b", "gpu-c", "gpu-x")) {
            NodeVerdict expected = engine.filter(s, pod, policy, n, ctx);
            assertThat(answers.filter(s, pod, policy, n, ctx, shared)).isEqualTo(expected);
            assertThat(answers.filter(s, pod, policy, n, ctx, null)).isEqualTo(expected);
            NodeScore score = engine.score(s, pod, policy, n, ctx);
            assertThat(answers.score(s, pod, policy, n, ctx, shared)).isEqualTo(score);
            assertThat(answers.score(s, pod, policy, n, ctx, null)).isEqualTo(score);
        }
    }

    @Test
    void tasksOfOneGangShareTheScoreQuestionWhateverTheirPlacedMembers() {
        GangContext none = GangContext.none();
        assertThat(NodeAnswers.scoreContext(none)).isSameAs(none);
        RailVector two = new RailVector(new int[]{2});
        // task 0 sees member 1 on gpu-b, task 1 sees member 0 on gpu-a: one question, the rail vector kept
        assertThat(NodeAnswers.scoreContext(new GangContext(List.of("gpu-b"), two)))
                .isEqualTo(NodeAnswers.scoreContext(new GangContext(List.of("gpu-a"), two)))
                .isEqualTo(new GangContext(List.of(), two));
    }

    @Test
    void cachedAnswersAreTheEnginesAsPoolsAndNodesChange() {
        ClusterView v = cluster();
        PodRequest pod = twoGpusOnRail0();
        assertAnswersAreTheEngines(v.snapshot(), pod);
        // one address left: gpu-b passes; gpu-a has 2 free GPUs but they are GPUs 6 and 7 (rail 3), not on rail0
        assertThat(engine.filter(v.snapshot(), pod, PlacementPolicy.defaults(), "gpu-b", GangContext.none())
                .feasible()).isTrue();

        // a hold takes the last address: every node now gets the pool's refusal, cached part or not
        assertThat(ledger.reserve(List.of(new PodPlacement("p9", PodNetworksRequest.of("prod", ON_RAIL0), "gpu-b")))
                .admitted()).isTrue();
        assertAnswersAreTheEngines(v.snapshot(), pod);
        assertThat(answers.filter(v.snapshot(), pod, PlacementPolicy.defaults(), "gpu-b", GangContext.none(), null)
                .reasons()).extracting(Reason::code).containsExactly(ReasonCode.POOL_EXHAUSTED);

        // gpu-b gets a pod holding 8 GPUs: a new record, so its cached answer is made again
        ledger.release("prod/p9");
        state.upsert(WatchedKind.POD, pod("prod", "big", "gpu-b", Map.of(), Map.of("nvidia.com/gpu", "8")));
        ClusterView after = state.snapshot();
        assertThat(after.snapshot().node("gpu-b")).isNotSameAs(v.snapshot().node("gpu-b"));
        assertAnswersAreTheEngines(after.snapshot(), pod);
        assertThat(answers.filter(after.snapshot(), pod, PlacementPolicy.defaults(), "gpu-b", GangContext.none(),
                null).reasons()).extracting(Reason::code).contains(ReasonCode.INSUFFICIENT_GPUS);
        assertThat(after.pod("prod/big")).extracting(PodView::gpus).isEqualTo(8);
    }
    @Test
    void fullNodesRefusingAlikeShareOneStatusAndStillAnswerAsTheEngine() {
        // two seed-shaped nodes, each with a pod holding all 8 GPUs: a 1-GPU pod is refused on both with the same
        // reasons ("insufficient free GPUs: 1 needed, 0 free"), so the cache keeps one Status for both
        for (String n : List.of("full-1", "full-2")) {
            add(WatchedKind.NODE, node(n, Map.of(), Map.of()));
            add(WatchedKind.NODE_TOPOLOGY, topology(n, seedShape(), null));
            add(WatchedKind.POD, pod("prod", "all-of-" + n, n, Map.of(), Map.of("nvidia.com/gpu", "8")));
        }
        ClusterSnapshot s = state.snapshot().snapshot();
        PodRequest one = new PodRequest("prod", "p1", 1, Map.of(), PodNetworksRequest.of("prod", Map.of()), false);
        PlacementPolicy policy = PlacementPolicy.defaults();
        NodeVerdict engine1 = engine.filter(s, one, policy, "full-1", GangContext.none());
        NodeVerdict engine2 = engine.filter(s, one, policy, "full-2", GangContext.none());
        assertThat(engine1.status()).isEqualTo(engine2.status()).isNotSameAs(engine2.status());
        assertThat(engine1.reasons()).extracting(Reason::code).containsExactly(ReasonCode.INSUFFICIENT_GPUS);

        NodeVerdict cached1 = answers.filter(s, one, policy, "full-1", GangContext.none(), null);
        NodeVerdict cached2 = answers.filter(s, one, policy, "full-2", GangContext.none(), null);
        assertThat(cached1).isEqualTo(engine1);
        assertThat(cached2).isEqualTo(engine2);
        assertThat(cached2.status()).isSameAs(cached1.status());
    }
    @Test
    void aNetworkMovedToAnotherHcaIsAnsweredAgainNotFromTheLastQuestion() {
        ClusterView v = cluster();
        PodRequest pod = twoGpusOnRail0();
        PlacementPolicy policy = PlacementPolicy.defaults();
        // rail0 on lan2 (mlx5_0, rail 0): gpu-a's two free GPUs (6 and 7) are on rail 3, so it is refused; asked
        // twice, so the second answer comes from the last question kept
        for (int i = 0; i < 2; i++) {
            assertThat(answers.filter(v.snapshot(), pod, policy, "gpu-a", GangContext.none(), null).feasible())
                    .isFalse();
        }
        // the same question but for the networks: rail0 now hangs off lan5 (mlx5_3, rail 3, seed-setup: lan2..lan5 =
        // mlx5_0..mlx5_3), next to GPUs 6 and 7
        add(WatchedKind.NETWORK_ATTACHMENT_DEFINITION, nad("prod", "rail0", "lan5", "192.168.4.0/30"));
        ClusterSnapshot moved = state.snapshot().snapshot();
        assertThat(moved.networks()).isNotSameAs(v.snapshot().networks());
        NodeVerdict expected = engine.filter(moved, pod, policy, "gpu-a", GangContext.none());
        assertThat(expected.feasible()).isTrue();
        assertThat(answers.filter(moved, pod, policy, "gpu-a", GangContext.none(), null)).isEqualTo(expected);
        assertAnswersAreTheEngines(moved, pod);
    }
    @Test
    void aQuestionAskedAgainAfterASecondIsStillAnsweredAsTheEngine() throws InterruptedException {
        // past NodeAnswers' one-second touch: the last question is looked up in its cache again, same answers
        ClusterView v = cluster();
        PodRequest pod = twoGpusOnRail0();
        PlacementPolicy policy = PlacementPolicy.defaults();
        NodeVerdict first = answers.filter(v.snapshot(), pod, policy, "gpu-b", GangContext.none(), null);
        Thread.sleep(1_100);
        assertThat(answers.filter(v.snapshot(), pod, policy, "gpu-b", GangContext.none(), null)).isEqualTo(first)
                .isEqualTo(engine.filter(v.snapshot(), pod, policy, "gpu-b", GangContext.none()));
        assertThat(first.feasible()).isTrue(); // one address left on rail0, GPUs free on gpu-b
        assertAnswersAreTheEngines(v.snapshot(), pod);
    }
}
