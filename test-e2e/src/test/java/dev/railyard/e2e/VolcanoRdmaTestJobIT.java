package dev.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The seed's {@code rdma-test} Volcano Job, unchanged, through real vc-controller-manager and vc-scheduler without an
 * extender (the baseline; Railyard's suites are {@code RailyardVolcano*IT}) onto a fake GPU node. Asserts what the cluster shows: the pod Volcano created, its binding, its
 * PodGroup's phase and the Job's phase.
 */
class VolcanoRdmaTestJobIT {

    private static final List<String> NODES = List.of("gpu-node-1", "gpu-node-2");
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    @RegisterExtension
    static final ControlPlaneExtension CLUSTER =
            new ControlPlaneExtension(ControlPlane.Options.volcano(NODES, Optional.empty()));

    private KubernetesClient client;

    @BeforeEach
    void namespace() {
        client = CLUSTER.controlPlane().client();
        CLUSTER.controlPlane().ensureNamespace(SeedWorkloads.NAMESPACE);
    }

    @Test
    void seedRdmaTestJobIsBoundByVcSchedulerAndItsPodGroupRuns() {
        long start = System.nanoTime();
        client.resource(SeedWorkloads.rdmaTestJob(client)).create();

        // vc-controller-manager names task pods <job>-<task>-<index> (pkg/controllers/job/job_controller_util.go).
        Pod bound = await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(250))
                .until(() -> client.pods().inNamespace(SeedWorkloads.NAMESPACE).withName("rdma-test-master-0").get(),
                        p -> p != null && p.getSpec().getNodeName() != null);
        System.out.printf("[e2e] rdma-test-master-0 bound to %s by vc-scheduler %.1f s after the Job was created%n",
                bound.getSpec().getNodeName(), (System.nanoTime() - start) / 1e9);

        assertThat(bound.getSpec().getSchedulerName()).isEqualTo("volcano");
        assertThat(bound.getSpec().getNodeName()).isIn(NODES);
        String podGroup = bound.getMetadata().getAnnotations().get("scheduling.k8s.io/group-name");
        assertThat(podGroup).as("PodGroup annotation set by vc-controller-manager").isNotBlank();
        // PodGroup phases (volcano.sh/apis scheduling/v1beta1): Pending -> Inqueue -> Running once minMember (1)
        // pods are running; the fake kubelet reports the bound pod Running.
        GenericKubernetesResource group = await().atMost(TIMEOUT).until(() -> client
                .genericKubernetesResources("scheduling.volcano.sh/v1beta1", "PodGroup")
                .inNamespace(SeedWorkloads.NAMESPACE).withName(podGroup).get(),
                g -> g != null && "Running".equals(g.get("status", "phase")));
        Object minMember = group.get("spec", "minMember");
        assertThat(minMember).hasToString("1");
        GenericKubernetesResource job = await().atMost(TIMEOUT).until(() -> client
                .genericKubernetesResources("batch.volcano.sh/v1alpha1", "Job")
                .inNamespace(SeedWorkloads.NAMESPACE).withName("rdma-test").get(),
                j -> "Running".equals(j.get("status", "state", "phase")));
        Object running = job.get("status", "running");
        assertThat(running).hasToString("1");
    }
}
