package dev.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.api.topology.GpuHcaPair;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The kube-scheduler path: the seed's rdma-test pod (as a plain pod for the default scheduler) through a real
 * kube-scheduler whose HTTP extender is Railyard's filter, prioritize and bind, {@code nodeCacheCapable: true},
 * {@code managedResources: nvidia.com/gpu}, {@code ignorable: false}. A {@link RecordingProxy} saves the first body of
 * each verb under {@code target/captured/RailyardKubeSchedulerIT/kube/}.
 */
class RailyardKubeSchedulerIT {

    private static final Duration BIND = Duration.ofSeconds(60);

    static final RecordingProxy PROXY = RailyardExtenders.proxy("RailyardKubeSchedulerIT");
    private static final RailyardProcess[] RAILYARD = new RailyardProcess[1];

    @RegisterExtension
    static final ControlPlaneExtension CLUSTER = new ControlPlaneExtension(ControlPlane.Options.kubeScheduler(
            SeedCluster.nodeNames(), RailyardExtenders.kube(PROXY, false), RailyardExtenders.prelude(PROXY, RAILYARD)));

    private KubernetesClient client;

    @BeforeEach
    void client() {
        client = CLUSTER.controlPlane().client();
    }

    @AfterEach
    void cleanUp() {
        new ClusterView(client, SeedWorkloads.NAMESPACE).deleteAll(BIND);
        assertThat(CLUSTER.controlPlane().kubelet().errors()).isZero();
    }

    @AfterAll
    static void report() {
        System.out.println("[e2e] RailyardKubeSchedulerIT extender calls: " + PROXY.callCounts());
        PROXY.close();
    }

    @Test
    void seedPodIsFilteredScoredAndBoundByRailyardOntoAPairedNodeWithHints() {
        try (PodVersions versions = PodVersions.watch(client, SeedWorkloads.NAMESPACE)) {
            client.resource(SeedWorkloads.rdmaTestMasterPod(client, "rdma-test-master-0")).create();
            seedPodIsBoundByRailyardOntoAPairedNodeWithHints();
            hintsCameWithTheBinding(versions, "rdma-test-master-0");
        }
    }

    /**
     * Issue 6 acceptance, kube-scheduler path: Railyard's bind verb creates the Binding with the hints, so the pod
     * version in which {@code spec.nodeName} first appears already carries them, no earlier version does, no later
     * one changes them, and there is no backfill Event. The {@code pods/binding} webhook the prelude registers only
     * matches Volcano gang pods (annotation {@code scheduling.k8s.io/group-name}), which this pod is not, so the hints
     * can only have come with Railyard's own Binding.
     */
    private void hintsCameWithTheBinding(PodVersions versions, String name) {
        assertThat(ClusterView.annotation(pod(name), "scheduling.k8s.io/group-name")).isEmpty();
        // the fake kubelet's Running status is a later version, which must keep the hints unchanged
        await().atMost(BIND).until(() -> "Running".equals(pod(name).getStatus().getPhase()));
        versions.assertHintsWrittenWithBinding(name, PodVersions.ATOMIC_KEYS, BIND);
        assertThat(client.v1().events().inNamespace(SeedWorkloads.NAMESPACE).list().getItems())
                .noneMatch(e -> name.equals(e.getInvolvedObject().getName())
                        && dev.railyard.scheduler.hints.HintBackfill.EVENT_REASON.equals(e.getReason()));
        System.out.println("[e2e] RailyardKubeSchedulerIT pod versions (bind verb path):\n"
                + versions.describe(List.of(name)));
    }

    private void seedPodIsBoundByRailyardOntoAPairedNodeWithHints() {
        Pod bound;
        try {
            bound = await().atMost(BIND).pollInterval(Duration.ofMillis(250)).until(() -> pod("rdma-test-master-0"),
                    p -> p.getSpec().getNodeName() != null);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("rdma-test-master-0 not bound in " + BIND.toSeconds() + " s; conditions "
                    + pod("rdma-test-master-0").getStatus().getConditions() + "; extender calls "
                    + PROXY.callCounts(), e);
        }
        String node = bound.getSpec().getNodeName();
        assertThat(node).isIn(SeedCluster.nodesOf(FixtureMachines.PCIE_8GPU));
        // bindVerb is set, so the Binding came from Railyard; kube-scheduler still reports Scheduled afterwards
        // (pkg/scheduler/schedule_one.go: "Successfully assigned <ns>/<pod> to <node>").
        assertThat(PROXY.calls("/kube/bind")).isPositive();
        assertThat(PROXY.failures("/kube/bind")).isZero();
        Event scheduled = await().atMost(BIND).until(() -> client.v1().events().inNamespace(SeedWorkloads.NAMESPACE)
                .list().getItems().stream().filter(e -> "rdma-test-master-0".equals(e.getInvolvedObject().getName())
                        && "Scheduled".equals(e.getReason())).findFirst(), Optional::isPresent).orElseThrow();
        assertThat(scheduled.getMessage()).isEqualTo("Successfully assigned prod/rdma-test-master-0 to " + node);
        // nodeCacheCapable: the filter body names nodes and carries no Node objects (wire-formats.md §2).
        JsonNode filter = SeedCluster.json(PROXY.recent("/kube/filter").getFirst().requestText());
        assertThat(filter.path("NodeNames").isArray()).isTrue();
        assertThat(filter.path("Nodes").isNull() || filter.path("Nodes").isMissingNode()).isTrue();

        // Railyard's bind writes the hints with the Binding (HintAnnotations: same pod version as spec.nodeName).
        Pod now = pod("rdma-test-master-0");
        JsonNode hint = ClusterView.placementHint(now).orElseThrow(() -> new AssertionError(
                "no " + HintAnnotations.PLACEMENT + " on the pod Railyard bound; annotations "
                        + now.getMetadata().getAnnotations()));
        Map<Integer, GpuHcaPair> pairs = FixtureMachines.pairsByGpu(FixtureMachines.spec(FixtureMachines.PCIE_8GPU));
        assertThat(hint.path("gpus")).hasSize(8);
        for (JsonNode g : hint.path("gpus")) {
            assertThat(g.path("distance").asText()).isIn(Set.of("PIX", "PXB"));
            assertThat(g.path("hca").asText()).isEqualTo(pairs.get(g.path("gpu").asInt()).hca());
        }
    }

    private Pod pod(String name) {
        return client.pods().inNamespace(SeedWorkloads.NAMESPACE).withName(name).get();
    }
}
