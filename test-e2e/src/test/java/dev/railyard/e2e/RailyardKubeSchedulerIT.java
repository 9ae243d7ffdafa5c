package dev.railyard.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.api.topology.GpuHcaPair;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The kube-scheduler path: the seed's rdma-test pod (as a plain pod for the default scheduler) through a real
 * kube-scheduler whose extender is Railyard's filter, prioritize and bind, {@code nodeCacheCapable: true},
 * {@code managedResources: nvidia.com/gpu}, {@code ignorable: false}, over HTTPS with a client certificate exactly as
 * deploy/config/kube-scheduler-config.yaml has it ({@code enableHTTPS}, {@code tlsConfig} certFile/keyFile/caFile):
 * kube-scheduler talks to Railyard's secure port directly ({@link SecurePki}), and a caller without that certificate
 * is refused. Calls are counted from Railyard's own {@code /metrics}.
 */
class RailyardKubeSchedulerIT {

    private static final Duration BIND = Duration.ofSeconds(60);

    static final SecurePki PKI = securePki();
    static final int SECURE_PORT = LoopbackPorts.pick(1)[0];
    private static final RailyardProcess[] RAILYARD = new RailyardProcess[1];

    @RegisterExtension
    static final ControlPlaneExtension CLUSTER = new ControlPlaneExtension(ControlPlane.Options.kubeScheduler(
            SeedCluster.nodeNames(), RailyardExtenders.secureKube(SECURE_PORT, PKI, false),
            RailyardExtenders.directPrelude(RAILYARD, withDebug(PKI.serveArgs(SECURE_PORT)))));

    private static SecurePki securePki() {
        try {
            return SecurePki.create(java.nio.file.Files.createTempDirectory("railyard-secure-pki"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static List<String> withDebug(List<String> args) {
        List<String> all = new ArrayList<>(args);
        all.add("--log-level=debug");
        return all;
    }

    /** Requests Railyard answered on a kube-scheduler verb since its (re)start, with {@code status} or any. */
    private static double kubeCalls(String verb, String status) {
        try {
            return RAILYARD[0].metric("railyard_extender_request_seconds_count", status == null
                    ? Map.of("protocol", "kube", "verb", verb) : Map.of("protocol", "kube", "verb", verb, "status", status));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String callCounts() {
        return "filter " + kubeCalls("filter", null) + ", prioritize " + kubeCalls("prioritize", null) + ", bind "
                + kubeCalls("bind", null) + " (bind 200: " + kubeCalls("bind", "200") + ")";
    }

    /**
     * Binds that did not get a 200 since Railyard's (re)start, not counting the 401s that
     * {@link #theSecurePortAnswersKubeSchedulersCertificateAndRefusesEveryoneElse} provokes on purpose (a
     * kube-scheduler without its certificate would leave its pods unbound, which the tests see anyway).
     */
    private static double failedBinds() {
        return kubeCalls("bind", null) - kubeCalls("bind", "200") - kubeCalls("bind", "401");
    }

    private KubernetesClient client;

    @BeforeEach
    void client() {
        client = CLUSTER.controlPlane().client();
    }

    @AfterEach
    void cleanUp() {
        new ClusterView(client, SeedWorkloads.NAMESPACE).deleteAll(BIND);
        assertThat(CLUSTER.controlPlane().kubelet().errors()).isZero();
    }

    @AfterAll
    static void report() {
        if (RAILYARD[0] != null && RAILYARD[0].running()) {
            System.out.println("[e2e] RailyardKubeSchedulerIT extender calls over HTTPS: " + callCounts());
        }
    }

    /**
     * Who may call, on every deciding verb ({@code filter}, {@code prioritize}, {@code bind}): with kube-scheduler's
     * client certificate a verb answers; without a certificate it is 401 with the reason; a client holding a
     * certificate from another CA sends none (JDK and Go clients only send one whose issuer the server names), so
     * 401 too, and one that forces it on the server gets through the handshake and is refused with 401 and the
     * reason (verified per request, as kube-apiserver's x509 authenticator does); plain HTTP to the secure port gets
     * no answer. Volcano's plain port serves no kube-scheduler verb at all (404).
     */
    @Test
    void theSecurePortAnswersKubeSchedulersCertificateAndRefusesEveryoneElse() throws Exception {
        byte[] bind = "{\"PodName\":\"nope\",\"PodNamespace\":\"prod\",\"PodUID\":\"\",\"Node\":\"gpu-a1\"}"
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        var ok = SecureClients.post(SecureClients.context(PKI.caCert(), PKI.clientCert(), PKI.clientKey(), false),
                SECURE_PORT, "/kube/bind", bind);
        assertThat(ok.statusCode()).isEqualTo(200);
        // past authentication the bind admission (docs/serve.md "Deadlines, and which way each verb fails") refuses
        // a pod Railyard's cache does not hold, in kube-scheduler's ExtenderBindingResult.Error field
        assertThat(ok.body()).contains("\"Error\":\"railyard bind of prod/nope to gpu-a1 refused: no such pod");

        var noCertificate = SecureClients.context(PKI.caCert(), null, null, false);
        var strangerPolite = SecureClients.context(PKI.caCert(), PKI.strangerCert(), PKI.strangerKey(), false);
        var strangerForced = SecureClients.context(PKI.caCert(), PKI.strangerCert(), PKI.strangerKey(), true);
        for (String verb : List.of("filter", "prioritize", "bind")) {
            for (var ctx : List.of(noCertificate, strangerPolite)) {
                var refused = SecureClients.post(ctx, SECURE_PORT, "/kube/" + verb, bind);
                assertThat(refused.statusCode()).as(verb).isEqualTo(401);
                assertThat(refused.body().strip()).isEqualTo("kube " + verb + ": a client certificate signed by the "
                        + "client CA is required (kube-scheduler extender tlsConfig certFile/keyFile; docs/serve.md)");
            }
            var forced = SecureClients.post(strangerForced, SECURE_PORT, "/kube/" + verb, bind);
            assertThat(forced.statusCode()).as(verb).isEqualTo(401);
            assertThat(forced.body().strip()).as(verb).isEqualTo("kube " + verb + ": client certificate "
                    + "\"CN=kube-scheduler\" does not verify against the client CA: its issuer \"CN=stranger-ca\" is "
                    + "not a CA of the bundle (kube-scheduler extender tlsConfig certFile/keyFile; docs/serve.md)");

            // the plain port (Volcano verbs, probes) has no kube-scheduler verb once a secure port exists
            try (var http = java.net.http.HttpClient.newHttpClient()) {
                var plain = http.send(java.net.http.HttpRequest.newBuilder(RAILYARD[0].url().resolve("/kube/" + verb))
                                .POST(java.net.http.HttpRequest.BodyPublishers.ofByteArray(bind)).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
                assertThat(plain.statusCode()).as(verb).isEqualTo(404);
            }
        }
    }

    @Test
    void seedPodIsFilteredScoredAndBoundByRailyardOntoAPairedNodeWithHints() {
        try (PodVersions versions = PodVersions.watch(client, SeedWorkloads.NAMESPACE)) {
            client.resource(SeedWorkloads.rdmaTestMasterPod(client, "rdma-test-master-0")).create();
            seedPodIsBoundByRailyardOntoAPairedNodeWithHints();
            hintsCameWithTheBinding(versions, "rdma-test-master-0");
        }
    }

    /**
     * Issue 6 acceptance, kube-scheduler path: Railyard's bind verb creates the Binding with the hints, so the pod
     * version in which {@code spec.nodeName} first appears already carries them, no earlier version does, no later
     * one changes them, and there is no backfill Event. The {@code pods/binding} webhook the prelude registers only
     * matches Volcano gang pods (annotation {@code scheduling.k8s.io/group-name}), which this pod is not, so the hints
     * can only have come with Railyard's own Binding.
     */
    private void hintsCameWithTheBinding(PodVersions versions, String name) {
        assertThat(ClusterView.annotation(pod(name), "scheduling.k8s.io/group-name")).isEmpty();
        // the fake kubelet's Running status is a later version, which must keep the hints unchanged
        await().atMost(BIND).until(() -> "Running".equals(pod(name).getStatus().getPhase()));
        versions.assertHintsWrittenWithBinding(name, PodVersions.ATOMIC_KEYS, BIND);
        assertThat(client.v1().events().inNamespace(SeedWorkloads.NAMESPACE).list().getItems())
                .noneMatch(e -> name.equals(e.getInvolvedObject().getName())
                        && dev.railyard.scheduler.hints.delivery.HintBackfill.EVENT_REASON.equals(e.getReason()));
        System.out.println("[e2e] RailyardKubeSchedulerIT pod versions (bind verb path):\n"
                + versions.describe(List.of(name)));
    }

    private void seedPodIsBoundByRailyardOntoAPairedNodeWithHints() {
        Pod bound;
        try {
            bound = await().atMost(BIND).pollInterval(Duration.ofMillis(250)).until(() -> pod("rdma-test-master-0"),
                    p -> p.getSpec().getNodeName() != null);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("rdma-test-master-0 not bound in " + BIND.toSeconds() + " s; conditions "
                    + pod("rdma-test-master-0").getStatus().getConditions() + "; extender calls "
                    + callCounts(), e);
        }
        String node = bound.getSpec().getNodeName();
        assertThat(node).isIn(SeedCluster.nodesOf(FixtureMachines.PCIE_8GPU));
        // bindVerb is set, so the Binding came from Railyard; kube-scheduler still reports Scheduled afterwards
        // (pkg/scheduler/schedule_one.go: "Successfully assigned <ns>/<pod> to <node>").
        assertThat(kubeCalls("bind", "200")).isPositive();
        assertThat(failedBinds()).isZero();
        Event scheduled = await().atMost(BIND).until(() -> client.v1().events().inNamespace(SeedWorkloads.NAMESPACE)
                .list().getItems().stream().filter(e -> "rdma-test-master-0".equals(e.getInvolvedObject().getName())
                        && "Scheduled".equals(e.getReason())).findFirst(), Optional::isPresent).orElseThrow();
        assertThat(scheduled.getMessage()).isEqualTo("Successfully assigned prod/rdma-test-master-0 to " + node);
        // filter and prioritize went over the same TLS connection setup; with nodeCacheCapable the filter body names
        // nodes only (docs/formats/kube-extender.md; the captured body wire/captured/kube/filter-nodenames-v1.35.4.json, taken
        // through the recording proxy before this suite moved to HTTPS, pins that shape in CapturedWireContractTest)
        assertThat(kubeCalls("filter", "200")).isPositive();
        assertThat(kubeCalls("prioritize", "200")).isPositive();

        // Railyard's bind writes the hints with the Binding (HintAnnotations: same pod version as spec.nodeName).
        Pod now = pod("rdma-test-master-0");
        JsonNode hint = ClusterView.placementHint(now).orElseThrow(() -> new AssertionError(
                "no " + HintAnnotations.PLACEMENT + " on the pod Railyard bound; annotations "
                        + now.getMetadata().getAnnotations()));
        Map<Integer, GpuHcaPair> pairs = FixtureMachines.pairsByGpu(FixtureMachines.spec(FixtureMachines.PCIE_8GPU));
        assertThat(hint.path("gpus")).hasSize(8);
        for (JsonNode g : hint.path("gpus")) {
            assertThat(g.path("distance").asText()).isIn(Set.of("PIX", "PXB"));
            assertThat(g.path("hca").asText()).isEqualTo(pairs.get(g.path("gpu").asInt()).hca());
        }
    }

    /**
     * Issue 5 (docs/adr/0005): kube-scheduler binds a gang one pod at a time; Railyard restarts halfway; the rest must
     * land on the rails of the members already bound, under their leaf, with the ranks that follow theirs.
     *
     * <p>Deterministic by construction, whatever kube-scheduler's own scores: on gpu-a1 and gpu-a2 an earlier pod
     * holds the GPUs of the machine's two lowest rails (written in its placement hint), so kg-0 (pinned to gpu-a1)
     * and kg-1 (pinned to gpu-a2) can only get the two highest rails. After the restart kg-2 and kg-3 may use any
     * node with a NodeTopology; Railyard's Filter (rail alignment and a leaf scope, both required) leaves only gpu-a3
     * and gpu-a4 (gpu-a1 and gpu-a2 are full; leaf-b and leaf-c are outside the scope), one pod each on the highest
     * rails. A Railyard that planned kg-2 and kg-3 as a gang of their own (as before issue 5) puts both on one empty
     * node, kg-2 on the lowest rails, with ranks 0 and 1.
     */
    @Test
    void aGangBoundOnePodAtATimeKeepsItsRailsLeafAndRanksAcrossARailyardRestart() throws Exception {
        Map<Integer, GpuHcaPair> pairs = FixtureMachines.pairsByGpu(FixtureMachines.spec(FixtureMachines.PCIE_8GPU));
        List<Integer> rails = new ArrayList<>(new TreeSet<>(pairs.values().stream().map(GpuHcaPair::rail).toList()));
        Set<Integer> lowRails = Set.copyOf(rails.subList(0, 2));
        for (String n : List.of("gpu-a1", "gpu-a2")) {
            client.resource(earlierPod("earlier-" + n, n, pairs.values().stream()
                    .filter(p -> lowRails.contains(p.rail())).toList())).create();
        }
        client.resource(new GenericKubernetesResourceBuilder().withApiVersion(ClusterView.POD_GROUP_API)
                .withKind("PodGroup").withNewMetadata().withName("kgang").withNamespace(SeedWorkloads.NAMESPACE)
                .withAnnotations(Map.of(HintAnnotations.RAIL_ALIGNMENT, "required",
                        HintAnnotations.FABRIC_SCOPE, "leaf")).endMetadata()
                .addToAdditionalProperties("spec", Map.of("minMember", 4)).build()).create();
        client.resource(gangPod("kg-0", List.of("gpu-a1"))).create();
        client.resource(gangPod("kg-1", List.of("gpu-a2"))).create();
        String before = awaitBoundWithHint("kg-0").path("gpus").toString();
        awaitBoundWithHint("kg-1");
        String railsBefore = annotation("kg-0", HintAnnotations.RAILS);
        assertThat(annotation("kg-1", HintAnnotations.RAILS)).as("rails of kg-1 and kg-0").isEqualTo(railsBefore);
        for (String r : railsBefore.split(",")) {
            assertThat(lowRails).as("rails of kg-0 (%s): the earlier pods hold %s", before, lowRails)
                    .doesNotContain(Integer.parseInt(r));
        }

        RAILYARD[0].stop();
        RAILYARD[0].start();

        List<String> withTopology = SeedCluster.NODES.stream().filter(n -> n.machine().isPresent())
                .map(ClusterShape.Node::name).toList();
        client.resource(gangPod("kg-2", withTopology)).create();
        client.resource(gangPod("kg-3", withTopology)).create();
        JsonNode h2 = awaitBoundWithHint("kg-2");
        JsonNode h3 = awaitBoundWithHint("kg-3");
        assertThat(List.of(pod("kg-2").getSpec().getNodeName(), pod("kg-3").getSpec().getNodeName()))
                .as("nodes of kg-2 and kg-3").containsExactlyInAnyOrder("gpu-a3", "gpu-a4");
        assertThat(annotation("kg-2", HintAnnotations.RAILS)).as("rails of kg-2").isEqualTo(railsBefore);
        assertThat(annotation("kg-3", HintAnnotations.RAILS)).as("rails of kg-3").isEqualTo(railsBefore);
        assertThat(h2.path("rank").asInt()).isEqualTo(2);
        assertThat(h3.path("rank").asInt()).isEqualTo(3);
        // kg-3 is placed when all four exist (kg-2 may have been planned before Railyard saw kg-3)
        assertThat(h3.path("gang").asText()).isEqualTo("prod/kgang");
        assertThat(h3.path("gangSize").asInt()).isEqualTo(4);
    }

    /**
     * Issue 5, the scheduler-plugins coscheduling convention: a 2-pod × 4-GPU gang named only by the label
     * {@code scheduling.x-k8s.io/pod-group} and a {@code scheduling.x-k8s.io/v1alpha1} PodGroup (minMember 2, rail
     * alignment required), no Volcano PodGroup, and no coscheduling plugin in kube-scheduler: Railyard's filter and
     * bind steer each pod as it comes, and both pods land on the same rails of two nodes.
     *
     * <p>Deterministic by construction: cg-0 may only go to gpu-a1, where an earlier pod holds the GPUs of the
     * machine's two lowest rails, so it can only get the two highest. cg-1 may only go to gpu-a2, which is empty, and
     * a scheduling gate holds it back until cg-0 is bound, so kube-scheduler always takes cg-0 first. cg-1 is created
     * first, so Railyard knows both members when it plans cg-0 (gang size 2, ranks 0 and 1). A Railyard that ignored
     * the coscheduling PodGroup would judge cg-1 on its own and give it the lowest rails of the empty gpu-a2 (as the
     * scenario above notes for a gang planned without its bound members).
     */
    @Test
    void aCoschedulingGangNamedByLabelAndPodGroupLandsOnTheSameRailsOfTwoNodes() {
        Map<Integer, GpuHcaPair> pairs = FixtureMachines.pairsByGpu(FixtureMachines.spec(FixtureMachines.PCIE_8GPU));
        List<Integer> rails = new ArrayList<>(new TreeSet<>(pairs.values().stream().map(GpuHcaPair::rail).toList()));
        Set<Integer> lowRails = Set.copyOf(rails.subList(0, 2));
        client.resource(earlierPod("earlier-gpu-a1", "gpu-a1", pairs.values().stream()
                .filter(p -> lowRails.contains(p.rail())).toList())).create();
        client.resource(new GenericKubernetesResourceBuilder().withApiVersion(ClusterView.COSCHEDULING_POD_GROUP_API)
                .withKind("PodGroup").withNewMetadata().withName("cgang").withNamespace(SeedWorkloads.NAMESPACE)
                .withAnnotations(Map.of(HintAnnotations.RAIL_ALIGNMENT, "required")).endMetadata()
                .addToAdditionalProperties("spec", Map.of("minMember", 2)).build()).create();
        client.resource(coschedulingPod("cg-1", "gpu-a2", true)).create();
        client.resource(coschedulingPod("cg-0", "gpu-a1", false)).create();

        JsonNode h0 = awaitBoundWithHint("cg-0");
        assertThat(pod("cg-0").getSpec().getNodeName()).isEqualTo("gpu-a1");
        String rails0 = annotation("cg-0", HintAnnotations.RAILS);
        for (String r : rails0.split(",")) {
            assertThat(lowRails).as("rails of cg-0 (%s): the earlier pod holds %s", h0.path("gpus"), lowRails)
                    .doesNotContain(Integer.parseInt(r));
        }
        assertThat(h0.path("gang").asText()).isEqualTo("prod/cgang");
        assertThat(h0.path("gangSize").asInt()).isEqualTo(2);
        assertThat(h0.path("rank").asInt()).isZero();

        client.pods().inNamespace(SeedWorkloads.NAMESPACE).withName("cg-1").edit(p -> {
            p.getSpec().setSchedulingGates(List.of());
            return p;
        });
        JsonNode h1 = awaitBoundWithHint("cg-1");
        assertThat(pod("cg-1").getSpec().getNodeName()).isEqualTo("gpu-a2");
        assertThat(annotation("cg-1", HintAnnotations.RAILS)).as("rails of cg-1 and cg-0").isEqualTo(rails0);
        assertThat(h1.path("gang").asText()).isEqualTo("prod/cgang");
        assertThat(h1.path("gangSize").asInt()).isEqualTo(2);
        assertThat(h1.path("rank").asInt()).isEqualTo(1);
        assertThat(failedBinds()).isZero();
    }

    /**
     * A 4-GPU pod of the coscheduling PodGroup cgang (label {@code scheduling.x-k8s.io/pod-group}) for the default
     * scheduler, on {@code node} only; {@code gated}: with a scheduling gate, so kube-scheduler leaves it alone.
     */
    private static Pod coschedulingPod(String name, String node, boolean gated) {
        Pod pod = gangPod(name, List.of(node));
        pod.getMetadata().setAnnotations(null);
        pod.getMetadata().setLabels(Map.of("scheduling.x-k8s.io/pod-group", "cgang"));
        if (gated) {
            pod.getSpec().setSchedulingGates(List.of(new PodSchedulingGate("railyard.dev/e2e-after-cg-0")));
        }
        return pod;
    }

    /**
     * A 4-GPU pod of PodGroup kgang (Volcano's group annotation) for the default scheduler, on {@code nodes}, with one
     * slot of each seed HCA resource as the seed's rdma-test asks (so in Railyard's hint scope, docs/hints.md).
     */
    private static Pod gangPod(String name, List<String> nodes) {
        Map<String, Quantity> res = new java.util.LinkedHashMap<>(Map.of(RailyardExtenders.GPU, new Quantity("4")));
        for (int h = 0; h < 4; h++) {
            res.put("nvidia.com/mlx5_" + h, new Quantity("1"));
        }
        return new PodBuilder()
                .withNewMetadata().withName(name).withNamespace(SeedWorkloads.NAMESPACE)
                    .withAnnotations(Map.of("scheduling.k8s.io/group-name", "kgang")).endMetadata()
                .withNewSpec()
                    .withAffinity(new AffinityBuilder().withNewNodeAffinity()
                            .withNewRequiredDuringSchedulingIgnoredDuringExecution().addNewNodeSelectorTerm()
                            .addNewMatchExpression().withKey("kubernetes.io/hostname").withOperator("In")
                            .withValues(nodes).endMatchExpression().endNodeSelectorTerm()
                            .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().build())
                    .addNewContainer().withName("worker").withImage("torch")
                        .withNewResources().withRequests(res).withLimits(res).endResources()
                    .endContainer()
                .endSpec()
                .build();
    }

    /** An earlier pod on {@code node} holding {@code gpus}, with the placement hint Railyard would have written. */
    private static Pod earlierPod(String name, String node, List<GpuHcaPair> gpus) {
        StringBuilder hint = new StringBuilder("{\"version\":1,\"node\":\"" + node + "\",\"gang\":\"prod/" + name
                + "\",\"gangSize\":1,\"rank\":0,\"gpus\":[");
        for (int i = 0; i < gpus.size(); i++) {
            GpuHcaPair p = gpus.get(i);
            hint.append(i == 0 ? "" : ",").append("{\"gpu\":").append(p.gpu()).append(",\"hca\":\"")
                    .append(p.hca()).append("\",\"port\":1,\"rail\":").append(p.rail()).append(",\"distance\":\"")
                    .append(p.distance().name()).append("\"}");
        }
        hint.append("]}");
        Pod pod = SeedWorkloads.occupant(name, node, gpus.size());
        pod.getMetadata().setAnnotations(Map.of(HintAnnotations.PLACEMENT, hint.toString()));
        return pod;
    }

    private JsonNode awaitBoundWithHint(String name) {
        try {
            Pod p = await().atMost(BIND).pollInterval(Duration.ofMillis(250)).until(() -> pod(name),
                    x -> x.getSpec().getNodeName() != null && ClusterView.placementHint(x).isPresent());
            return ClusterView.placementHint(p).orElseThrow();
        } catch (ConditionTimeoutException e) {
            Pod p = pod(name);
            throw new AssertionError(name + " not bound with a hint in " + BIND.toSeconds() + " s; node "
                    + p.getSpec().getNodeName() + ", conditions " + p.getStatus().getConditions()
                    + ", extender calls " + callCounts(), e);
        }
    }

    private String annotation(String name, String key) {
        return ClusterView.annotation(pod(name), key).orElseThrow(() -> new AssertionError(name + " has no " + key));
    }

    private Pod pod(String name) {
        return client.pods().inNamespace(SeedWorkloads.NAMESPACE).withName(name).get();
    }
}
