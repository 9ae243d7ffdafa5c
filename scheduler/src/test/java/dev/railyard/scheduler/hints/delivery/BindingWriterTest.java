package dev.railyard.scheduler.hints.delivery;

import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.scheduler.hints.HintFixtures;
import dev.railyard.scheduler.protocol.RecordingDecisions;
import dev.railyard.scheduler.protocol.WireReply;
import dev.railyard.scheduler.protocol.WireResources;
import dev.railyard.scheduler.protocol.kube.KubeExtender;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * kube-scheduler's bind verb end to end: the extender adapter reads ExtenderBindingArgs (wire/kube/bind.json:
 * pod ml/bert-finetune-0, UID 3c4d5e6f-..., node gpu-a-017) and the {@link BindingWriter} posts the Binding to
 * fabric8's mock API server, where the request is inspected.
 */
@EnableKubernetesMockClient
class BindingWriterTest {
    KubernetesMockServer server;
    KubernetesClient client;

    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * fabric8's typed {@code client.bindings()}: the namespace's {@code bindings} collection, the pod named only in
     * the body's {@code metadata.name} (kubernetes v1.35.4 LegacyBindingREST hands that name to BindingREST).
     */
    private static final String PATH = "/api/v1/namespaces/ml/bindings";
    private final List<String> calls = new CopyOnWriteArrayList<>();
    private HintBackfill backfill;

    @AfterEach
    void close() {
        if (backfill != null) {
            backfill.close();
        }
    }

    private String bind(RecordingDecisions port, HintSource source) {
        HintSource recording = (pod, node) -> {
            calls.add(pod + "@" + node + " uid=" + pod.uid());
            return source.hintsFor(pod, node);
        };
        // a backfill that never gets to run within the test: only its queue is looked at
        backfill = new HintBackfill(client, recording, new HintBackfill.Settings(Duration.ofHours(1), 1,
                Duration.ofSeconds(1), 1, Duration.ofSeconds(1), 1, 10), null);
        KubeExtender ext = new KubeExtender(port, new BindingWriter(client, recording, backfill), 50,
                new SimpleMeterRegistry());
        try {
            WireReply reply = ext.bind(WireResources.load("kube/bind.json"));
            return reply.bodyText();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private JsonNode postedBinding() throws InterruptedException {
        RecordedRequest req = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(req).isNotNull();
        assertThat(req.getMethod()).isEqualTo("POST");
        assertThat(req.getPath()).isEqualTo(PATH);
        return JSON.readTree(req.getUtf8Body());
    }

    private static Map<String, String> annotations(JsonNode binding) {
        Map<String, String> m = new LinkedHashMap<>();
        binding.path("metadata").path("annotations").properties().forEach(e -> m.put(e.getKey(), e.getValue().asString()));
        return m;
    }

    @Test
    void bindVerbPostsABindingCarryingExactlyTheHintAnnotations() throws Exception {
        server.expect().post().withPath(PATH).andReturn(201, "{}").once();
        Map<String, String> hints = HintFixtures.annotations("gpu-a-017");
        String reply = bind(new RecordingDecisions(), (pod, node) -> new HintLookup.Hints(hints));
        assertThat(reply).isEqualTo("{\"Error\":\"\"}");
        JsonNode b = postedBinding();
        assertThat(b.path("apiVersion").asString()).isEqualTo("v1");
        assertThat(b.path("kind").asString()).isEqualTo("Binding");
        assertThat(b.path("metadata").path("name").asString()).isEqualTo("bert-finetune-0");
        assertThat(b.path("metadata").path("namespace").asString()).isEqualTo("ml");
        // the pod UID is the API server's precondition against a re-created pod of the same name
        assertThat(b.path("metadata").path("uid").asString()).isEqualTo("3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f");
        assertThat(annotations(b)).containsExactlyInAnyOrderEntriesOf(hints);
        assertThat(b.path("target").path("kind").asString()).isEqualTo("Node");
        assertThat(b.path("target").path("name").asString()).isEqualTo("gpu-a-017");
        // hints computed for the node of the bind request
        assertThat(calls).containsExactly("ml/bert-finetune-0@gpu-a-017 uid=3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f");
        assertThat(backfill.pendingCount()).isZero();
    }

    @Test
    void hintsFromThePortAreUsedAsTheyAre() throws Exception {
        server.expect().post().withPath(PATH).andReturn(201, "{}").once();
        RecordingDecisions port = new RecordingDecisions();
        port.hints = Map.of(HintAnnotations.PLACEMENT, "{\"version\":1}", HintAnnotations.RAILS, "0");
        bind(port, (pod, node) -> {
            throw new AssertionError("not asked when the port already has the placement");
        });
        assertThat(annotations(postedBinding())).containsExactlyInAnyOrderEntriesOf(port.hints);
    }

    @Test
    void coldSourceBindsWithoutHintsAndQueuesTheBackfill() throws Exception {
        server.expect().post().withPath(PATH).andReturn(201, "{}").once();
        String reply = bind(new RecordingDecisions(), (pod, node) -> new HintLookup.NotReady("cache cold"));
        assertThat(reply).isEqualTo("{\"Error\":\"\"}");
        assertThat(postedBinding().path("metadata").has("annotations")).isFalse();
        assertThat(backfill.pendingCount()).isEqualTo(1);
    }

    @Test
    void notApplicableBindsWithoutHintsAndNoBackfill() throws Exception {
        server.expect().post().withPath(PATH).andReturn(201, "{}").once();
        bind(new RecordingDecisions(), (pod, node) -> new HintLookup.NotApplicable("no GPUs requested"));
        assertThat(postedBinding().path("metadata").has("annotations")).isFalse();
        assertThat(backfill.pendingCount()).isZero();
    }

    @Test
    void aConflictGoesBackToKubeSchedulerAsOneLine() {
        // the API server's answer to a second bind (pkg/registry/core/pod/storage assignPod)
        server.expect().post().withPath(PATH).andReturn(409, "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                + "\"status\":\"Failure\",\"message\":\"Operation cannot be fulfilled on pods/binding "
                + "\\\"bert-finetune-0\\\": pod bert-finetune-0 is already assigned to node \\\"gpu-a-018\\\"\","
                + "\"reason\":\"Conflict\",\"code\":409}").once();
        String reply = bind(new RecordingDecisions(), (pod, node) -> new HintLookup.NotApplicable("-"));
        assertThat(reply).isEqualTo("{\"Error\":\"binding ml/bert-finetune-0 to gpu-a-017 failed: conflict "
                + "(already bound, or UID/resourceVersion precondition failed): Operation cannot be fulfilled on "
                + "pods/binding \\\"bert-finetune-0\\\": pod bert-finetune-0 is already assigned to node "
                + "\\\"gpu-a-018\\\"\"}");
    }
}
