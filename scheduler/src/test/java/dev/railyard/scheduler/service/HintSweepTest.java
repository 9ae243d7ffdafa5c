package dev.railyard.scheduler.service;

import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.scheduler.cluster.ClusterObjects;
import dev.railyard.scheduler.cluster.ClusterView;
import dev.railyard.scheduler.hints.delivery.HintBackfill;
import dev.railyard.scheduler.hints.delivery.HintLookup;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static dev.railyard.scheduler.cluster.ClusterFixtures.node;
import static dev.railyard.scheduler.cluster.ClusterFixtures.objects;
import static dev.railyard.scheduler.cluster.ClusterFixtures.pod;
import static dev.railyard.scheduler.cluster.ClusterFixtures.seedShape;
import static dev.railyard.scheduler.cluster.ClusterFixtures.topology;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which pods the sweep hands to the backfill: bound GPU pods without hints, in Railyard's hint scope (an RDMA resource
 * or a managed network, docs/hints.md), on nodes with a NodeTopology, once.
 */
@EnableKubernetesMockClient(crud = true)
class HintSweepTest {
    /** gpu-a advertises the seed's four HCA resources: a pod's request of one counts as RDMA only where a node has it. */
    private static final Map<String, String> RDMA = Map.of("nvidia.com/mlx5_0", "100", "nvidia.com/mlx5_1", "100",
            "nvidia.com/mlx5_2", "100", "nvidia.com/mlx5_3", "100");
    KubernetesClient client;

    @Test
    void handsOverOnlyBoundGpuPodsWithoutHintsOnNodesWithATopologyAndOnlyOnce() {
        // 8 GPUs and one slot of each seed HCA resource (the seed's rdma-test job): in scope
        Map<String, Object> gpus = Map.of("nvidia.com/gpu", "8", "nvidia.com/mlx5_0", "1", "nvidia.com/mlx5_1", "1",
                "nvidia.com/mlx5_2", "1", "nvidia.com/mlx5_3", "1");
        ClusterObjects objects = objects(List.of(
                node("gpu-a", Map.of(), RDMA), node("gpu-c", Map.of(), Map.of()),
                topology("gpu-a", seedShape(), null),
                pod("prod", "bound-no-hints", "gpu-a", Map.of(), gpus),                         // handed over
                pod("prod", "bound-with-hints", "gpu-a", Map.of(HintAnnotations.PLACEMENT, "{}"), gpus),
                pod("prod", "pending", null, Map.of(), gpus),
                pod("prod", "no-gpus", "gpu-a", Map.of(), Map.of("cpu", "1")),
                // GPUs only, no RDMA resource, no network: the pod of issue 19 that got an 8-HCA hint by the sweep
                pod("prod", "gpu-only", "gpu-a", Map.of(), Map.of("nvidia.com/gpu", "8")),
                // GPUs and a network Railyard does not manage (no NetworkAttachmentDefinition it reads)
                pod("prod", "unmanaged-net", "gpu-a", Map.of("k8s.v1.cni.cncf.io/networks", "frontend"),
                        Map.of("nvidia.com/gpu", "2")),
                pod("prod", "no-topology", "gpu-c", Map.of(), gpus)));
        try (HintBackfill backfill = new HintBackfill(client, (p, n) -> new HintLookup.NotApplicable("test"),
                HintBackfill.Settings.DEFAULT, new SimpleMeterRegistry());
             HintSweep sweep = new HintSweep(() -> ClusterView.of(objects, null, null), backfill, Duration.ofHours(1), Duration.ofMinutes(10))) {

            assertThat(sweep.sweep()).containsExactly("prod/bound-no-hints");
            assertThat(sweep.sweep()).isEmpty();
        }
    }

    @Test
    void aStandbyHandsNothingOverUntilItLeads() {
        ClusterObjects objects = objects(List.of(node("gpu-a", Map.of(), RDMA), topology("gpu-a", seedShape(), null),
                pod("prod", "bound-no-hints", "gpu-a", Map.of(),
                        Map.of("nvidia.com/gpu", "8", "nvidia.com/mlx5_0", "1"))));
        java.util.concurrent.atomic.AtomicBoolean leading = new java.util.concurrent.atomic.AtomicBoolean();
        try (HintBackfill backfill = new HintBackfill(client, (p, n) -> new HintLookup.NotApplicable("test"),
                HintBackfill.Settings.DEFAULT, new SimpleMeterRegistry());
             HintSweep sweep = new HintSweep(() -> ClusterView.of(objects, null, null), backfill, Duration.ofHours(1), Duration.ofMinutes(10),
                     leading::get)) {

            assertThat(sweep.sweep()).isEmpty();
            leading.set(true);
            // not marked as handed over while standby, so the new leader hands it over at its first sweep
            assertThat(sweep.sweep()).containsExactly("prod/bound-no-hints");
        }
    }
}
