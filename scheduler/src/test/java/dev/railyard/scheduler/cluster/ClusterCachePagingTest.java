package dev.railyard.scheduler.cluster;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The informers list in pages of {@link ClusterCache#LIST_PAGE} ({@code ?limit=}), and a list the API server answers
 * in two pages (the first with {@code metadata.continue}, as kube-apiserver answers a limited list) fills the cache
 * with both before it calls itself synced. fabric8's mock server in CRUD mode serves everything else (the nodes, the
 * watches); the two pod pages are expectations on the exact paths fabric8 asks for.
 */
class ClusterCachePagingTest {

    @Test
    void aListAnsweredInTwoPagesFillsTheCacheWithBothBeforeItIsSynced() {
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
                new KubernetesMixedDispatcher(responses), false);
        server.init();
        try (KubernetesClient client = server.createClient()) {
            client.nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-a1").endMetadata().build())
                    .create();
            server.expect().get().withPath("/api/v1/pods?limit=" + ClusterCache.LIST_PAGE)
                    .andReturn(200, new PodListBuilder().withNewMetadata().withResourceVersion("10")
                            .withContinue("page-2").endMetadata().addToItems(pod("p0"), pod("p1")).build()).once();
            server.expect().get().withPath("/api/v1/pods?continue=page-2&limit=" + ClusterCache.LIST_PAGE)
                    .andReturn(200, new PodListBuilder().withNewMetadata().withResourceVersion("10").endMetadata()
                            .addToItems(pod("p2")).build()).once();

            try (ClusterCache cache = new ClusterCache(client, new SimpleMeterRegistry(), Clock.systemUTC(),
                    Duration.ZERO, Duration.ofSeconds(1), new ClusterState(null, null, null, Clock.systemUTC()))) {
                cache.start();
                await().atMost(Duration.ofSeconds(20)).until(cache::synced);
                // both pages, not only the first: fabric8 follows metadata.continue before the store is synced
                assertThat(cache.snapshot().pods().keySet())
                        .containsExactlyInAnyOrder("prod/p0", "prod/p1", "prod/p2");
                assertThat(cache.snapshot().snapshot().nodeNames()).containsExactly("gpu-a1");
            }
        } finally {
            server.destroy();
        }
    }

    private static io.fabric8.kubernetes.api.model.Pod pod(String name) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace("prod").withUid("uid-" + name)
                .withResourceVersion("10").endMetadata().withNewSpec().withNodeName("gpu-a1").endSpec().build();
    }
}
