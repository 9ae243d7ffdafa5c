package dev.railyard.scheduler.service;

import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.scheduler.cluster.ClusterObjects;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.GangRef;
import dev.railyard.scheduler.engine.NodeScore;
import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.engine.Status;
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
    /** GPUs and one slot of each seed HCA resource, as the seed's rdma-test job asks: in Railyard's hint scope. */
    private static final Map<String, Object> EIGHT_GPUS = Map.of("nvidia.com/gpu", "8",
            "nvidia.com/mlx5_0", "1", "nvidia.com/mlx5_1", "1", "nvidia.com/mlx5_2", "1", "nvidia.com/mlx5_3", "1");
    private static final Map<String, String> IN_GROUP = Map.of(GangRef.VOLCANO_GROUP_ANNOTATION, "pg");
    private final Clock clock = Clock.fixed(Instant.parse("2026-09-01T00:00:00Z"), ZoneOffset.UTC);

    /** rail0 alone, outside any gang: r1 and r2 of the allocateFunc test. */
    private static final Map<String, String> RAIL0_ALONE = Map.of("k8s.v1.cni.cncf.io/networks", "rail0");

    private static List<GenericKubernetesResource> cluster(List<String> rail0Holders) {
        return List.of(
                pod("prod", "r1", null, RAIL0_ALONE, Map.of()), pod("prod", "r2", null, RAIL0_ALONE, Map.of()),
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

    /** r1, r2: pods of the cluster attaching rail0, in no gang (Volcano allocates them one by one). */
    private static ExtenderPod alone(String name) {
        return new ExtenderPod(new PodRef("prod", name, "uid-" + name), Map.of(), RAIL0_ALONE, "volcano",
                ResourceRequests.NONE, null, null);
    }

    @Test
    void filterRejectsTheFullNodePassesTheFreeOneAndIsNeutralWhereItKnowsNothing() {
        var d = decisions(objects(cluster(List.of())));

        List<NodeVerdict> verdicts = d.filter(p0(), List.of("gpu-a", "gpu-b", "gpu-c", "gpu-x"));

        assertThat(verdicts).extracting(NodeVerdict::node).containsExactly("gpu-a", "gpu-b", "gpu-c", "gpu-x");
        // gpu-a's GPUs are held by pods: evicting them would free it, so Unschedulable, not Unresolvable
        assertThat(verdicts.get(0).code()).isEqualTo(Status.Code.UNSCHEDULABLE);
        assertThat(verdicts.get(0).describe()).containsIgnoringCase("GPU");
        assertThat(verdicts.get(1)).isEqualTo(NodeVerdict.pass("gpu-b"));
        // no NodeTopology / not in the cluster: pass neutrally, never a rejection for want of data
        assertThat(verdicts.get(2).neutral()).isTrue();
        assertThat(verdicts.get(2).describe()).contains("no NodeTopology");
        assertThat(verdicts.get(3).neutral()).isTrue();
        assertThat(verdicts.get(3).describe()).contains("unknown");
    }

    @Test
    void aPodWithoutGpusIsPassedNeutrallyOnANodeRailyardDoesNotKnow() {
        // found by an attacker review: a CPU-only pod was refused "node unknown" (unresolvable) where a GPU pod got
        // the neutral pass docs/serve.md promises for unknown nodes; r1 attaches rail0, whose pool has room
        var d = decisions(objects(cluster(List.of())));

        List<NodeVerdict> verdicts = d.filter(alone("r1"), List.of("gpu-x", "gpu-b"));

        assertThat(verdicts.get(0).neutral()).isTrue();
        assertThat(verdicts.get(0).code()).isEqualTo(Status.Code.SUCCESS);
        assertThat(verdicts.get(0).describe()).contains("gpu-x unknown to Railyard");
        assertThat(verdicts.get(1)).isEqualTo(NodeVerdict.pass("gpu-b"));
    }

    @Test
    void scoreGivesThePlannedNodeTheTopScoreAndUnknownNodesTheNeutralOne() {
        var d = decisions(objects(cluster(List.of())));

        List<NodeScore> scores = d.score(p0(), List.of("gpu-b", "gpu-c"));

        // the gang plan puts p0 (8 GPUs) on gpu-b, the only node with 8 free GPUs
        assertThat(scores).extracting(NodeScore::node, NodeScore::score, NodeScore::neutral)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("gpu-b", 100, false),
                        org.assertj.core.groups.Tuple.tuple("gpu-c", 50, true));
    }

    @Test
    void coldCacheAnswersNeutrally() {
        ClusterObjects synced = objects(cluster(List.of()));
        ClusterObjects cold = new ClusterObjects(synced.takenAt(), 0, synced.objects(), Set.of(), false);
        var d = decisions(cold);

        assertThat(d.filter(p0(), List.of("gpu-a"))).allMatch(NodeVerdict::neutral);
        assertThat(d.score(p0(), List.of("gpu-a"))).containsExactly(NodeScore.neutral("gpu-a", 50));
        assertThat(d.bindHints(new PodRef("prod", "p0", "uid-p0"), "gpu-b")).isEmpty();
    }

    @Test
    void reserveVetoesAnAllocationWhenThePoolIsFullAndReleaseFreesTheHold() {
        // one of the 2 usable addresses is held by another pod: p0 can reserve the last one, p1 then cannot
        var d = decisions(objects(cluster(List.of("prod/other"))));
        ExtenderPod r1 = alone("r1");
        ExtenderPod r2 = alone("r2");

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

    @Test
    void aBackfilledHintCarriesTheAddressRangeOfThePodsNetworks() {
        // a pod on network rail0 (master lan2 = mlx5_0, whereabouts range 192.168.4.0/30), bound to gpu-b without
        // hints; its backfilled hint names that range for NCCL_IB_ADDR_RANGE (PlacementHints.cover of one /30)
        List<GenericKubernetesResource> objects = new java.util.ArrayList<>(cluster(List.of()));
        objects.add(pod("prod", "r0", "gpu-b", Map.of("k8s.v1.cni.cncf.io/networks", "rail0"),
                Map.of("nvidia.com/gpu", "2")));
        var d = decisions(objects(objects));

        Map<String, String> hints = d.bindHints(new PodRef("prod", "r0", "uid-r0"), "gpu-b");

        assertThat(hints.get(HintAnnotations.NCCL_IB_HCA)).isEqualTo("=mlx5_0:1");
        assertThat(hints.get(HintAnnotations.NCCL_IB_ADDR_RANGE)).isEqualTo("192.168.4.0/30");
        assertThat(hints.get(HintAnnotations.NCCL_IB_ADDR_FAMILY)).isEqualTo("AF_INET");
    }

    @Test
    void aPendingGpuPodWithoutAnRdmaResourceOrAManagedNetworkGetsNoHintsFromTheBindVerb() {
        // issue 19 hint scope (docs/hints.md): GPUs and an RDMA resource or a network Railyard manages. The bind
        // verb's path (pod not bound yet; the bound-pod path is DecisionEventsTest's): the same pods with one HCA
        // slot or the managed network rail0 get hints on the same node, so the empty answers are about scope alone.
        Map<String, Object> twoGpus = Map.of("nvidia.com/gpu", "2");
        Map<String, Object> oneHca = Map.of("nvidia.com/gpu", "2", "nvidia.com/mlx5_1", "1");
        List<GenericKubernetesResource> objects = new java.util.ArrayList<>(cluster(List.of()));
        objects.add(pod("prod", "gpu-only", null, Map.of(), twoGpus));
        objects.add(pod("prod", "unmanaged-net", null, Map.of("k8s.v1.cni.cncf.io/networks", "frontend"), twoGpus));
        objects.add(pod("prod", "one-hca", null, Map.of(), oneHca));
        objects.add(pod("prod", "on-rail0", null, Map.of("k8s.v1.cni.cncf.io/networks", "rail0"), twoGpus));
        var d = decisions(objects(objects));

        for (String outside : List.of("gpu-only", "unmanaged-net")) {
            assertThat(d.bindHints(new PodRef("prod", outside, "uid-" + outside), "gpu-b")).as(outside).isEmpty();
        }
        assertThat(d.bindHints(new PodRef("prod", "one-hca", "uid-one-hca"), "gpu-b"))
                .containsKey(HintAnnotations.PLACEMENT).containsKey(HintAnnotations.NCCL_IB_HCA);
        // rail0's master lan2 is mlx5_0 (seed shape): the only HCA such a pod can open
        assertThat(d.bindHints(new PodRef("prod", "on-rail0", "uid-on-rail0"), "gpu-b"))
                .containsEntry(HintAnnotations.NCCL_IB_HCA, "=mlx5_0:1");
    }

    // --- pods bound off their gang plan (issue 6): the hint keeps the gang's rail set where the node offers it ---

    private static final Map<String, Object> FOUR_GPUS = Map.of("nvidia.com/gpu", "4",
            "nvidia.com/mlx5_0", "1", "nvidia.com/mlx5_1", "1", "nvidia.com/mlx5_2", "1", "nvidia.com/mlx5_3", "1");

    /** A placement hint naming {@code gpus} on {@code node} (seed shape: GPU g on mlx5_{g/2}, rail g/2, PIX). */
    private static Map<String, String> hinted(String node, Map<String, String> more, int... gpus) {
        StringBuilder b = new StringBuilder("{\"version\":1,\"node\":\"" + node
                + "\",\"gang\":\"prod/x\",\"gangSize\":1,\"gpus\":[");
        for (int i = 0; i < gpus.length; i++) {
            b.append(i == 0 ? "" : ",").append("{\"gpu\":").append(gpus[i]).append(",\"hca\":\"mlx5_")
                    .append(gpus[i] / 2).append("\",\"port\":1,\"rail\":").append(gpus[i] / 2)
                    .append(",\"distance\":\"PIX\"}");
        }
        Map<String, String> a = new java.util.LinkedHashMap<>(more);
        a.put(HintAnnotations.PLACEMENT, b.append("]}").toString());
        return a;
    }

    /**
     * Four seed-shaped nodes: gpu-a and gpu-b hold GPUs 4–7 (free 0–3: rails 0, 1), gpu-d holds 0–3 (free 4–7:
     * rails 2, 3), gpu-f is full when {@code fFull}, else free. PodGroup pg: p0 and p1, 4 GPUs each, unbound. No
     * node has 8 free GPUs, so the gang spans two nodes, and the only aligned pair is gpu-a + gpu-b on rails {0×2,1×2}.
     */
    private static List<GenericKubernetesResource> offPlanCluster(boolean fFull) {
        List<GenericKubernetesResource> o = new java.util.ArrayList<>();
        for (String n : List.of("gpu-a", "gpu-b", "gpu-d", "gpu-f")) {
            o.add(node(n, Map.of(), RDMA));
            o.add(topology(n, seedShape(), null));
        }
        o.add(pod("prod", "busy-a", "gpu-a", hinted("gpu-a", Map.of(), 4, 5, 6, 7), FOUR_GPUS));
        o.add(pod("prod", "busy-b", "gpu-b", hinted("gpu-b", Map.of(), 4, 5, 6, 7), FOUR_GPUS));
        o.add(pod("prod", "busy-d", "gpu-d", hinted("gpu-d", Map.of(), 0, 1, 2, 3), FOUR_GPUS));
        if (fFull) {
            o.add(pod("prod", "busy-f", "gpu-f", Map.of(), EIGHT_GPUS));
        }
        o.add(podGroup("prod", "pg", 2, Map.of()));
        o.add(pod("prod", "p0", null, IN_GROUP, FOUR_GPUS));
        o.add(pod("prod", "p1", null, IN_GROUP, FOUR_GPUS));
        return o;
    }

    private static ExtenderPod fourGpuMember(String name) {
        return new ExtenderPod(new PodRef("prod", name, "uid-" + name), Map.of(), IN_GROUP, "volcano",
                new ResourceRequests(Map.of("nvidia.com/gpu", BigDecimal.valueOf(4))),
                GangRef.of("prod", Map.of(), IN_GROUP), null);
    }

    /** @return the node the gang plan gives {@code pod}: the one it scores 100 (the plan's node), asserted unique */
    private static String plannedNode(EnginePlacementDecisions d, String pod) {
        List<NodeScore> scores = d.score(fourGpuMember(pod), List.of("gpu-a", "gpu-b", "gpu-d"));
        List<String> top = scores.stream().filter(s -> s.score() == NodeScore.MAX).map(NodeScore::node).toList();
        assertThat(top).as("nodes scored 100 for %s: %s", pod, scores).hasSize(1);
        return top.get(0);
    }

    /** @return the GPUs the engine's one-pod plan gives a 4-GPU pod alone on {@code node} (its best pairing) */
    private static List<Integer> onePodBest(ClusterObjects objects, String node) {
        var snapshot = dev.railyard.scheduler.cluster.ClusterView.of(objects, null, null).snapshot();
        var one = new dev.railyard.scheduler.engine.ClusterSnapshot(List.of(snapshot.node(node)), List.of(),
                snapshot.fabric(), null);
        var request = new dev.railyard.scheduler.engine.PodRequest("prod", "alone", 4, Map.of(),
                dev.railyard.scheduler.ipam.PodNetworksRequest.of("prod", Map.of()), false);
        var plan = new PlacementEngine().plan(one, new dev.railyard.scheduler.engine.GangRequest("prod", "alone",
                List.of(request), dev.railyard.scheduler.engine.PlacementPolicy.defaults()));
        return plan.plan().pods().get(0).gpuIndices();
    }

    private static dev.railyard.api.hints.PlacementHint placement(Map<String, String> hints) throws Exception {
        return new com.fasterxml.jackson.databind.ObjectMapper()
                .readValue(hints.get(HintAnnotations.PLACEMENT), dev.railyard.api.hints.PlacementHint.class);
    }

    @Test
    void aPodBoundOffItsPlanToANodeThatOffersTheGangsRailsKeepsThem() throws Exception {
        // the plan is made while gpu-f is full; gpu-f frees up before the bind, and the scheduler binds p1 there
        ClusterObjects before = objects(offPlanCluster(true));
        ClusterObjects after = objects(offPlanCluster(false));
        ClusterObjects[] now = {before};
        var d = new EnginePlacementDecisions(() -> now[0], new IpPoolLedger(clock), new PlacementEngine(), null, 50,
                new SimpleMeterRegistry());
        String p0Node = plannedNode(d, "p0");
        String p1Node = plannedNode(d, "p1");
        // the only aligned two-node placement: gpu-a and gpu-b, both on rails 0 and 1 (GPUs 0–3)
        assertThat(Set.of(p0Node, p1Node)).containsExactlyInAnyOrder("gpu-a", "gpu-b");
        now[0] = new ClusterObjects(after.takenAt(), 2, after.objects(), Set.of(), true);

        Map<String, String> hints = d.bindHints(new PodRef("prod", "p1", "uid-p1"), "gpu-f");

        var hint = placement(hints);
        assertThat(hint.node()).isEqualTo("gpu-f");
        // gang rails {0×2,1×2} on a free seed node: GPUs 0,1 (mlx5_0, PIX) and 2,3 (mlx5_1, PIX)
        assertThat(hint.gpus()).extracting(g -> g.gpu()).containsExactly(0, 1, 2, 3);
        assertThat(hint.gpus()).extracting(g -> g.hca()).containsExactly("mlx5_0", "mlx5_0", "mlx5_1", "mlx5_1");
        assertThat(hints.get(HintAnnotations.RAILS)).isEqualTo("0,0,1,1");
        assertThat(hints.get(HintAnnotations.NCCL_IB_HCA)).isEqualTo("=mlx5_0:1,mlx5_1:1");
        // what the hint said before this fix: gpu-f's own best one-pod pairing, GPUs 4–7 on rails 2 and 3, off the
        // gang's rails (so this test tells the two apart)
        assertThat(onePodBest(after, "gpu-f")).containsExactly(4, 5, 6, 7);
        assertThat(hint.railChoice().source()).isEqualTo("gang-rails");
        assertThat(hint.railChoice().plannedNode()).isEqualTo(p1Node);
        assertThat(hint.railChoice().gangRails()).isEqualTo("0,0,1,1");
        assertThat(hint.railChoice().reason()).contains("bound to gpu-f, not the planned " + p1Node)
                .contains("{0×2,1×2}").contains("the gang plan");
        // the gang's size and the pod's place in it, not a one-pod plan's
        assertThat(hint.gangSize()).isEqualTo(2);
        assertThat(hint.gang()).isEqualTo("prod/pg");
    }

    @Test
    void aPodBoundOffItsPlanToANodeWithoutTheGangsRailsGetsTheNodesBestPairingAndSaysSo() throws Exception {
        var d = decisions(objects(offPlanCluster(true)));
        String p1Node = plannedNode(d, "p1");

        Map<String, String> hints = d.bindHints(new PodRef("prod", "p1", "uid-p1"), "gpu-d");

        var hint = placement(hints);
        // gpu-d has only GPUs 4–7 free (rails 2, 3): rails 0 and 1 have no free GPU, so the node's best pairing
        assertThat(hint.node()).isEqualTo("gpu-d");
        assertThat(hint.gpus()).extracting(g -> g.gpu()).containsExactly(4, 5, 6, 7);
        assertThat(hints.get(HintAnnotations.RAILS)).isEqualTo("2,2,3,3");
        assertThat(hint.railChoice().source()).isEqualTo("node-best");
        assertThat(hint.railChoice().plannedNode()).isEqualTo(p1Node);
        assertThat(hint.railChoice().gangRails()).isEqualTo("0,0,1,1");
        assertThat(hint.railChoice().reason()).contains("bound to gpu-d, not the planned " + p1Node)
                .contains("gpu-d cannot offer rail set {0×2,1×2}: qualifying free GPUs per rail [0, 0, 2, 2]");
    }

    @Test
    void aPodOnItsPlannedNodeGetsThePlanWithoutARailChoice() throws Exception {
        var d = decisions(objects(offPlanCluster(true)));
        String p1Node = plannedNode(d, "p1");

        var hint = placement(d.bindHints(new PodRef("prod", "p1", "uid-p1"), p1Node));

        assertThat(hint.railChoice()).isNull();
        assertThat(hint.gpus()).extracting(g -> g.gpu()).containsExactly(0, 1, 2, 3);
        // docs/hints.md: "gang" is namespace/name of the PodGroup
        assertThat(hint.gang()).isEqualTo("prod/pg");
        assertThat(hint.gangSize()).isEqualTo(2);
    }

    @Test
    void aBoundPodBackfilledWithoutAPlanKeepsTheRailsItsBoundMembersWereHintedWith() throws Exception {
        // after a restart (no plan in memory): p0 is bound to gpu-a with hints on GPUs 0–3 (rails 0, 1); p1 was bound
        // to the otherwise free gpu-f without hints, and the backfill asks for them (gpu-f's own best: GPUs 4–7)
        List<GenericKubernetesResource> o = new java.util.ArrayList<>(offPlanCluster(false));
        o.removeIf(r -> List.of("p0", "p1").contains(r.getMetadata().getName()));
        o.add(pod("prod", "p0", "gpu-a", hinted("gpu-a", IN_GROUP, 0, 1, 2, 3), FOUR_GPUS));
        o.add(pod("prod", "p1", "gpu-f", IN_GROUP, FOUR_GPUS));
        var d = decisions(objects(o));

        Map<String, String> hints = d.bindHints(new PodRef("prod", "p1", "uid-p1"), "gpu-f");

        var hint = placement(hints);
        assertThat(hint.gpus()).extracting(g -> g.gpu()).containsExactly(0, 1, 2, 3);
        assertThat(hints.get(HintAnnotations.RAILS)).isEqualTo("0,0,1,1");
        assertThat(hint.railChoice().source()).isEqualTo("gang-rails");
        assertThat(hint.railChoice().plannedNode()).isNull();
        assertThat(hint.railChoice().reason()).contains("its bound members' hints");
    }
}
