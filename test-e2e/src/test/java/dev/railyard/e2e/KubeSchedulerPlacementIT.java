package dev.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The seed's rdma-test pod through a real kube-scheduler (no extender yet) onto fake GPU nodes: binding, the
 * fake kubelet's Running status, the scheduler's Events, and an 8-GPU pod that does not fit until capacity is freed.
 * The nodes are declared with {@link ClusterShape}: two DGX H100s (fixture case-01) with the seed's RDMA resources.
 */
class KubeSchedulerPlacementIT {

    /** DGX H100 hardware, 8 GPUs, the seed's {@code nvidia.com/mlx5_0..3} on lan2..lan5, 100 slots each. */
    private static final MachineShape DGX = MachineShape.seed("dgx-h100", FixtureMachines.DGX_H100);
    private static final ClusterShape SHAPE = ClusterShape.builder()
            .nodes(DGX, "leaf-1", "spine-1", "gpu-node-1", "gpu-node-2")
            .network("rdma-net-ipam-lan2", "lan2", "192.168.4.0/22")
            .build();
    private static final List<String> NODES = SHAPE.nodeNames();
    private static final Duration BIND_TIMEOUT = Duration.ofSeconds(60);

    @RegisterExtension
    static final ControlPlaneExtension CLUSTER = new ControlPlaneExtension(new ControlPlane.Options(NODES, true,
            Optional.empty(), false, Optional.empty(), Optional.of(SHAPE::create)).withCapacities(SHAPE.capacities()));

    private KubernetesClient client;

    @BeforeEach
    void namespace() {
        client = CLUSTER.controlPlane().client();
        CLUSTER.controlPlane().ensureNamespace(SeedWorkloads.NAMESPACE);
    }

    @AfterEach
    void deletePods() {
        // The fake kubelet finishes the graceful deletion; wait so the next test sees all GPUs free.
        client.pods().inNamespace(SeedWorkloads.NAMESPACE).delete();
        await().atMost(BIND_TIMEOUT).until(() -> client.pods().inNamespace(SeedWorkloads.NAMESPACE).list()
                .getItems().isEmpty());
        assertThat(CLUSTER.controlPlane().kubelet().errors()).isZero();
    }

    @Test
    void nodesCarryTheShapeTheScenarioDeclares() {
        for (String name : NODES) {
            var node = client.nodes().withName(name).get();
            // MachineShape.seed: 8 GPUs and 100 slots of each seed RDMA resource, as the kubelet would report them
            assertThat(node.getStatus().getAllocatable().get("nvidia.com/gpu").toString()).isEqualTo("8");
            assertThat(node.getStatus().getAllocatable().get("nvidia.com/mlx5_3").toString()).isEqualTo("100");
            assertThat(node.getMetadata().getLabels()).containsEntry(ClusterShape.LEAF_LABEL, "leaf-1");
            // case-01 (DGX H100): GPU i is PIX to NIC i = mlx5_i, so the published pairs are GPU i -> mlx5_i, rail i
            var nt = client.genericKubernetesResources("railyard.dev/v1alpha1", "NodeTopology").withName(name).get();
            List<java.util.Map<String, Object>> pairs = nt.get("spec", "pairs");
            assertThat(pairs).hasSize(8);
            for (int i = 0; i < 8; i++) {
                assertThat(pairs.get(i)).containsEntry("gpu", i).containsEntry("hca", "mlx5_" + i)
                        .containsEntry("distance", "PIX").containsEntry("rail", i);
            }
        }
        assertThat(client.genericKubernetesResources("whereabouts.cni.cncf.io/v1alpha1", "IPPool")
                .inNamespace(ClusterShape.WHEREABOUTS_NAMESPACE).withName("192.168.4.0-22").get()).isNotNull();
    }

    @Test
    void seedRdmaTestPodIsBoundToAGpuNodeAndRunning() {
        long start = System.nanoTime();
        client.resource(SeedWorkloads.rdmaTestMasterPod(client, "rdma-test-master-0")).create();

        Pod bound = awaitBound("rdma-test-master-0");
        await().atMost(BIND_TIMEOUT).until(() -> "Running".equals(pod("rdma-test-master-0").getStatus().getPhase()));
        Pod running = pod("rdma-test-master-0");
        System.out.printf("[e2e] rdma-test-master-0 bound to %s and Running %.1f s after create%n",
                bound.getSpec().getNodeName(), (System.nanoTime() - start) / 1e9);

        assertThat(bound.getSpec().getNodeName()).isIn(NODES);
        assertThat(running.getStatus().getHostIP()).startsWith("10.250.0.");
        // kube-scheduler's event on a successful bind (pkg/scheduler/schedule_one.go):
        // "Successfully assigned <ns>/<pod> to <node>", reason Scheduled.
        Event scheduled = await().atMost(BIND_TIMEOUT).until(() -> event("rdma-test-master-0", "Scheduled"),
                Optional::isPresent).orElseThrow();
        assertThat(scheduled.getMessage())
                .isEqualTo("Successfully assigned prod/rdma-test-master-0 to " + bound.getSpec().getNodeName());
    }

    @Test
    void thirdEightGpuPodWaitsUntilAGpuNodeIsFreed() {
        client.resource(SeedWorkloads.rdmaTestMasterPod(client, "gang-a")).create();
        client.resource(SeedWorkloads.rdmaTestMasterPod(client, "gang-b")).create();
        String nodeA = awaitBound("gang-a").getSpec().getNodeName();
        String nodeB = awaitBound("gang-b").getSpec().getNodeName();
        // Each pod asks for all 8 GPUs of a node, so the two pods cannot share one.
        assertThat(Set.of(nodeA, nodeB)).containsExactlyInAnyOrderElementsOf(NODES);

        client.resource(SeedWorkloads.rdmaTestMasterPod(client, "gang-c")).create();
        PodCondition unschedulable = await().atMost(BIND_TIMEOUT).until(() -> scheduledCondition("gang-c"),
                c -> c.isPresent() && "False".equals(c.get().getStatus())).orElseThrow();
        // NodeResourcesFit's reason for extended resources is "Insufficient <resource>"
        // (pkg/scheduler/framework/plugins/noderesources/fit.go), aggregated as "0/2 nodes are available: ...".
        assertThat(unschedulable.getReason()).isEqualTo("Unschedulable");
        assertThat(unschedulable.getMessage()).startsWith("0/2 nodes are available")
                .contains("2 Insufficient nvidia.com/gpu");
        assertThat(pod("gang-c").getSpec().getNodeName()).isNull();

        client.pods().inNamespace(SeedWorkloads.NAMESPACE).withName("gang-a").delete();

        assertThat(awaitBound("gang-c").getSpec().getNodeName()).isEqualTo(nodeA);
    }

    private Pod awaitBound(String name) {
        try {
            await().atMost(BIND_TIMEOUT).pollInterval(Duration.ofMillis(200))
                    .until(() -> pod(name).getSpec().getNodeName() != null);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("pod prod/" + name + " not bound within " + BIND_TIMEOUT.toSeconds()
                    + " s; PodScheduled: " + scheduledCondition(name).map(c -> c.getReason() + ": " + c.getMessage())
                    .orElse("(no condition)"), e);
        }
        return pod(name);
    }

    private Pod pod(String name) {
        return client.pods().inNamespace(SeedWorkloads.NAMESPACE).withName(name).get();
    }

    private Optional<PodCondition> scheduledCondition(String name) {
        Pod p = pod(name);
        return p == null || p.getStatus() == null ? Optional.empty() : p.getStatus().getConditions().stream()
                .filter(c -> "PodScheduled".equals(c.getType())).findFirst();
    }

    private Optional<Event> event(String pod, String reason) {
        return client.v1().events().inNamespace(SeedWorkloads.NAMESPACE).list().getItems().stream()
                .filter(e -> pod.equals(e.getInvolvedObject().getName()) && reason.equals(e.getReason()))
                .findFirst();
    }
}
