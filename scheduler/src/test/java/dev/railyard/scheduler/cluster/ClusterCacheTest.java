package dev.railyard.scheduler.cluster;

import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Queue;
import java.util.HashMap;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The cache against fabric8's mock API server in CRUD mode, with API discovery answered by expectations. */
class ClusterCacheTest {
    private KubernetesMockServer server;
    private KubernetesClient client;
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    /** CRUD storage plus expectations (KubernetesMixedDispatcher), as {@code @EnableKubernetesMockClient(crud = true)}. */
    @BeforeEach
    void startTheMockServer() {
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        server = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
                new KubernetesMixedDispatcher(responses), false);
        server.init();
        client = server.createClient();
    }

    /**
     * Closes the client, then the mock server. Once on CI and once here (in about ten runs of this class) the
     * mock server's own close did not finish within its 10 s ("Unable to close MockWebServer": Vert.x's
     * {@code HttpServer.close()} timing out), after every test step had passed and the cache had been closed. That
     * is the mock's shutdown, not the behaviour under test, so it is reported with the threads that were still
     * running (to find which connection kept it open) instead of failing the test.
     */
    @AfterEach
    void stopTheMockServer() {
        client.close();
        try {
            server.destroy();
        } catch (IllegalStateException slowClose) {
            StringBuilder threads = new StringBuilder();
            Thread.getAllStackTraces().forEach((t, stack) -> {
                if (t.getName().contains("vert.x") || t.getName().contains("Informer")
                        || t.getName().contains("railyard")) {
                    threads.append("\n  ").append(t.getName()).append(' ').append(t.getState());
                    for (int k = 0; k < Math.min(6, stack.length); k++) {
                        threads.append("\n      at ").append(stack[k]);
                    }
                }
            });
            System.err.println("ClusterCacheTest: the mock server did not close within its 10 s (" + slowClose
                    + "); threads still running:" + threads);
        }
    }

    @Test
    void missingCrdSwitchesItsFeatureOffAndOnWhenTheCrdAppears() {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-a1").endMetadata().build()).create();
        client.pods().inNamespace("prod").resource(new PodBuilder().withNewMetadata().withName("p0")
                .withNamespace("prod").endMetadata().build()).create();

        try (ClusterCache cache = new ClusterCache(client, registry, Clock.systemUTC(), Duration.ZERO,
                Duration.ofSeconds(1), new ClusterState(null, null, null, Clock.systemUTC()))) {
            cache.start();
            await().atMost(Duration.ofSeconds(10)).until(cache::synced);

            ClusterView first = cache.snapshot();
            // no discovery document is served for any CRD group yet, so every optional kind is off
            assertThat(first.objects().disabled()).contains(WatchedKind.NODE_TOPOLOGY, WatchedKind.IP_POOL,
                    WatchedKind.POD_GROUP);
            assertThat(first.objects().disabled()).doesNotContain(WatchedKind.NODE, WatchedKind.POD);
            assertThat(first.snapshot().nodeNames()).containsExactly("gpu-a1");
            assertThat(first.pods().keySet()).containsExactly("prod/p0");
            assertThat(registry.get("railyard_cache_feature_enabled").tag("kind", "NodeTopology").gauge().value())
                    .isZero();
            // nothing changed: the memoised snapshot is returned
            assertThat(cache.snapshot()).isSameAs(first);

            // the CRD gets installed: discovery now lists nodetopologies, and an object exists
            server.expect().get().withPath("/apis/railyard.dev/v1alpha1")
                    .andReturn(200, new APIResourceListBuilder().withGroupVersion("railyard.dev/v1alpha1")
                            .addNewResource().withName("nodetopologies").withKind("NodeTopology")
                            .withNamespaced(false).withVerbs("get", "list", "watch").endResource().build())
                    .always();
            var ctx = new ResourceDefinitionContext.Builder().withGroup("railyard.dev").withVersion("v1alpha1")
                    .withKind("NodeTopology").withPlural("nodetopologies").withNamespaced(false).build();
            GenericKubernetesResource topology = new GenericKubernetesResourceBuilder()
                    .withApiVersion("railyard.dev/v1alpha1").withKind("NodeTopology")
                    .withNewMetadata().withName("gpu-a1").endMetadata()
                    .withAdditionalProperties(Map.of("spec", Map.of("complete", true))).build();
            client.genericKubernetesResources(ctx).resource(topology).create();

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(cache.snapshot().snapshot().node("gpu-a1").topology()).isNotNull());
            ClusterView later = cache.snapshot();
            assertThat(later.objects().disabled()).doesNotContain(WatchedKind.NODE_TOPOLOGY)
                    .contains(WatchedKind.IP_POOL);
            assertThat(later.generation()).isGreaterThan(first.generation());
            assertThat(registry.get("railyard_cache_feature_enabled").tag("kind", "NodeTopology").gauge().value())
                    .isEqualTo(1.0);
        }
    }

    @Test
    void afterSyncAnEventsViewIsMadeInTheBackgroundAndTheNextCallReadsIt() {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-a1").endMetadata().build()).create();
        ClusterState state = new ClusterState(null, null, null, Clock.systemUTC());
        try (ClusterCache cache = new ClusterCache(client, registry, Clock.systemUTC(), Duration.ZERO,
                Duration.ofSeconds(1), state)) {
            java.util.List<ClusterView> handed = new java.util.concurrent.CopyOnWriteArrayList<>();
            cache.afterEachView(handed::add);
            cache.start();
            await().atMost(Duration.ofSeconds(10)).until(cache::synced);
            ClusterView first = cache.snapshot();
            assertThat(first.pods()).isEmpty();

            client.pods().inNamespace("prod").resource(new PodBuilder().withNewMetadata().withName("p0")
                    .withNamespace("prod").endMetadata().build()).create();

            // no snapshot() call from here on: the view that shows p0 is made by the cache's refresher (ViewRefresher)
            await().atMost(Duration.ofSeconds(10)).until(() -> state.lastView() != first
                    && state.lastView().pods().containsKey("prod/p0"));
            ClusterView made = state.lastView();
            assertThat(made.generation()).isGreaterThan(first.generation());
            assertThat(registry.get("railyard_view_refresh_seconds").timer().count()).isGreaterThanOrEqualTo(1);
            // and the scheduler's next call reads that view instead of making one
            assertThat(cache.snapshot()).isSameAs(made);
            // the view is handed on, on the refresher's thread, for the gangs to be prepared (afterEachView)
            await().atMost(Duration.ofSeconds(10)).until(() -> handed.contains(made));
        }
    }

    /** A client of an address where nothing listens, without fabric8's retries (one try per request). */
    private static KubernetesClient unreachable() throws Exception {
        int port;
        try (var socket = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();                       // closed again: nothing listens there
        }
        return new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(
                new io.fabric8.kubernetes.client.ConfigBuilder().withMasterUrl("https://127.0.0.1:" + port)
                        .withRequestRetryBackoffLimit(0).build()).build();
    }

    @Test
    void anUnreachableApiServerIsNamedInTheWarningNotHidden() throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream stderr = System.err;
        try (KubernetesClient down = unreachable();
             ClusterCache cache = new ClusterCache(down, registry, Clock.systemUTC(), Duration.ZERO,
                     Duration.ofMinutes(10), new ClusterState(null, null, null, Clock.systemUTC()))) {
            // slf4j-simple writes to whatever System.err is at the time
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            cache.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> captured.toString(StandardCharsets.UTF_8)
                    .contains("cannot watch Pod.core/v1"));
        } finally {
            System.setErr(stderr);
        }
        // was: "cannot watch Node.core/v1 (An error has occurred.); will retry in PT10M" (fabric8's message; the
        // ConnectException under it had no message of its own)
        assertThat(captured.toString(StandardCharsets.UTF_8))
                .contains("cannot watch Node.core/v1: cannot connect (connection refused: is the API server running "
                        + "and the kubeconfig's server address right?); will retry in 10m")
                .doesNotContain("An error has occurred");
        assertThat(registry.get("railyard_cache_feature_enabled").tag("kind", "Pod").gauge().value()).isZero();
    }

    @Test
    void everyKindIsTriedAtOnceNotOneAfterTheOther() throws Exception {
        // an API server that takes every request and answers none until released: were the kinds tried one after
        // the other (each try waits for its first list), only the first request would arrive
        Set<String> paths = ConcurrentHashMap.newKeySet();
        CountDownLatch release = new CountDownLatch(1);
        com.sun.net.httpserver.HttpServer api = com.sun.net.httpserver.HttpServer.create(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        api.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        api.createContext("/", exchange -> {
            paths.add(exchange.getRequestURI().getPath());
            try {
                release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.sendResponseHeaders(503, -1);
            exchange.close();
        });
        api.start();
        var config = new io.fabric8.kubernetes.client.ConfigBuilder()
                .withMasterUrl("http://127.0.0.1:" + api.getAddress().getPort()).withRequestRetryBackoffLimit(0)
                .withRequestTimeout(60_000).build();
        try (KubernetesClient held = new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(config)
                .build();
             ClusterCache cache = new ClusterCache(held, registry, Clock.systemUTC(), Duration.ZERO,
                     Duration.ofMinutes(10), new ClusterState(null, null, null, Clock.systemUTC()))) {
            cache.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> paths.containsAll(Set.of("/api/v1/nodes",
                    "/api/v1/pods", "/apis/railyard.dev/v1alpha1", "/apis/scheduling.volcano.sh/v1beta1")));
            // nothing answered yet: the cache has not finished its first pass, so it is not synced
            assertThat(cache.synced()).isFalse();
            // and no watch is broken: a kind waiting for its first list is starting (readiness names it as not
            // synced); before the fix every such kind counted as a broken watch from its start, so /readyz said
            // "broken for 35 s" once a slow first list had ended, until its watch began
            cache.checkWatches();
            assertThat(cache.longestOutage()).isEmpty();
        } finally {
            release.countDown();
            api.stop(0);
        }
    }

    @Test
    void theCoschedulingPodGroupIsAnOptionalKindThatComesOnWhenItsCrdAppears() {
        try (ClusterCache cache = new ClusterCache(client, registry, Clock.systemUTC(), Duration.ZERO,
                Duration.ofSeconds(1), new ClusterState(null, null, null, Clock.systemUTC()))) {
            cache.start();
            await().atMost(Duration.ofSeconds(10)).until(cache::synced);
            // not installed: off, and the gauge of its feature says 0 (the Volcano PodGroup has its own gauge)
            assertThat(cache.snapshot().objects().disabled()).contains(WatchedKind.COSCHEDULING_POD_GROUP);
            assertThat(registry.get("railyard_cache_feature_enabled").tag("kind", "PodGroup")
                    .tag("feature", "coscheduling gang plans").gauge().value()).isZero();

            // CRD podgroups.scheduling.x-k8s.io installed (scheduler-plugins manifests/coscheduling/crd.yaml)
            server.expect().get().withPath("/apis/scheduling.x-k8s.io/v1alpha1")
                    .andReturn(200, new APIResourceListBuilder().withGroupVersion("scheduling.x-k8s.io/v1alpha1")
                            .addNewResource().withName("podgroups").withKind("PodGroup").withNamespaced(true)
                            .withVerbs("get", "list", "watch").endResource().build())
                    .always();
            var ctx = new ResourceDefinitionContext.Builder().withGroup("scheduling.x-k8s.io")
                    .withVersion("v1alpha1").withKind("PodGroup").withPlural("podgroups").withNamespaced(true)
                    .build();
            client.genericKubernetesResources(ctx).inNamespace("prod").resource(new GenericKubernetesResourceBuilder()
                    .withApiVersion("scheduling.x-k8s.io/v1alpha1").withKind("PodGroup")
                    .withNewMetadata().withName("cgang").withNamespace("prod").endMetadata()
                    .withAdditionalProperties(Map.of("spec", Map.of("minMember", 2))).build()).create();

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(cache.snapshot().coschedulingGroups().keySet()).containsExactly("prod/cgang"));
            ClusterView later = cache.snapshot();
            assertThat(later.objects().disabled()).doesNotContain(WatchedKind.COSCHEDULING_POD_GROUP);
            assertThat(later.podGroups()).isEmpty();
            assertThat(registry.get("railyard_cache_feature_enabled").tag("kind", "PodGroup")
                    .tag("feature", "coscheduling gang plans").gauge().value()).isEqualTo(1.0);
            assertThat(later.coschedulingGroup("prod/cgang").minMember()).isEqualTo(2);
        }
    }

    /**
     * Issue 14: at 5,000 nodes a watch timed out under load, the other kinds synced, and the cache called itself
     * synced (so {@code /readyz} said ready) while the failed kind waited 30 s for its retry: serve answered neutrally
     * after it said ready. A kind whose watch could not start now keeps the cache unsynced until a retry lists it.
     */
    @Test
    void aKindWhoseWatchFailedKeepsTheCacheUnsyncedUntilItsRetryListsIt() {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-a1").endMetadata().build()).create();
        client.pods().inNamespace("prod").resource(new PodBuilder().withNewMetadata().withName("p0")
                .withNamespace("prod").endMetadata().build()).create();
        // the first list of pods is refused (as a timed-out or throttled request under load would end the try);
        // the retry, crdRecheck later, is answered by the CRUD server
        server.expect().get().withPath(POD_LIST).andReturn(403, "{\"kind\":\"Status\",\"code\":403}").once();
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream stderr = System.err;
        try (ClusterCache cache = new ClusterCache(client, registry, Clock.systemUTC(), Duration.ZERO,
                Duration.ofSeconds(3), new ClusterState(null, null, null, Clock.systemUTC()))) {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            cache.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> captured.toString(StandardCharsets.UTF_8)
                    .contains("cannot watch Pod.core/v1"));
            // the Node informer and every optional kind's look-up are done; the pods are not
            await().atMost(Duration.ofSeconds(10)).until(() -> !cache.notSynced().contains(WatchedKind.NODE));
            assertThat(cache.notSynced()).contains(WatchedKind.POD);
            // whenever the cache says synced, the pods are in its view: before the fix it said synced at the end
            // of the first pass, with no pods
            await().atMost(Duration.ofSeconds(15)).until(cache::synced);
            assertThat(cache.snapshot().pods().keySet()).containsExactly("prod/p0");
            assertThat(cache.notSynced()).isEmpty();
        } finally {
            System.setErr(stderr);
        }
    }

    /**
     * The path of the Pod informer's first list in fabric8 8.0 (all namespaces, first page; without a limit fabric8
     * asks for {@code resourceVersion=0} instead).
     */
    private static final String POD_LIST = "/api/v1/pods?limit=" + ClusterCache.LIST_PAGE;
}
