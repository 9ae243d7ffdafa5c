package dev.railyard.scheduler.cluster;

import dev.railyard.topology.InputException;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** One-shot listing against fabric8's mock API server (CRUD storage; missing CRDs answered 404 by expectations). */
class ClusterListingTest {
    private KubernetesMockServer server;
    private KubernetesClient client;

    @BeforeEach
    void setUp() {
        // CRUD storage plus expectations (KubernetesMixedDispatcher); the boolean-only constructor is not CRUD mode
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        server = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
                new KubernetesMixedDispatcher(responses), false);
        server.init();
        client = server.createClient(b -> b.editOrNewConfig().withRequestRetryBackoffLimit(0).endConfig());
    }

    @AfterEach
    void tearDown() {
        client.close();
        server.destroy();
    }

    @Test
    void listsEveryKindOnceAndReportsAMissingCrdWithoutFailing() {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName("gpu-a1").endMetadata().build()).create();
        client.pods().inNamespace("prod").resource(new PodBuilder().withNewMetadata().withName("w-0")
                .withNamespace("prod").endMetadata().build()).create();
        var ctx = new ResourceDefinitionContext.Builder().withGroup("railyard.dev").withVersion("v1alpha1")
                .withKind("NodeTopology").withPlural("nodetopologies").withNamespaced(false).build();
        client.genericKubernetesResources(ctx).resource(new GenericKubernetesResourceBuilder()
                .withApiVersion("railyard.dev/v1alpha1").withKind("NodeTopology")
                .withNewMetadata().withName("gpu-a1").endMetadata()
                .withAdditionalProperties(Map.of("spec", Map.of("complete", true))).build()).create();
        // the HyperNode CRD is not installed: the API server answers 404 for its path
        server.expect().get().withPath("/apis/topology.volcano.sh/v1alpha1/hypernodes")
                .andReturn(404, new StatusBuilder().withCode(404).withReason("NotFound").build()).always();

        List<String> notes = new ArrayList<>();
        ClusterObjects o = ClusterListing.listOnce(client, notes);

        assertThat(o.of(WatchedKind.NODE)).extracting(ClusterObjects::key).containsExactly("gpu-a1");
        assertThat(o.of(WatchedKind.POD)).extracting(ClusterObjects::key).containsExactly("prod/w-0");
        // list items come without apiVersion and kind; the listing sets them
        assertThat(o.of(WatchedKind.NODE_TOPOLOGY)).singleElement().satisfies(t -> {
            assertThat(t.getKind()).isEqualTo("NodeTopology");
            assertThat(t.getApiVersion()).isEqualTo("railyard.dev/v1alpha1");
        });
        assertThat(o.disabled()).containsExactly(WatchedKind.HYPER_NODE);
        assertThat(notes).containsExactly("HyperNode.topology.volcano.sh/v1alpha1 is not installed: "
                + "Volcano HyperNode fabric is off");
        assertThat(o.synced()).isTrue();
    }

    @Test
    void aCoreKindThatCannotBeListedIsAnError() {
        server.expect().get().withPath("/api/v1/nodes")
                .andReturn(403, new StatusBuilder().withCode(403).withReason("Forbidden").build()).always();

        assertThatThrownBy(() -> ClusterListing.listOnce(client))
                .isInstanceOf(InputException.class).hasMessageStartingWith("cannot list nodes from ")
                .hasMessageContaining("HTTP 403");
    }
}
