package dev.railyard.scheduler.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A watch event of a watched kind decodes straight into the informers' {@link GenericKubernetesResource} with
 * {@link InformerDecoding} (fabric8's AbstractWatchManager converts an event object of another class, a second and
 * third pass), and the client a {@link ClusterCache} is made with keeps fabric8's own decoding. Nothing is contacted.
 */
class WatchEventDecodingTest {

    private static final String POD_EVENT = "{\"type\":\"MODIFIED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
            + "\"metadata\":{\"name\":\"p0\",\"namespace\":\"prod\",\"uid\":\"u0\"},"
            + "\"spec\":{\"nodeName\":\"gpu-a1\",\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":"
            + "{\"nvidia.com/gpu\":\"8\"}}}]},\"status\":{\"phase\":\"Running\"}}}";
    private static final String NODE_EVENT = "{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Node\","
            + "\"metadata\":{\"name\":\"gpu-a1\",\"labels\":{\"a\":\"b\"}}}}";

    private static KubernetesClient client() {
        return new KubernetesClientBuilder().withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:1")
                .build()).build();
    }

    @Test
    void podAndNodeEventsDecodeIntoTheGenericTypeWithEveryField() {
        var decoding = InformerDecoding.serialization();
        WatchEvent pod = decoding.unmarshal(POD_EVENT, WatchEvent.class);
        assertThat(pod.getObject()).isInstanceOf(GenericKubernetesResource.class);
        GenericKubernetesResource p = (GenericKubernetesResource) pod.getObject();
        assertThat(p.getMetadata().getName()).isEqualTo("p0");
        assertThat(p.getMetadata().getUid()).isEqualTo("u0");
        assertThat(p.get("spec", "nodeName").toString()).isEqualTo("gpu-a1");
        assertThat(p.get("status", "phase").toString()).isEqualTo("Running");
        assertThat(((Map<?, ?>) ((Map<?, ?>) ((java.util.List<?>) p.get("spec", "containers")).get(0))
                .get("resources")).get("requests")).isEqualTo(Map.of("nvidia.com/gpu", "8"));

        WatchEvent node = decoding.unmarshal(NODE_EVENT, WatchEvent.class);
        assertThat(node.getObject()).isInstanceOf(GenericKubernetesResource.class);
        assertThat(((GenericKubernetesResource) node.getObject()).getMetadata().getLabels())
                .containsEntry("a", "b");
    }

    @Test
    void theClientACacheWasMadeWithKeepsFabric8sTypedDecoding() {
        // fabric8's default: the cache decodes with a client of its own (InformerDecoding), the caller's is unchanged
        try (KubernetesClient other = client();
             ClusterCache cache = new ClusterCache(other, new SimpleMeterRegistry(), Clock.systemUTC(),
                     Duration.ZERO, Duration.ofMinutes(10), new ClusterState(null, null, null, Clock.systemUTC()))) {
            WatchEvent pod = other.getKubernetesSerialization().unmarshal(POD_EVENT, WatchEvent.class);
            assertThat(pod.getObject()).isInstanceOf(Pod.class);
        }
    }

    @Test
    void theCachesInformersDecodeWithInformerDecoding() {
        // a Node event with managed fields and cached images, as the kubelet and server-side apply write them
        String event = "{\"type\":\"MODIFIED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Node\","
                + "\"metadata\":{\"name\":\"gpu-a1\",\"managedFields\":[{\"manager\":\"kubelet\"}]},"
                + "\"status\":{\"images\":[{\"names\":[\"img\"]}],\"allocatable\":{\"nvidia.com/gpu\":\"8\"}}}}";
        try (KubernetesClient other = client();
             ClusterCache cache = new ClusterCache(other, new SimpleMeterRegistry(), Clock.systemUTC(),
                     Duration.ZERO, Duration.ofMinutes(10), new ClusterState(null, null, null, Clock.systemUTC()))) {
            KubernetesClient informers = cache.informersClient();
            assertThat(informers).isNotSameAs(other);
            assertThat(informers.getConfiguration()).isSameAs(other.getConfiguration());
            WatchEvent node = informers.getKubernetesSerialization().unmarshal(event, WatchEvent.class);
            GenericKubernetesResource n = (GenericKubernetesResource) node.getObject();
            assertThat(n.getMetadata().getManagedFields()).isEmpty();
            Map<?, ?> status = (Map<?, ?>) n.getAdditionalProperties().get("status");
            assertThat(status.keySet()).isEqualTo(java.util.Set.of("allocatable"));
        }
    }
    @Test
    void thePodInformerDecodesWithPodDecodingAndTheOthersWithInformerDecoding() {
        // a Pod event with an image, environment, volumes and conditions, none of which PodView reads
        String event = "{\"type\":\"MODIFIED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
                + "\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"managedFields\":[{\"manager\":\"m\"}]},"
                + "\"spec\":{\"nodeName\":\"gpu-a1\",\"volumes\":[{\"name\":\"v\"}],\"containers\":[{\"name\":\"c\","
                + "\"image\":\"img\",\"env\":[{\"name\":\"A\",\"value\":\"1\"}],"
                + "\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"8\"}}}]},"
                + "\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}}";
        try (KubernetesClient other = client();
             ClusterCache cache = new ClusterCache(other, new SimpleMeterRegistry(), Clock.systemUTC(),
                     Duration.ZERO, Duration.ofMinutes(10), new ClusterState(null, null, null, Clock.systemUTC()))) {
            KubernetesClient pods = cache.clientFor(WatchedKind.POD);
            assertThat(pods).isNotSameAs(other).isNotSameAs(cache.informersClient());
            assertThat(pods.getConfiguration()).isSameAs(other.getConfiguration());
            for (WatchedKind kind : WatchedKind.ALL) {
                if (!kind.equals(WatchedKind.POD)) {
                    assertThat(cache.clientFor(kind)).as(kind.kind()).isSameAs(cache.informersClient());
                }
            }
            GenericKubernetesResource p = (GenericKubernetesResource) pods.getKubernetesSerialization()
                    .unmarshal(event, WatchEvent.class).getObject();
            assertThat(p.getMetadata().getManagedFields()).isEmpty();
            assertThat(p.getAdditionalProperties()).isEqualTo(Map.of(
                    "spec", Map.of("nodeName", "gpu-a1", "containers", List.of(Map.of("name", "c",
                            "resources", Map.of("limits", Map.of("nvidia.com/gpu", "8"))))),
                    "status", Map.of("phase", "Running")));
        }
    }
}
