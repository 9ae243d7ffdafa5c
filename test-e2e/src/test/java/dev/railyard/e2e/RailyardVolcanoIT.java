package dev.railyard.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.api.topology.GpuHcaPair;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Railyard as vc-scheduler's extender, in its recommended configuration (docs/serve.md: predicate, prioritize,
 * jobEnqueueable, jobReady, allocateFunc, deallocateFunc; no onSessionOpenVerb; managedResources
 * {@code nvidia.com/gpu}) with {@code ignorable: false}, on the {@link SeedCluster}. Every scenario asserts what the
 * cluster shows: bindings ({@code spec.nodeName}), Railyard's hint annotations, PodGroup phase and conditions,
 * Events. A {@link RecordingProxy} between vc-scheduler and Railyard saves the first request body of each verb under
 * {@code target/captured/RailyardVolcanoIT/volcano/}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RailyardVolcanoIT {

    private static final Duration BIND = Duration.ofSeconds(90);
    /** Enough vc-scheduler sessions (--schedule-period=1s) to be sure a job that should wait is not placed. */
    private static final Duration SEVERAL_SESSIONS = Duration.ofSeconds(12);
    /** Distance classes NCCL uses GPUDirect RDMA for by default (NCCL_NET_GDR_LEVEL default PXB). */
    private static final Set<String> GDR_DISTANCES = Set.of("PIX", "PXB");
    private static final String LAN5_RANGE = SeedCluster.RANGES.get("rdma-net-ipam-lan5");

    static final RecordingProxy PROXY = RailyardExtenders.proxy("RailyardVolcanoIT");
    private static final RailyardProcess[] RAILYARD = new RailyardProcess[1];

    @RegisterExtension
    static final ControlPlaneExtension CLUSTER = new ControlPlaneExtension(ControlPlane.Options.volcano(
            SeedCluster.nodeNames(),
            RailyardExtenders.volcano(PROXY, RailyardExtenders.RECOMMENDED_VOLCANO_VERBS, false),
            RailyardExtenders.prelude(PROXY, RAILYARD)));

    private KubernetesClient client;
    private ClusterView view;

    @BeforeEach
    void view() {
        client = CLUSTER.controlPlane().client();
        view = new ClusterView(client, SeedWorkloads.NAMESPACE);
    }

    @AfterEach
    void cleanUp() throws Exception {
        view.deleteAll(BIND);
        SeedCluster.resetPools(client);
        if (!RAILYARD[0].running()) {
            PROXY.backend(RAILYARD[0].start());
        }
        assertThat(CLUSTER.controlPlane().kubelet().errors()).isZero();
    }

    @AfterAll
    static void report() {
        System.out.println("[e2e] RailyardVolcanoIT extender calls: " + PROXY.callCounts());
        PROXY.close();
    }

    @Test
    @Order(1)
    void seedRdmaTestJobLandsWhereItsGpusPairPixOrPxbWithItsHcasAndCarriesTheHints() {
        try (PodVersions versions = PodVersions.watch(client, SeedWorkloads.NAMESPACE)) {
            client.resource(SeedWorkloads.rdmaTestJob(client)).create();
            Pod pod = seedRdmaTestJobLandsWhereItsGpusPairPixOrPxbWithItsHcas();
            assertHintsCameWithTheBinding(versions, List.of(pod));
        }
    }

    /**
     * Issue 6 acceptance, Volcano path: vc-scheduler posts the Binding and Railyard's {@code pods/binding} webhook adds
     * the hints to it, so the pod version in which {@code spec.nodeName} first appears already carries them, no
     * earlier version does, no later one changes them, and there is no backfill Event.
     */
    private void assertHintsCameWithTheBinding(PodVersions versions, List<Pod> pods) {
        List<String> names = pods.stream().map(p -> p.getMetadata().getName()).toList();
        // wait for the fake kubelet's Running status: a later version, which must keep the hints unchanged
        for (String n : names) {
            await().atMost(BIND).until(() -> "Running".equals(view.pod(n).getStatus().getPhase()));
        }
        for (String n : names) {
            versions.assertHintsWrittenWithBinding(n, PodVersions.ATOMIC_KEYS, BIND);
            assertThat(view.events(n)).as("events of " + n).noneMatch(e ->
                    dev.railyard.scheduler.hints.delivery.HintBackfill.EVENT_REASON.equals(e.getReason()));
        }
        System.out.println("[e2e] RailyardVolcanoIT pod versions (webhook path):\n" + versions.describe(names));
    }

    private Pod seedRdmaTestJobLandsWhereItsGpusPairPixOrPxbWithItsHcas() {
        Pod pod = view.awaitJobBound("rdma-test", 1, BIND).getFirst();
        String node = pod.getSpec().getNodeName();
        view.awaitPodGroupPhase("rdma-test", "Running", BIND);

        // case-05 (HGX_4NIC) has odd GPUs SYS to every HCA, so an 8-GPU pod there cannot pair every GPU at PXB or
        // nearer; gpu-n1 has no NodeTopology. Only the case-06 nodes pair all 8 GPUs PIX (fixture README).
        assertThat(node).isIn(SeedCluster.nodesOf(FixtureMachines.PCIE_8GPU));
        JsonNode hint = awaitHint(pod.getMetadata().getName());
        assertThat(hint.path("node").asText()).isEqualTo(node);
        assertThat(hint.path("gpus")).hasSize(8);
        Map<Integer, GpuHcaPair> pairs = FixtureMachines.pairsByGpu(FixtureMachines.spec(FixtureMachines.PCIE_8GPU));
        for (JsonNode g : hint.path("gpus")) {
            int gpu = g.path("gpu").asInt();
            assertThat(g.path("distance").asText()).as("GPU %d", gpu).isIn(GDR_DISTANCES);
            // the HCA the hint names is the one the node's rail map pairs with that GPU
            assertThat(g.path("hca").asText()).as("GPU %d", gpu).isEqualTo(pairs.get(gpu).hca());
        }
        Pod reread = view.pod(pod.getMetadata().getName());
        // NCCL_IB_HCA as an exact list of the seed HCAs, which the pod requested (nvidia.com/mlx5_0..3)
        assertThat(ClusterView.annotation(reread, HintAnnotations.NCCL_IB_HCA)).hasValueSatisfying(v ->
                assertThat(v).startsWith("=").contains("mlx5_0").contains("mlx5_1").contains("mlx5_2")
                        .contains("mlx5_3"));
        return pod;
    }

    @Test
    @Order(2)
    void fourPodEightGpuGangLandsUnderOneLeafWithOneRailSet() {
        // leaf-a keeps only three free nodes: gpu-a1 is busy with an earlier 8-GPU pod.
        client.resource(SeedWorkloads.occupant("earlier-a1", "gpu-a1", 8)).create();
        await().atMost(BIND).until(() -> "Running".equals(view.pod("earlier-a1").getStatus().getPhase()));

        PodVersions versions = PodVersions.watch(client, SeedWorkloads.NAMESPACE);
        client.resource(SeedWorkloads.gangJob(client, "gang-4x8", 4, 8,
                Map.of(HintAnnotations.FABRIC_SCOPE, "leaf"), List.of())).create();
        List<Pod> pods = view.awaitJobBound("gang-4x8", 4, BIND);
        view.awaitPodGroupPhase("gang-4x8", "Running", BIND);

        Set<String> nodes = pods.stream().map(p -> p.getSpec().getNodeName()).collect(Collectors.toSet());
        // Four 8-GPU pods need four whole nodes; only leaf-b has four free nodes that pair all GPUs PIX.
        assertThat(nodes).containsExactlyInAnyOrderElementsOf(SeedCluster.nodesUnder("leaf-b"));
        Set<String> railSets = new HashSet<>();
        for (Pod p : pods) {
            railSets.add(awaitAnnotation(p.getMetadata().getName(), HintAnnotations.RAILS));
        }
        assertThat(railSets).as("rail sets of the four pods").hasSize(1);
        try (versions) {
            assertHintsCameWithTheBinding(versions, pods);
        }
        // Railyard refused nodes for these pods on the way (gpu-c1/c2 pair only 4 GPUs at PXB; the leaf scope), one
        // predicate call per node: a gang that binds gets no Warning Event for it (docs/adr/0013)
        assertNoWarningEvents(pods.stream().map(p -> p.getMetadata().getName()).toList());
    }

    /**
     * Asserts, from the API server, that no Warning Event is about any of the pods, once Railyard's scheduling
     * attempts for them have ended (500 ms without a call; the Events go out within a second after).
     */
    private void assertNoWarningEvents(List<String> pods) {
        await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> true);
        List<String> warnings = new ArrayList<>();
        for (String p : pods) {
            view.events(p).stream().filter(e -> "Warning".equals(e.getType()))
                    .forEach(e -> warnings.add(p + " " + e.getSource().getComponent() + " " + e.getReason() + ": "
                            + e.getMessage()));
        }
        assertThat(warnings).as("Warning Events on " + pods).isEmpty();
    }

    @Test
    @Order(3)
    void twoPodFourGpuGangWithRailAlignmentRequiredGetsTheSameRailsOnBothPods() {
        // Leave at most 4 free GPUs per node so the gang must span two nodes (on one free 8-GPU node its pods would
        // talk over NVLink and need no alignment): earlier pods hold 4 GPUs of every PCIe node and all 8 of the
        // others.
        List<String> occupants = new java.util.ArrayList<>();
        for (ClusterShape.Node n : SeedCluster.NODES) {
            boolean pcie = n.machine().equals(java.util.Optional.of(SeedCluster.PCIE_8GPU));
            String name = "earlier-" + n.name();
            client.resource(SeedWorkloads.occupant(name, n.name(), pcie ? 4 : 8)).create();
            occupants.add(name);
        }
        for (String o : occupants) {
            await().atMost(BIND).until(() -> "Running".equals(view.pod(o).getStatus().getPhase()));
        }
        // The occupants ask for GPUs only, no RDMA resource and no network: outside Railyard's scope, they get no
        // hints however many hint sweeps (every 2 s) pass (docs/hints.md). Railyard counts their GPUs by request, on
        // the lowest free indices, so each PCIe node keeps GPUs 4-7 (rails 2 and 3) for the gang.
        await().pollDelay(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(7)).until(() -> true);
        for (String o : occupants) {
            assertThat(view.pod(o).getMetadata().getAnnotations() == null ? Set.<String>of()
                    : view.pod(o).getMetadata().getAnnotations().keySet())
                    .as("annotations of the GPU-only pod " + o).noneMatch(k -> k.startsWith("railyard.dev/"));
        }
        client.resource(SeedWorkloads.gangJob(client, "gang-2x4", 2, 4,
                Map.of(HintAnnotations.RAIL_ALIGNMENT, "required"), List.of())).create();
        List<Pod> pods = view.awaitJobBound("gang-2x4", 2, BIND);
        view.awaitPodGroupPhase("gang-2x4", "Running", BIND);

        assertThat(pods.get(0).getSpec().getNodeName()).isNotEqualTo(pods.get(1).getSpec().getNodeName());
        String railsA = awaitAnnotation(pods.get(0).getMetadata().getName(), HintAnnotations.RAILS);
        String railsB = awaitAnnotation(pods.get(1).getMetadata().getName(), HintAnnotations.RAILS);
        assertThat(railsA).isNotBlank().isEqualTo(railsB);
        for (Pod p : pods) {
            JsonNode hint = awaitHint(p.getMetadata().getName());
            assertThat(hint.path("gpus")).hasSize(4);
            for (JsonNode g : hint.path("gpus")) {
                assertThat(g.path("distance").asText()).isIn(GDR_DISTANCES);
            }
        }
    }

    @Test
    @Order(4)
    void gangWhosePoolHasFewerFreeAddressesThanPodsWaitsWithAReasonAndSchedulesOnceAddressesAreFreed() {
        // lan5's /22 has 1022 usable addresses; hold 1021, so one is free for a gang of two pods.
        SeedCluster.setAllocated(client, LAN5_RANGE, SeedCluster.USABLE_PER_POOL - 1);
        client.resource(SeedWorkloads.gangJob(client, "gang-pool", 2, 8, Map.of(), List.of())).create();

        await().pollDelay(SEVERAL_SESSIONS).atMost(SEVERAL_SESSIONS.plusSeconds(1)).until(() -> true);
        assertThat(view.boundCount("gang-pool")).as("pods bound while lan5 has 1 free address").isZero();
        assertThat(view.podGroupPhase("gang-pool")).isNotEqualTo(java.util.Optional.of("Running"));
        // The reason reaches the cluster: vc-scheduler records the extender's predicate reason in the PodGroup's
        // Unschedulable condition and the pods' FailedScheduling events (docs/formats/volcano-extender.md §4).
        // Which pod's reasons the PodGroup quotes ("Origin reason is <pod>") varies; the pod that found no address
        // carries them in its PodScheduled condition.
        List<String> reasons = new ArrayList<>(view.podGroupConditionMessages("gang-pool", "Unschedulable"));
        for (Pod p : view.jobPods("gang-pool")) {
            p.getStatus().getConditions().stream().filter(c -> "PodScheduled".equals(c.getType()))
                    .map(PodCondition::getMessage).forEach(reasons::add);
            view.events(p.getMetadata().getName()).stream().map(Event::getMessage).forEach(reasons::add);
        }
        assertThat(reasons).as("PodGroup conditions, pod conditions and pod events").anySatisfy(m ->
                assertThat(m).containsAnyOf("rdma-net-ipam-lan5", SeedCluster.poolName(LAN5_RANGE)));

        SeedCluster.setAllocated(client, LAN5_RANGE, SeedCluster.PREALLOCATED);
        view.awaitJobBound("gang-pool", 2, BIND);
        view.awaitPodGroupPhase("gang-pool", "Running", BIND);
    }

    @Test
    @Order(5)
    void nodeWithoutNodeTopologyGetsTheNeutralScoreNotARejection() {
        // Two candidates, so vc-scheduler asks prioritize (it scores only when a gradient has >= 2 nodes).
        client.resource(SeedWorkloads.gangJob(client, "pinned", 1, 8, Map.of(), List.of("gpu-n1", "gpu-b4"))).create();
        view.awaitJobBound("pinned", 1, BIND);
        JsonNode score = PROXY.recent("/volcano/prioritize").stream()
                .filter(x -> x.requestText().contains("\"Name\":\"pinned-worker-0\""))
                .map(x -> SeedCluster.json(x.responseText()).path("nodeScore"))
                .filter(s -> s.has("gpu-n1")).findFirst()
                .orElseThrow(() -> new AssertionError("no prioritize reply for pinned-worker-0 scored gpu-n1"));
        // docs/serve.md: --neutral-score default 50, Volcano nodeScore = score x --volcano-score-weight (1.0)
        assertThat(score.path("gpu-n1").asDouble()).isEqualTo(50.0);

        // and with gpu-n1 the only candidate, the pod is bound there: Railyard's predicate passes it
        view.deleteAll(BIND);
        client.resource(SeedWorkloads.gangJob(client, "only-n1", 1, 8, Map.of(), List.of("gpu-n1"))).create();
        assertThat(view.awaitJobBound("only-n1", 1, BIND).getFirst().getSpec().getNodeName()).isEqualTo("gpu-n1");
    }

    @Test
    @Order(6)
    void railyardStoppedWithIgnorableFalseLeavesTheGangWaitingWithNothingHalfBoundUntilItIsBack() throws Exception {
        RAILYARD[0].stop();
        PROXY.backend(null);
        int failedBefore = PROXY.totalFailures();
        client.resource(SeedWorkloads.gangJob(client, "gang-outage", 2, 8, Map.of(), List.of())).create();

        await().pollDelay(SEVERAL_SESSIONS).atMost(SEVERAL_SESSIONS.plusSeconds(1)).until(() -> true);
        // vc-scheduler did call Railyard and got transport errors. With ignorable=false a failed jobEnqueueable
        // rejects the job (it stays Pending) and a failed predicate rejects the node (docs/formats/volcano-extender.md §4).
        assertThat(PROXY.totalFailures()).as("failed extender calls during the outage").isGreaterThan(failedBefore);
        assertThat(view.boundCount("gang-outage")).as("pods bound during the outage (0 of 2, not 1)").isZero();
        assertThat(view.podGroupPhase("gang-outage")).isNotEqualTo(java.util.Optional.of("Running"));

        PROXY.backend(RAILYARD[0].start());
        view.awaitJobBound("gang-outage", 2, BIND);
        view.awaitPodGroupPhase("gang-outage", "Running", BIND);
    }

    @Test
    @Order(7)
    void railyardRestartedRebuildsItsReservationsAndPlacesTheNextGangOnFreeGpus() throws Exception {
        // Both gangs are confined to two nodes, so their 4-GPU pods must share the nodes' 16 GPUs. The first gang has
        // one pod pinned to each node, so each node keeps 4 free GPUs and the second gang must span both nodes too:
        // after the restart Railyard must know from the cluster alone which GPUs (which rails) the first gang holds on
        // each node to give the second gang one rail set both nodes still have. (Two pods of a gang on one node need
        // no common rails, so a second gang packed onto one node would test nothing about rails.)
        List<String> two = List.of("gpu-b1", "gpu-b2");
        Map<String, String> aligned = Map.of(HintAnnotations.RAIL_ALIGNMENT, "required");
        client.resource(SeedWorkloads.pinnedGangJob(client, "first", 4, aligned, two)).create();
        List<Pod> first = view.awaitJobBound("first", 2, BIND);
        for (Pod p : first) {
            awaitHint(p.getMetadata().getName());
        }

        RAILYARD[0].stop();
        PROXY.backend(RAILYARD[0].start());

        client.resource(SeedWorkloads.gangJob(client, "second", 2, 4, aligned, two)).create();
        List<Pod> second = view.awaitJobBound("second", 2, BIND);
        assertThat(second.stream().map(p -> p.getSpec().getNodeName()).collect(Collectors.toSet()))
                .as("nodes of the second gang (4 free GPUs on each)").containsExactlyInAnyOrderElementsOf(two);
        Map<String, Set<Integer>> gpusByNode = new HashMap<>();
        List<Pod> all = new ArrayList<>(first);
        all.addAll(second);
        for (Pod p : all) {
            JsonNode hint = awaitHint(p.getMetadata().getName());
            String node = view.pod(p.getMetadata().getName()).getSpec().getNodeName();
            Set<Integer> used = gpusByNode.computeIfAbsent(node, k -> new TreeSet<>());
            for (JsonNode g : hint.path("gpus")) {
                assertThat(used.add(g.path("gpu").asInt()))
                        .as("GPU %s on %s hinted to two pods (%s)", g.path("gpu").asInt(), node, gpusByNode).isTrue();
            }
        }
        // rail alignment required, pods on two nodes: one rail set per gang
        assertThat(awaitAnnotation(first.get(0).getMetadata().getName(), HintAnnotations.RAILS))
                .isEqualTo(awaitAnnotation(first.get(1).getMetadata().getName(), HintAnnotations.RAILS));
        assertThat(awaitAnnotation(second.get(0).getMetadata().getName(), HintAnnotations.RAILS))
                .isEqualTo(awaitAnnotation(second.get(1).getMetadata().getName(), HintAnnotations.RAILS));
    }

    @Test
    @Order(8)
    void gangThatFitsInOneNvlinkDomainIsPlacedThereAndItsHintsSaySo() {
        // GPU feature discovery's clique label, <cluster UUID>.<clique id> (docs/formats/nvlink-clique.md, from
        // k8s-device-plugin v0.20.0 internal/lm/imex.go). Only gpu-b2 and gpu-b4 share a domain; every other node has
        // none. The seed nodes are PCIe machines (no real NVLink fabric): here they only carry the label the planner
        // reads. Without the label a two-node gang has no reason to prefer this pair over gpu-a1/gpu-a2 (same leaf,
        // same PIX pairs), so landing on exactly {gpu-b2, gpu-b4} shows the label was used.
        String domain = "6a1c0f5e-3b7d-4f2a-9c11-0d5e2b7a8c90.1";
        List<String> nvl = List.of("gpu-b2", "gpu-b4");
        setClique(nvl, domain);
        try {
            client.resource(SeedWorkloads.gangJob(client, "nvl-gang", 2, 8, Map.of(), List.of())).create();
            List<Pod> pods = view.awaitJobBound("nvl-gang", 2, BIND);
            assertThat(pods.stream().map(p -> p.getSpec().getNodeName()).collect(Collectors.toSet()))
                    .as("nodes of a 2-pod gang with an NVLink domain of two free nodes")
                    .containsExactlyInAnyOrderElementsOf(nvl);
            Set<Integer> ranks = new TreeSet<>();
            for (Pod p : pods) {
                String name = p.getMetadata().getName();
                JsonNode nvlink = awaitHint(name).path("nvlink");
                // both ranks of the gang are in the pod's domain, so they talk over NVLink (docs/hints.md)
                assertThat(nvlink.path("domain").asText()).as("hint nvlink.domain of " + name).isEqualTo(domain);
                assertThat(nvlink.path("peers").asInt()).as("hint nvlink.peers of " + name).isEqualTo(2);
                nvlink.path("ranks").forEach(r -> ranks.add(r.asInt()));
                assertThat(awaitAnnotation(name, HintAnnotations.NVLINK_DOMAIN)).isEqualTo(domain);
            }
            assertThat(ranks).as("ranks named in the two hints").containsExactly(0, 1);
        } finally {
            setClique(nvl, null);
        }
    }

    @Test
    @Order(9)
    void gangRefusedOnEveryNodeGetsOneEventCountingEveryNodeAndVolcanoGetsCode3() {
        // A PodGroup without minResources: Volcano enqueues it without asking jobEnqueueable (enqueue.go), so its
        // tasks reach predicate. Each pod attaches rdma-net-ipam-lan2 (master lan2: mlx5_0, rail 0) but requests only
        // nvidia.com/mlx5_3 (rail 3): on each of the 10 nodes with a NodeTopology no rail HCA is reached by both, which
        // no eviction changes. gpu-n1 (no NodeTopology: Railyard would pass it unjudged) is ruled out by the pods'
        // node affinity, which Volcano's predicates plugin checks before the extender (VolcanoSchedulerConf).
        client.genericKubernetesResources(ClusterView.POD_GROUP_API, "PodGroup").inNamespace(SeedWorkloads.NAMESPACE)
                .resource(new io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder()
                        .withApiVersion(ClusterView.POD_GROUP_API).withKind("PodGroup")
                        .withNewMetadata().withName("refused").withNamespace(SeedWorkloads.NAMESPACE).endMetadata()
                        .addToAdditionalProperties("spec", Map.of("minMember", 2, "queue", "default")).build())
                .create();
        List<String> names = List.of("refused-0", "refused-1");
        names.forEach(n -> client.resource(railMismatchedGangPod(n, "refused")).create());

        await().pollDelay(SEVERAL_SESSIONS).atMost(SEVERAL_SESSIONS.plusSeconds(1)).until(() -> true);
        assertThat(names).allSatisfy(n -> assertThat(view.pod(n).getSpec().getNodeName()).as(n).isNull());
        // one predicate call per node, yet one Event per attempt with the true count (before: "0/1 nodes available"
        // per call); the same message again within a minute is not written again, so at most one per pod here. Each
        // of the 10 nodes is refused for two reasons, both Unresolvable: no HCA is both attached (lan2 = mlx5_0) and
        // requested (mlx5_3), and so none of the 8 GPUs has a usable HCA at PXB or nearer
        String expected = "0/10 nodes available: 10 no rail HCA on the pod's networks, 10 too few GPUs pair at ≤ PXB;"
                + " preemption cannot help on 10";
        Map<String, List<String>> byPod = new HashMap<>();
        for (String n : names) {
            byPod.put(n, view.events(n).stream().filter(e -> "RailyardUnschedulable".equals(e.getReason()))
                    .map(Event::getMessage).toList());
        }
        assertThat(byPod.values().stream().mapToInt(List::size).sum()).as("Railyard's Events: " + byPod)
                .isGreaterThanOrEqualTo(1);
        assertThat(byPod.values()).allSatisfy(m -> assertThat(m).hasSizeLessThanOrEqualTo(1)
                .allSatisfy(text -> assertThat(text).isEqualTo(expected)));
        // and Volcano got code 3 (UnschedulableAndUnresolvable: its preempt and reclaim actions skip the node)
        List<String> codes = PROXY.recent("/volcano/predicate").stream()
                .filter(x -> x.requestText().contains("\"Name\":\"refused-"))
                .map(x -> SeedCluster.json(x.responseText()).path("code").asText()).distinct().toList();
        assertThat(codes).as("predicate codes sent for the refused gang").containsExactly("3");
    }

    /**
     * A pod of PodGroup {@code group} for vc-scheduler: 8 GPUs and {@code nvidia.com/mlx5_3}, network
     * rdma-net-ipam-lan2, not on gpu-n1.
     */
    private static Pod railMismatchedGangPod(String name, String group) {
        Map<String, Quantity> res = Map.of("nvidia.com/gpu", new Quantity("8"), "nvidia.com/mlx5_3", new Quantity("1"));
        return new io.fabric8.kubernetes.api.model.PodBuilder()
                .withNewMetadata().withName(name).withNamespace(SeedWorkloads.NAMESPACE)
                .withAnnotations(Map.of("scheduling.k8s.io/group-name", group,
                        "k8s.v1.cni.cncf.io/networks", "rdma-net-ipam-lan2")).endMetadata()
                .withNewSpec().withSchedulerName("volcano")
                .withAffinity(new io.fabric8.kubernetes.api.model.AffinityBuilder().withNewNodeAffinity()
                        .withNewRequiredDuringSchedulingIgnoredDuringExecution().addNewNodeSelectorTerm()
                        .addNewMatchExpression().withKey("kubernetes.io/hostname").withOperator("NotIn")
                        .withValues("gpu-n1").endMatchExpression().endNodeSelectorTerm()
                        .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().build())
                .addNewContainer().withName("main").withImage("torch")
                .withNewResources().withRequests(res).withLimits(res).endResources().endContainer()
                .endSpec().build();
    }

    /** Sets (or, with {@code null}, removes) GPU feature discovery's clique label on the nodes. */
    private void setClique(List<String> nodes, String value) {
        for (String n : nodes) {
            client.nodes().withName(n).edit(node -> {
                if (value == null) {
                    node.getMetadata().getLabels().remove(dev.railyard.topology.fabric.NvlinkDomains.CLIQUE_LABEL);
                } else {
                    node.getMetadata().getLabels().put(dev.railyard.topology.fabric.NvlinkDomains.CLIQUE_LABEL, value);
                }
                return node;
            });
        }
    }

    private JsonNode awaitHint(String pod) {
        return SeedCluster.json(awaitAnnotation(pod, HintAnnotations.PLACEMENT));
    }

    private String awaitAnnotation(String pod, String key) {
        try {
            return await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                    .until(() -> ClusterView.annotation(view.pod(pod), key), java.util.Optional::isPresent).orElseThrow();
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("pod " + pod + " on " + view.pod(pod).getSpec().getNodeName() + " has no "
                    + key + " annotation 30 s after binding; annotations: " + view.pod(pod).getMetadata()
                    .getAnnotations().keySet(), e);
        }
    }
}
