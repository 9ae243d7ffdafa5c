package dev.railyard.scheduler.cluster;

import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The cache against fabric8's mock API server in CRUD mode, with API discovery answered by expectations. */
@EnableKubernetesMockClient(crud = true)
class ClusterCacheTest {
    KubernetesMockServer server;
    KubernetesClient client;
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void missingCrdSwitchesItsFeatureOffAndOnWhenTheCrdAppears() {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-a1").endMetadata().build()).create();
        client.pods().inNamespace("prod").resource(new PodBuilder().withNewMetadata().withName("p0")
                .withNamespace("prod").endMetadata().build()).create();

        try (ClusterCache cache = new ClusterCache(client, registry, Clock.systemUTC(), Duration.ZERO,
                Duration.ofSeconds(1))) {
            cache.start();
            await().atMost(Duration.ofSeconds(10)).until(cache::synced);

            ClusterObjects first = cache.snapshot();
            // no discovery document is served for any CRD group yet, so every optional kind is off
            assertThat(first.disabled()).contains(WatchedKind.NODE_TOPOLOGY, WatchedKind.IP_POOL,
                    WatchedKind.POD_GROUP);
            assertThat(first.disabled()).doesNotContain(WatchedKind.NODE, WatchedKind.POD);
            assertThat(first.of(WatchedKind.NODE)).extracting(n -> n.getMetadata().getName())
                    .containsExactly("gpu-a1");
            assertThat(first.of(WatchedKind.POD)).extracting(ClusterObjects::key).containsExactly("prod/p0");
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
                    assertThat(cache.snapshot().of(WatchedKind.NODE_TOPOLOGY))
                            .extracting(n -> n.getMetadata().getName()).containsExactly("gpu-a1"));
            ClusterObjects later = cache.snapshot();
            assertThat(later.disabled()).doesNotContain(WatchedKind.NODE_TOPOLOGY).contains(WatchedKind.IP_POOL);
            assertThat(later.version()).isGreaterThan(first.version());
            assertThat(registry.get("railyard_cache_feature_enabled").tag("kind", "NodeTopology").gauge().value())
                    .isEqualTo(1.0);
        }
    }

    @Test
    void theCoschedulingPodGroupIsAnOptionalKindThatComesOnWhenItsCrdAppears() {
        try (ClusterCache cache = new ClusterCache(client, registry, Clock.systemUTC(), Duration.ZERO,
                Duration.ofSeconds(1))) {
            cache.start();
            await().atMost(Duration.ofSeconds(10)).until(cache::synced);
            // not installed: off, and the gauge of its feature says 0 (the Volcano PodGroup has its own gauge)
            assertThat(cache.snapshot().disabled()).contains(WatchedKind.COSCHEDULING_POD_GROUP);
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
                    assertThat(cache.snapshot().of(WatchedKind.COSCHEDULING_POD_GROUP)).extracting(ClusterObjects::key)
                            .containsExactly("prod/cgang"));
            ClusterObjects later = cache.snapshot();
            assertThat(later.disabled()).doesNotContain(WatchedKind.COSCHEDULING_POD_GROUP);
            assertThat(later.of(WatchedKind.POD_GROUP)).isEmpty();
            assertThat(registry.get("railyard_cache_feature_enabled").tag("kind", "PodGroup")
                    .tag("feature", "coscheduling gang plans").gauge().value()).isEqualTo(1.0);
            assertThat(ClusterView.of(later, null, null).coschedulingGroup("prod/cgang").minMember()).isEqualTo(2);
        }
    }
}
