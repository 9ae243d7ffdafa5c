package dev.railyard.scheduler.service;

import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.scheduler.cluster.ClusterObjects;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.GangRef;
import dev.railyard.scheduler.protocol.NodeScore;
import dev.railyard.scheduler.protocol.NodeVerdict;
import dev.railyard.scheduler.protocol.PodRef;
import dev.railyard.scheduler.protocol.ResourceRequests;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.railyard.scheduler.cluster.ClusterFixtures.nad;
import static dev.railyard.scheduler.cluster.ClusterFixtures.node;
import static dev.railyard.scheduler.cluster.ClusterFixtures.objects;
import static dev.railyard.scheduler.cluster.ClusterFixtures.pod;
import static dev.railyard.scheduler.cluster.ClusterFixtures.podGroup;
import static dev.railyard.scheduler.cluster.ClusterFixtures.ipPool;
import static dev.railyard.scheduler.cluster.ClusterFixtures.seedShape;
import static dev.railyard.scheduler.cluster.ClusterFixtures.topology;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The protocol port answered by the engine over a cluster of two seed-shaped nodes (8 GPUs, mlx5_0..3, GPUs 2k and
 * 2k+1 PIX to mlx5_k; {@code ClusterFixtures.seedShape}): gpu-a is full (a running pod holds its 8 GPUs), gpu-b is
 * free, gpu-c has no NodeTopology.
 */
class EnginePlacementDecisionsTest {
    private static final Map<String, String> RDMA = Map.of("nvidia.com/mlx5_0", "100", "nvidia.com/mlx5_1", "100",
            "nvidia.com/mlx5_2", "100", "nvidia.com/mlx5_3", "100");
    private static final Map<String, Object> EIGHT_GPUS = Map.of("nvidia.com/gpu", "8");
    private static final Map<String, String> IN_GROUP = Map.of(GangRef.VOLCANO_GROUP_ANNOTATION, "pg");
    /** Attaching only rail0 (master lan2 = mlx5_0) limits a pod to the GPUs near mlx5_0, so these pods ask for none. */
    private static final Map<String, String> ON_RAIL0 = Map.of(GangRef.VOLCANO_GROUP_ANNOTATION, "pg",
            "k8s.v1.cni.cncf.io/networks", "rail0");

    private final Clock clock = Clock.fixed(Instant.parse("2026-09-01T00:00:00Z"), ZoneOffset.UTC);

    private static List<GenericKubernetesResource> cluster(List<String> rail0Holders) {
        return List.of(
                node("gpu-a", Map.of(), RDMA), node("gpu-b", Map.of(), RDMA), node("gpu-c", Map.of(), RDMA),
                topology("gpu-a", seedShape(), null), topology("gpu-b", seedShape(), null),
                pod("prod", "busy", "gpu-a", Map.of(), EIGHT_GPUS),
                podGroup("prod", "pg", 1, Map.of()),
                pod("prod", "p0", null, IN_GROUP, EIGHT_GPUS),
                // rail0: 192.168.4.0/30 has 2 usable addresses (.1, .2); whereabouts excludes network and broadcast
                nad("prod", "rail0", "lan2", "192.168.4.0/30"),
                ipPool("kube-system", "192.168.4.0-30", "192.168.4.0/30", rail0Holders));
    }

    private EnginePlacementDecisions decisions(ClusterObjects objects) {
        return new EnginePlacementDecisions(() -> objects, new IpPoolLedger(clock), new PlacementEngine(), null, 50,
                new SimpleMeterRegistry());
    }

    private static ExtenderPod p0() {
        return new ExtenderPod(new PodRef("prod", "p0", "uid-p0"), Map.of(), IN_GROUP, "volcano",
                new ResourceRequests(Map.of("nvidia.com/gpu", BigDecimal.valueOf(8))),
                GangRef.of("prod", Map.of(), IN_GROUP), null);
    }

    private static ExtenderPod onRail0(String name) {
        return new ExtenderPod(new PodRef("prod", name, "uid-" + name), Map.of(), ON_RAIL0, "volcano",
                ResourceRequests.NONE, GangRef.of("prod", Map.of(), ON_RAIL0), null);
    }

    @Test
    void filterRejectsTheFullNodePassesTheFreeOneAndIsNeutralWhereItKnowsNothing() {
        var d = decisions(objects(cluster(List.of())));

        List<NodeVerdict> verdicts = d.filter(p0(), List.of("gpu-a", "gpu-b", "gpu-c", "gpu-x"));

        assertThat(verdicts).extracting(NodeVerdict::node).containsExactly("gpu-a", "gpu-b", "gpu-c", "gpu-x");
        assertThat(verdicts.get(0).outcome()).isEqualTo(NodeVerdict.Outcome.UNSCHEDULABLE);
        assertThat(verdicts.get(0).reason()).containsIgnoringCase("GPU");
        assertThat(verdicts.get(1)).isEqualTo(NodeVerdict.pass("gpu-b"));
        // no NodeTopology / not in the cluster: pass neutrally, never a rejection for want of data
        assertThat(verdicts.get(2).neutral()).isTrue();
        assertThat(verdicts.get(2).reason()).contains("no NodeTopology");
        assertThat(verdicts.get(3).neutral()).isTrue();
        assertThat(verdicts.get(3).reason()).contains("unknown");
    }

    @Test
    void scoreGivesThePlannedNodeTheTopScoreAndUnknownNodesTheNeutralOne() {
        var d = decisions(objects(cluster(List.of())));

        List<NodeScore> scores = d.score(p0(), List.of("gpu-b", "gpu-c"));

        // the gang plan puts p0 (8 GPUs) on gpu-b, the only node with 8 free GPUs
        assertThat(scores.get(0)).isEqualTo(new NodeScore("gpu-b", 100, false));
        assertThat(scores.get(1)).isEqualTo(new NodeScore("gpu-c", 50, true));
    }

    @Test
    void coldCacheAnswersNeutrally() {
        ClusterObjects synced = objects(cluster(List.of()));
        ClusterObjects cold = new ClusterObjects(synced.takenAt(), 0, synced.objects(), Set.of(), false);
        var d = decisions(cold);

        assertThat(d.filter(p0(), List.of("gpu-a"))).allMatch(NodeVerdict::neutral);
        assertThat(d.score(p0(), List.of("gpu-a"))).containsExactly(new NodeScore("gpu-a", 50, true));
        assertThat(d.bindHints(new PodRef("prod", "p0", "uid-p0"), "gpu-b")).isEmpty();
    }

    @Test
    void reserveVetoesAnAllocationWhenThePoolIsFullAndReleaseFreesTheHold() {
        // one of the 2 usable addresses is held by another pod: p0 can reserve the last one, p1 then cannot
        var d = decisions(objects(cluster(List.of("prod/other"))));
        ExtenderPod r1 = onRail0("r1");
        ExtenderPod r2 = onRail0("r2");

        var first = d.allocated(r1, "gpu-b");
        assertThat(first.accepted()).as(first.reason()).isTrue();
        var vetoed = d.allocated(r2, "gpu-b");
        assertThat(vetoed.accepted()).isFalse();
        assertThat(vetoed.reason()).contains("192.168.4.0-30").contains("0 of 2 free");

        d.deallocated(r1, "gpu-b");
        assertThat(d.allocated(r2, "gpu-b").accepted()).isTrue();
    }

    @Test
    void bindHintsCarryTheExactHcaListOfThePlannedGpus() {
        var d = decisions(objects(cluster(List.of())));

        Map<String, String> hints = d.bindHints(new PodRef("prod", "p0", "uid-p0"), "gpu-b");

        assertThat(hints).containsKey(HintAnnotations.PLACEMENT);
        // 8 GPUs on the seed shape use all four rail HCAs, each on port 1, in exact-match syntax
        assertThat(hints.get(HintAnnotations.NCCL_IB_HCA)).isEqualTo("=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1");
    }

    @Test
    void aPodBoundWithoutHintsGetsThemForItsOwnNodeAsIfItsGpusWereFree() {
        // p0 is already bound to gpu-b and holds its 8 GPUs (counted from its request): the backfill must still pair
        // those 8 GPUs with the node's four rail HCAs rather than find the node full
        List<GenericKubernetesResource> objects = new java.util.ArrayList<>(cluster(List.of()));
        objects.removeIf(o -> "p0".equals(o.getMetadata().getName()));
        objects.add(pod("prod", "p0", "gpu-b", IN_GROUP, EIGHT_GPUS));
        var d = decisions(objects(objects));

        Map<String, String> hints = d.bindHints(new PodRef("prod", "p0", "uid-p0"), "gpu-b");

        assertThat(hints.get(HintAnnotations.NCCL_IB_HCA)).isEqualTo("=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1");
    }
}
