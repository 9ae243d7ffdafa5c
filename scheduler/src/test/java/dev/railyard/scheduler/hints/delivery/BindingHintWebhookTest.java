package dev.railyard.scheduler.hints.delivery;

import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.scheduler.hints.HintFixtures;
import dev.railyard.scheduler.protocol.WireFormatException;
import dev.railyard.scheduler.protocol.WireReply;
import dev.railyard.scheduler.server.ExtenderServer;
import dev.railyard.scheduler.server.ReadinessProbe;
import dev.railyard.scheduler.server.ServerSettings;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.zjsonpatch.JsonPatch;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The webhook's AdmissionReview answer, checked the way the API server uses it: the base64 JSON patch is decoded
 * and applied (with fabric8's zjsonpatch, an independent RFC 6902 implementation) to the Binding from the request.
 */
@EnableKubernetesMockClient(crud = true)
class BindingHintWebhookTest {
    KubernetesMockServer server;
    KubernetesClient client;

    /** Jackson 3, as zjsonpatch 8 uses it. */
    private static final ObjectMapper JSON = new ObjectMapper();
    private final List<String> calls = new CopyOnWriteArrayList<>();
    private HintBackfill backfill;

    @AfterEach
    void close() {
        if (backfill != null) {
            backfill.close();
        }
    }

    private static byte[] resource(String name) throws Exception {
        try (InputStream in = BindingHintWebhookTest.class.getResourceAsStream("/admission/" + name)) {
            return in.readAllBytes();
        }
    }

    private BindingHintWebhook webhook(HintSource source, Duration budget) {
        HintSource recording = (pod, node) -> {
            calls.add(pod + "@" + node + " uid=" + pod.uid());
            return source.hintsFor(pod, node);
        };
        backfill = new HintBackfill(client, recording, new HintBackfill.Settings(Duration.ofMillis(50), 20,
                Duration.ofMillis(50), 1.5, Duration.ofMillis(200), 5, 100), null);
        return new BindingHintWebhook(recording, backfill, budget, null);
    }

    private static JsonNode response(WireReply reply) {
        assertThat(reply.status()).isEqualTo(200);
        JsonNode root = JSON.readTree(reply.bodyText());
        assertThat(root.path("apiVersion").asString()).isEqualTo("admission.k8s.io/v1");
        assertThat(root.path("kind").asString()).isEqualTo("AdmissionReview");
        assertThat(root.path("response").path("allowed").asBoolean()).isTrue();
        return root.path("response");
    }

    /** Applies the response's patch to the request's Binding, as the API server does. */
    private static JsonNode patched(byte[] request, JsonNode response) {
        assertThat(response.path("patchType").asString()).isEqualTo("JSONPatch");
        JsonNode patch = JSON.readTree(Base64.getDecoder().decode(response.path("patch").asString()));
        JsonNode binding = JSON.readTree(request).path("request").path("object");
        return JsonPatch.apply(patch, binding);
    }

    private static Map<String, String> annotations(JsonNode binding) {
        Map<String, String> m = new LinkedHashMap<>();
        binding.path("metadata").path("annotations").properties().forEach(e -> m.put(e.getKey(), e.getValue().asString()));
        return m;
    }

    @Test
    void volcanoBindingKeepsItsAnnotationsAndGainsTheHints() throws Exception {
        Map<String, String> hints = HintFixtures.annotations("gpu-a1");
        byte[] req = resource("pods-binding-volcano.json");
        JsonNode resp = response(webhook((p, n) -> new HintLookup.Hints(hints), Duration.ofSeconds(2)).handle(req));
        assertThat(resp.path("uid").asString()).isEqualTo("705ab4f5-6393-11e8-b7cc-42010a800002");
        // one add per key, '/' in the key escaped as ~1 (RFC 6901)
        JsonNode patch = JSON.readTree(Base64.getDecoder().decode(resp.path("patch").asString()));
        assertThat(patch.findValuesAsString("path")).contains("/metadata/annotations/railyard.dev~1placement");
        JsonNode binding = patched(req, resp);
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("k8s.v1.cni.cncf.io/networks",
                "rdma-net-ipam-lan2,rdma-net-ipam-lan3,rdma-net-ipam-lan4,rdma-net-ipam-lan5");
        expected.put("scheduling.k8s.io/group-name", "rdma-test");
        expected.put("volcano.sh/job-name", "rdma-test");
        expected.putAll(hints); // the stale railyard.dev/nccl-ib-hca "mlx5" copied from the pod is replaced
        assertThat(annotations(binding)).containsExactlyInAnyOrderEntriesOf(expected);
        assertThat(binding.path("target").path("name").asString()).isEqualTo("gpu-a1");
        // computed for the Binding's node and pod, with the pod UID from the Binding
        assertThat(calls).containsExactly("prod/rdma-test-master-0@gpu-a1 uid=9b6f1c2e-8d4a-4e1b-9f3c-2a7d5e8b1c40");
    }

    @Test
    void bindingWithoutAnnotationsGetsTheWholeMapInOneAdd() throws Exception {
        Map<String, String> hints = HintFixtures.annotations("gpu-a-017");
        byte[] req = resource("pods-binding-kube-scheduler.json");
        JsonNode resp = response(webhook((p, n) -> new HintLookup.Hints(hints), Duration.ofSeconds(2)).handle(req));
        JsonNode patch = JSON.readTree(Base64.getDecoder().decode(resp.path("patch").asString()));
        assertThat(patch.size()).isEqualTo(1);
        assertThat(patch.get(0).path("path").asString()).isEqualTo("/metadata/annotations");
        assertThat(annotations(patched(req, resp))).containsExactlyInAnyOrderEntriesOf(hints);
    }

    @Test
    void nullAnnotationsAndMissingMetadataAreHandled() throws Exception {
        Map<String, String> hints = Map.of(HintAnnotations.NCCL_IB_HCA, "=mlx5_0:1");
        BindingHintWebhook w = webhook((p, n) -> new HintLookup.Hints(hints), Duration.ofSeconds(2));
        ObjectNode root = (ObjectNode) JSON.readTree(resource("pods-binding-kube-scheduler.json"));
        ObjectNode meta = (ObjectNode) root.path("request").path("object").path("metadata");
        meta.putNull("annotations");
        byte[] req = JSON.writeValueAsBytes(root);
        assertThat(annotations(patched(req, response(w.handle(req))))).containsExactlyEntriesOf(hints);

        ((ObjectNode) root.path("request").path("object")).remove("metadata");
        ((ObjectNode) root.path("request")).put("name", "bert-finetune-0");
        byte[] noMeta = JSON.writeValueAsBytes(root);
        assertThat(annotations(patched(noMeta, response(w.handle(noMeta))))).containsExactlyEntriesOf(hints);
    }

    @Test
    void hintsAlreadyOnTheBindingNeedNoPatch() throws Exception {
        Map<String, String> hints = Map.of("scheduling.k8s.io/group-name", "rdma-test");
        JsonNode resp = response(webhook((p, n) -> new HintLookup.Hints(hints), Duration.ofSeconds(2))
                .handle(resource("pods-binding-volcano.json")));
        assertThat(resp.has("patch")).isFalse();
    }

    @Test
    void pointerTokensEscapeTildeThenSlash() {
        assertThat(BindingHintWebhook.pointerToken("railyard.dev/placement")).isEqualTo("railyard.dev~1placement");
        // RFC 6901 §3: '~' first, else "~1" would turn into "~01"
        assertThat(BindingHintWebhook.pointerToken("a~1/b")).isEqualTo("a~01~1b");
    }

    @Test
    void coldCacheAllowsWithoutPatchThenBackfillPatchesThePod() throws Exception {
        // the pod as the API server holds it after the (hint-less) bind went through
        String uid = client.pods().inNamespace("prod").resource(new PodBuilder().withNewMetadata()
                .withName("rdma-test-master-0").withNamespace("prod").endMetadata()
                .withNewSpec().withNodeName("gpu-a1").endSpec().build()).create().getMetadata().getUid();
        // the Binding carries the pod's UID (the mock server assigned it)
        ObjectNode review = (ObjectNode) JSON.readTree(resource("pods-binding-volcano.json"));
        ((ObjectNode) review.path("request").path("object").path("metadata")).put("uid", uid);
        Map<String, String> hints = HintFixtures.annotations("gpu-a1");
        AtomicReference<HintLookup> answer = new AtomicReference<>(new HintLookup.NotReady("node cache not synced"));
        BindingHintWebhook w = webhook((p, n) -> answer.get(), Duration.ofSeconds(2));

        JsonNode resp = response(w.handle(JSON.writeValueAsBytes(review)));
        assertThat(resp.has("patch")).isFalse();
        assertThat(backfill.pendingCount()).isEqualTo(1);

        answer.set(new HintLookup.Hints(hints)); // the cache warms up
        await().atMost(10, TimeUnit.SECONDS).until(() -> backfill.pendingCount() == 0);
        Pod pod = client.pods().inNamespace("prod").withName("rdma-test-master-0").get();
        assertThat(pod.getMetadata().getAnnotations()).containsAllEntriesOf(hints);
        assertThat(client.v1().events().inNamespace("prod").list().getItems())
                .anyMatch(e -> HintBackfill.EVENT_REASON.equals(e.getReason()));
    }

    @Test
    void aSlowSourceIsAbandonedAtTheBudgetAndThePodBackfilled() {
        CountDownLatch never = new CountDownLatch(1);
        BindingHintWebhook w = webhook((p, n) -> {
            try {
                never.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new HintLookup.Hints(Map.of("x", "y"));
        }, Duration.ofMillis(100));
        // guard only: the test fails instead of hanging if the webhook waited for the source
        JsonNode resp = assertTimeoutPreemptively(Duration.ofSeconds(20),
                () -> response(w.handle(resource("pods-binding-volcano.json"))));
        assertThat(resp.has("patch")).isFalse();
        assertThat(backfill.pendingCount()).isEqualTo(1);
    }

    @Test
    void aFailingSourceStillAllows() throws Exception {
        JsonNode resp = response(webhook((p, n) -> {
            throw new IllegalStateException("bug");
        }, Duration.ofSeconds(2)).handle(resource("pods-binding-kube-scheduler.json")));
        assertThat(resp.has("patch")).isFalse();
        assertThat(backfill.pendingCount()).isEqualTo(1);
    }

    @Test
    void dryRunQueuesNoBackfill() throws Exception {
        ObjectNode root = (ObjectNode) JSON.readTree(resource("pods-binding-volcano.json"));
        ((ObjectNode) root.path("request")).put("dryRun", true);
        JsonNode resp = response(webhook((p, n) -> new HintLookup.NotReady("cold"), Duration.ofSeconds(2))
                .handle(JSON.writeValueAsBytes(root)));
        assertThat(resp.has("patch")).isFalse();
        assertThat(backfill.pendingCount()).isZero();
    }

    @Test
    void somethingOtherThanAPodsBindingCreateIsLetThrough() throws Exception {
        ObjectNode root = (ObjectNode) JSON.readTree(resource("pods-binding-volcano.json"));
        ((ObjectNode) root.path("request")).put("subResource", "status");
        JsonNode resp = response(webhook((p, n) -> new HintLookup.Hints(Map.of("x", "y")), Duration.ofSeconds(2))
                .handle(JSON.writeValueAsBytes(root)));
        assertThat(resp.has("patch")).isFalse();
        assertThat(calls).isEmpty();
    }

    @Test
    void notAnAdmissionReviewIsA400Reason() {
        BindingHintWebhook w = webhook((p, n) -> new HintLookup.NotApplicable("-"), Duration.ofSeconds(1));
        assertThatThrownBy(() -> w.handle(new byte[0])).isInstanceOf(WireFormatException.class)
                .hasMessage("admission pods-binding: empty request body, expected an AdmissionReview");
        assertThatThrownBy(() -> w.handle("{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}".getBytes()))
                .hasMessage("admission pods-binding: apiVersion must be admission.k8s.io/v1 (an AdmissionReview), got 'v1'");
        assertThatThrownBy(() -> w.handle("{\"apiVersion\":\"admission.k8s.io/v1\",\"request\":{}}".getBytes()))
                .hasMessage("admission pods-binding: request.uid is missing");
        assertThatThrownBy(() -> w.handle("{\"apiVersion\":".getBytes()))
                .hasMessageStartingWith("admission pods-binding: malformed JSON at line 1");
    }

    @Test
    void servedByTheExtenderServerAtItsRoute() throws Exception {
        Map<String, String> hints = Map.of(HintAnnotations.NCCL_IB_HCA, "=mlx5_0:1");
        BindingHintWebhook w = webhook((p, n) -> new HintLookup.Hints(hints), Duration.ofSeconds(2));
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (ExtenderServer s = ExtenderServer.start(new ServerSettings(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1 << 20, null), w.routes(),
                ReadinessProbe.always(), registry)) {
            byte[] req = resource("pods-binding-kube-scheduler.json");
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + s.port() + BindingHintWebhook.PATH))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(req)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            JsonNode resp = JSON.readTree(r.body()).path("response");
            assertThat(annotations(patched(req, resp))).containsExactly(entry(HintAnnotations.NCCL_IB_HCA, "=mlx5_0:1"));
        }
    }
}
