package dev.railyard.scheduler.hints.delivery;

import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.scheduler.hints.HintFixtures;
import dev.railyard.scheduler.hints.delivery.HintBackfill.Outcome;
import dev.railyard.scheduler.protocol.PodRef;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The backfill against fabric8's mock API server in CRUD mode (pods, JSON merge patch, events). */
@EnableKubernetesMockClient(crud = true)
class HintBackfillTest {
    KubernetesMockServer server;
    KubernetesClient client;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<String> calls = new CopyOnWriteArrayList<>();
    private HintBackfill backfill;

    /** Fast settings: no first delay, 10 ms doubling to 40 ms, {@code attempts} attempts. */
    private HintBackfill backfill(HintSource source, int attempts, int eventsPerSecond) {
        HintSource recording = (pod, node) -> {
            calls.add(pod + "@" + node);
            return source.hintsFor(pod, node);
        };
        backfill = new HintBackfill(client, recording, new HintBackfill.Settings(Duration.ZERO, attempts,
                Duration.ofMillis(10), 2.0, Duration.ofMillis(40), eventsPerSecond, 100), registry);
        return backfill;
    }

    @AfterEach
    void close() {
        if (backfill != null) {
            backfill.close();
        }
    }

    /** Creates the pod; the mock API server assigns the UID, which is returned. */
    private String pod(String name, String node, Map<String, String> annotations) {
        return client.pods().inNamespace("prod").resource(new PodBuilder().withNewMetadata().withName(name)
                .withNamespace("prod").withAnnotations(annotations).endMetadata()
                .withNewSpec().withNodeName(node).endSpec().build()).create().getMetadata().getUid();
    }

    private static Outcome await(CompletionStage<Outcome> stage) throws Exception {
        return stage.toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    private List<Event> events() {
        return client.v1().events().inNamespace("prod").list().getItems();
    }

    @Test
    void patchesTheHintsOntoABoundPodAndSaysSoInAnEvent() throws Exception {
        String uid = pod("w-0", "gpu-a1", Map.of("k8s.v1.cni.cncf.io/networks", "rdma-net-ipam-lan2"));
        Map<String, String> hints = HintFixtures.annotations("gpu-a1");
        var b = backfill((p, n) -> new HintLookup.Hints(hints), 3, 5);
        assertThat(await(b.enqueue(new PodRef("prod", "w-0", uid), "gpu-a1", "webhook timed out")))
                .isEqualTo(Outcome.PATCHED);
        Map<String, String> expected = new HashMap<>(hints);
        expected.put("k8s.v1.cni.cncf.io/networks", "rdma-net-ipam-lan2"); // the merge patch kept it
        assertThat(client.pods().inNamespace("prod").withName("w-0").get().getMetadata().getAnnotations())
                .containsExactlyInAnyOrderEntriesOf(expected);
        assertThat(events()).singleElement().satisfies(e -> {
            assertThat(e.getReason()).isEqualTo("RailyardHintsBackfilled");
            assertThat(e.getType()).isEqualTo("Normal");
            assertThat(e.getInvolvedObject().getKind()).isEqualTo("Pod");
            assertThat(e.getInvolvedObject().getName()).isEqualTo("w-0");
            assertThat(e.getInvolvedObject().getUid()).isEqualTo(uid);
            assertThat(e.getMessage()).isEqualTo(HintBackfill.eventMessage("gpu-a1", "webhook timed out"));
            assertThat(e.getSource().getComponent()).isEqualTo("railyard");
        });
        assertThat(registry.counter("railyard_hint_backfill_total", "outcome", "patched").count()).isEqualTo(1);
    }

    @Test
    void waitsForTheBindThenPatches() throws Exception {
        String uid = pod("w-1", null, null);
        // up to 200 attempts 40 ms apart: several seconds for the test to bind the pod
        var b = backfill((p, n) -> new HintLookup.Hints(Map.of(HintAnnotations.RAILS, "0")), 200, 5);
        // the webhook saw the Binding before the API server stored it: the first attempts find no nodeName
        CompletionStage<Outcome> done = b.enqueue(new PodRef("prod", "w-1", uid), "gpu-a1", "cold cache");
        // create + at least two reads of the unbound pod
        org.awaitility.Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> server.getRequestCount() >= 3);
        client.pods().inNamespace("prod").withName("w-1").edit(p -> new PodBuilder(p).editSpec()
                .withNodeName("gpu-a1").endSpec().build());
        assertThat(await(done)).isEqualTo(Outcome.PATCHED);
        assertThat(client.pods().inNamespace("prod").withName("w-1").get().getMetadata().getAnnotations())
                .containsEntry(HintAnnotations.RAILS, "0");
        assertThat(calls).containsExactly("prod/w-1@gpu-a1"); // the source is asked only once the pod is bound
    }

    @Test
    void hintsFollowTheNodeThePodWasReallyBoundTo() throws Exception {
        String uid = pod("w-2", "gpu-a2", null);
        var b = backfill((p, n) -> new HintLookup.Hints(Map.of(HintAnnotations.RAILS, n)), 3, 5);
        assertThat(await(b.enqueue(new PodRef("prod", "w-2", uid), "gpu-a1", "x"))).isEqualTo(Outcome.PATCHED);
        assertThat(calls).containsExactly("prod/w-2@gpu-a2");
    }

    @Test
    void aPodAlreadyHintedForItsNodeIsLeftAlone() throws Exception {
        pod("w-3", "gpu-a1", HintFixtures.annotations("gpu-a1"));
        var b = backfill((p, n) -> new HintLookup.Hints(Map.of("x", "y")), 3, 5);
        assertThat(await(b.enqueue(new PodRef("prod", "w-3", ""), "gpu-a1", "x"))).isEqualTo(Outcome.ALREADY_HINTED);
        assertThat(events()).isEmpty();
        assertThat(calls).isEmpty();
    }

    @Test
    void goneOrRecreatedPodsStop() throws Exception {
        var b = backfill((p, n) -> new HintLookup.Hints(Map.of("x", "y")), 3, 5);
        assertThat(await(b.enqueue(new PodRef("prod", "nope", ""), "gpu-a1", "x"))).isEqualTo(Outcome.POD_GONE);
        pod("w-4", "gpu-a1", null); // the mock assigns a fresh UID: not "uid-old"
        assertThat(await(b.enqueue(new PodRef("prod", "w-4", "uid-old"), "gpu-a1", "x"))).isEqualTo(Outcome.POD_GONE);
        assertThat(calls).isEmpty();
    }

    @Test
    void aSourceThatStaysColdIsRetriedAFixedNumberOfTimes() throws Exception {
        String uid = pod("w-5", "gpu-a1", null);
        var b = backfill((p, n) -> new HintLookup.NotReady("cold"), 4, 5);
        assertThat(await(b.enqueue(new PodRef("prod", "w-5", uid), "gpu-a1", "x"))).isEqualTo(Outcome.GAVE_UP);
        assertThat(calls).hasSize(4);
        assertThat(client.pods().inNamespace("prod").withName("w-5").get().getMetadata().getAnnotations())
                .isNullOrEmpty();
    }

    @Test
    void notApplicableStopsAtOnce() throws Exception {
        String uid = pod("w-6", "gpu-a1", null);
        var b = backfill((p, n) -> new HintLookup.NotApplicable("no GPUs"), 4, 5);
        assertThat(await(b.enqueue(new PodRef("prod", "w-6", uid), "gpu-a1", "x")))
                .isEqualTo(Outcome.NOT_APPLICABLE);
        assertThat(calls).hasSize(1);
    }

    @Test
    void aPendingPodIsNotQueuedTwice() throws Exception {
        String uid = pod("w-7", null, null);
        var b = backfill((p, n) -> new HintLookup.Hints(Map.of("x", "y")), 3, 5);
        CompletionStage<Outcome> first = b.enqueue(new PodRef("prod", "w-7", uid), "gpu-a1", "x");
        CompletionStage<Outcome> second = b.enqueue(new PodRef("prod", "w-7", uid), "gpu-a1", "x");
        assertThat(second).isSameAs(first);
        assertThat(b.pendingCount()).isEqualTo(1);
    }

    @Test
    void eventsAreRateLimitedButPatchesAreNot() throws Exception {
        int pods = 5;
        List<CompletionStage<Outcome>> all = new java.util.ArrayList<>();
        List<String> uids = new java.util.ArrayList<>();
        for (int i = 0; i < pods; i++) {
            uids.add(pod("r-" + i, "gpu-a1", null));
        }
        var b = backfill((p, n) -> new HintLookup.Hints(Map.of(HintAnnotations.RAILS, "0")), 3, 1);
        for (int i = 0; i < pods; i++) {
            all.add(b.enqueue(new PodRef("prod", "r-" + i, uids.get(i)), "gpu-a1", "x"));
        }
        for (CompletionStage<Outcome> s : all) {
            assertThat(await(s)).isEqualTo(Outcome.PATCHED);
        }
        double skipped = registry.counter("railyard_hint_backfill_events_skipped_total").count();
        // one Event permit per second: five back-to-back patches on one thread take well under four seconds, so
        // at least one Event is skipped; every pod is patched either way
        assertThat(events().size() + (int) skipped).isEqualTo(pods);
        assertThat(skipped).isGreaterThanOrEqualTo(1);
    }

    @Test
    void aFullQueueDrops() throws Exception {
        backfill = new HintBackfill(client, (p, n) -> new HintLookup.NotReady("cold"), new HintBackfill.Settings(
                Duration.ofHours(1), 1, Duration.ofSeconds(1), 1, Duration.ofSeconds(1), 1, 1), registry);
        backfill.enqueue(new PodRef("prod", "a", ""), "n", "x");
        assertThat(await(backfill.enqueue(new PodRef("prod", "b", ""), "n", "x"))).isEqualTo(Outcome.DROPPED);
    }
}
