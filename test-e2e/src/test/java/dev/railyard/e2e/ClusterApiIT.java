package dev.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a real kube-apiserver makes of the objects the suite relies on: Volcano's CRDs from the pinned module, our
 * whereabouts / MacvlanNetwork CRDs, Railyard's NodeTopology CRD, and the fake GPU nodes. No scheduler runs here.
 */
class ClusterApiIT {

    @RegisterExtension
    static final ControlPlaneExtension CLUSTER =
            new ControlPlaneExtension(ControlPlane.Options.apiOnly(List.of("gpu-node-1")));

    private KubernetesClient client;

    @BeforeEach
    void namespace() {
        client = CLUSTER.controlPlane().client();
        CLUSTER.controlPlane().ensureNamespace(SeedWorkloads.NAMESPACE);
    }

    @Test
    void seedRdmaTestJobIsValidAgainstVolcanosJobsCrd() {
        GenericKubernetesResource created = client.resource(SeedWorkloads.rdmaTestJob(client)).create();

        // Values from the seed's Job (docs/seed-setup.md): the fields that must be set without Volcano's admission
        // webhook (docs/formats/volcano-job.md §3).
        assertThat((String) created.get("spec", "schedulerName")).isEqualTo("volcano");
        assertThat((Integer) created.get("spec", "minAvailable")).isEqualTo(1);
        assertThat((String) created.get("spec", "tasks", 0, "name")).isEqualTo("master");
        assertThat((Integer) created.get("spec", "tasks", 0, "replicas")).isEqualTo(1);
        Object gpus = created.get("spec", "tasks", 0, "template", "spec", "containers", 0, "resources", "limits",
                "nvidia.com/gpu");
        assertThat(String.valueOf(gpus)).isEqualTo("8");
    }

    @Test
    void jobsCrdDefaultsQueueAndMaxRetryWithoutTheWebhook() {
        // The webhook's defaults queue=default and maxRetry=3 are also CRD defaults in volcano.sh/volcano v1.14.1
        // (and v1.15.1)
        // config/crd/volcano/bases/batch.volcano.sh_jobs.yaml (spec.queue default "default", spec.maxRetry
        // default 3), so the API server applies them with no webhook running (docs/formats/volcano-job.md §3).
        GenericKubernetesResource job = new GenericKubernetesResourceBuilder()
                .withApiVersion("batch.volcano.sh/v1alpha1").withKind("Job")
                .withNewMetadata().withName("no-queue").withNamespace(SeedWorkloads.NAMESPACE).endMetadata()
                .addToAdditionalProperties("spec", Map.of("schedulerName", "volcano", "minAvailable", 1,
                        "tasks", List.of(Map.of("name", "worker", "replicas", 1, "template", Map.of("spec", Map.of(
                                "containers", List.of(Map.of("name", "c", "image", "busybox"))))))))
                .build();

        GenericKubernetesResource created = client.resource(job).create();

        assertThat((String) created.get("spec", "queue")).isEqualTo("default");
        assertThat((Integer) created.get("spec", "maxRetry")).isEqualTo(3);
    }

    @Test
    void fakeGpuNodeReportsTheSeedCapacityAndIsReady() {
        Node node = client.nodes().withName("gpu-node-1").get();

        Map<String, Quantity> allocatable = node.getStatus().getAllocatable();
        // docs/seed-setup.md: 8 GPUs; k8s-rdma-shared-dev-plugin rdmaHcaMax 100 per HCA mlx5_0..mlx5_3.
        assertThat(allocatable.get("nvidia.com/gpu")).isEqualTo(new Quantity("8"));
        for (int i = 0; i < 4; i++) {
            assertThat(allocatable.get("nvidia.com/mlx5_" + i)).isEqualTo(new Quantity("100"));
        }
        assertThat(node.getStatus().getConditions())
                .anySatisfy(c -> assertThat(c.getType() + "=" + c.getStatus()).isEqualTo("Ready=True"));
    }

    @Test
    void seedMacvlanNetworksAndAWhereaboutsPoolAreAccepted() {
        for (HasMetadata net : SeedWorkloads.macvlanNetworks(client)) {
            client.resource(net).create();
        }
        GenericKubernetesResource pool = new GenericKubernetesResourceBuilder()
                .withApiVersion("whereabouts.cni.cncf.io/v1alpha1").withKind("IPPool")
                .withNewMetadata().withName("192.168.4.0-22").withNamespace("kube-system").endMetadata()
                .addToAdditionalProperties("spec", Map.of("range", "192.168.4.0/22", "allocations", Map.of(
                        "2", Map.of("id", "c0ffee", "podref", "prod/rdma-test-master-0", "ifname", "net1"))))
                .build();
        client.resource(pool).create();

        List<String> networks = client.genericKubernetesResources("mellanox.com/v1alpha1", "MacvlanNetwork").list()
                .getItems().stream().map(n -> n.getMetadata().getName()).sorted().toList();
        assertThat(networks).containsExactly("rdma-net-ipam-lan2", "rdma-net-ipam-lan3", "rdma-net-ipam-lan4",
                "rdma-net-ipam-lan5");
        GenericKubernetesResource lan5 = client.genericKubernetesResources("mellanox.com/v1alpha1", "MacvlanNetwork")
                .withName("rdma-net-ipam-lan5").get();
        assertThat((String) lan5.get("spec", "ipam")).contains("\"range\": \"192.168.16.0/22\"");
        GenericKubernetesResource read = client.genericKubernetesResources("whereabouts.cni.cncf.io/v1alpha1", "IPPool")
                .inNamespace("kube-system").withName("192.168.4.0-22").get();
        assertThat((String) read.get("spec", "allocations", "2", "podref")).isEqualTo("prod/rdma-test-master-0");
    }

    @Test
    void macvlanNetworkWithAModeOutsideTheEnumIsRejected() {
        // docs/formats/network-operator.md §1: mode is one of bridge/private/vepa/passthru; our CRD enforces that enum.
        GenericKubernetesResource bad = new GenericKubernetesResourceBuilder()
                .withApiVersion("mellanox.com/v1alpha1").withKind("MacvlanNetwork")
                .withNewMetadata().withName("bad-mode").endMetadata()
                .addToAdditionalProperties("spec", Map.of("master", "lan2", "mode", "fast"))
                .build();

        assertThatThrownBy(() -> client.resource(bad).create())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(422);
                    assertThat(e.getMessage()).contains("spec.mode").contains("fast");
                });
    }

    @Test
    void railyardNodeTopologyCrdIsServed() {
        assertThat(client.genericKubernetesResources("railyard.dev/v1alpha1", "NodeTopology").list().getItems())
                .isEmpty();
    }
}
