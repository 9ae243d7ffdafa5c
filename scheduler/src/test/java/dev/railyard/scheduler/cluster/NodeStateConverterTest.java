package dev.railyard.scheduler.cluster;

import dev.railyard.scheduler.engine.HcaResource;
import dev.railyard.scheduler.engine.NodeState;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static dev.railyard.scheduler.cluster.ClusterFixtures.node;
import static dev.railyard.scheduler.cluster.ClusterFixtures.objects;
import static dev.railyard.scheduler.cluster.ClusterFixtures.pod;
import static dev.railyard.scheduler.cluster.ClusterFixtures.seedShape;
import static dev.railyard.scheduler.cluster.ClusterFixtures.topology;
import static org.assertj.core.api.Assertions.assertThat;

/** Nodes, NodeTopologies and bound pods into the engine's node states; expected values worked out by hand. */
class NodeStateConverterTest {

    private static Converted<NodeStateConverter.Result> convert(List<GenericKubernetesResource> all) {
        ClusterObjects o = objects(all);
        Map<String, List<PodView>> byNode = new TreeMap<>();
        for (GenericKubernetesResource p : o.of(WatchedKind.POD)) {
            PodView v = PodView.of(p);
            if (v.node() != null) {
                byNode.computeIfAbsent(v.node(), k -> new ArrayList<>()).add(v);
            }
        }
        return NodeStateConverter.convert(o, byNode);
    }

    private static NodeState state(Converted<NodeStateConverter.Result> c, String name) {
        return c.value().nodes().stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void gpusHeldComeFromTheAgentThenTheHintThenTheCount() {
        List<GenericKubernetesResource> all = new ArrayList<>();
        // node-a: the agent lists prod/p1 on GPUs 2,3 and GPU 7 held by a pod not in the snapshot
        all.add(node("node-a", null, Map.of()));
        all.add(topology("node-a", seedShape(), Map.of("allocatedGpus", List.of(2, 3, 7),
                "allocations", List.of(Map.of("namespace", "prod", "name", "p1",
                        "gpus", List.of(Map.of("deviceId", "GPU-2", "index", 2), Map.of("deviceId", "GPU-3",
                                "index", 3)))))));
        all.add(pod("prod", "p1", "node-a", null, Map.of("nvidia.com/gpu", "2")));
        // node-b: no agent status; prod/p2 carries a version-1 hint for node-b on GPUs 4,5
        all.add(node("node-b", null, Map.of()));
        all.add(topology("node-b", seedShape(), null));
        all.add(pod("prod", "p2", "node-b", Map.of("railyard.dev/placement",
                "{\"version\":1,\"node\":\"node-b\",\"gang\":\"prod/j\",\"gangSize\":1,\"rank\":0,\"gpus\":["
                        + "{\"gpu\":4,\"hca\":\"mlx5_2\",\"port\":1,\"rail\":2,\"distance\":\"PIX\"},"
                        + "{\"gpu\":5,\"hca\":\"mlx5_2\",\"port\":1,\"rail\":2,\"distance\":\"PIX\"}]}"),
                Map.of("nvidia.com/gpu", "2")));
        // node-c: 3 GPUs by count only (the lowest free: 0,1,2); a finished pod holds nothing
        all.add(node("node-c", null, Map.of()));
        all.add(topology("node-c", seedShape(), null));
        all.add(pod("prod", "p3", "node-c", null, Map.of("nvidia.com/gpu", "3")));
        GenericKubernetesResource done = pod("prod", "p4", "node-c", null, Map.of("nvidia.com/gpu", "8"));
        done.setAdditionalProperty("status", Map.of("phase", "Succeeded"));
        all.add(done);
        // node-d: a hint written for another node does not count; the request does (GPUs 0,1)
        all.add(node("node-d", null, Map.of()));
        all.add(topology("node-d", seedShape(), null));
        all.add(pod("prod", "p5", "node-d", Map.of("railyard.dev/placement",
                "{\"version\":1,\"node\":\"node-x\",\"gang\":\"prod/j\",\"gangSize\":1,\"gpus\":[{\"gpu\":6,"
                        + "\"hca\":\"mlx5_3\",\"port\":1,\"rail\":3,\"distance\":\"PIX\"}]}"),
                Map.of("nvidia.com/gpu", "2")));

        Converted<NodeStateConverter.Result> c = convert(all);

        assertThat(c.warnings()).isEmpty();
        assertThat(state(c, "node-a").allocatedGpus()).containsExactly(2, 3, 7);
        assertThat(c.value().gpuAccounting()).containsEntry("node-a", "node agent: 1 pod");
        assertThat(state(c, "node-b").allocatedGpus()).containsExactly(4, 5);
        assertThat(c.value().gpuAccounting()).containsEntry("node-b", "placement hint: 1 pod");
        assertThat(state(c, "node-c").allocatedGpus()).containsExactly(0, 1, 2);
        assertThat(c.value().gpuAccounting()).containsEntry("node-c",
                "request count: 1 pod (lowest free GPU indices assumed)");
        assertThat(state(c, "node-d").allocatedGpus()).containsExactly(0, 1);
        assertThat(state(c, "node-a").freeGpuCount()).isEqualTo(5);
    }

    private static String hint(String node, int... gpus) {
        return ClusterFixtures.seedHint("prod/j", node, 1, 0, gpus);
    }

    @Test
    void hintsThatClaimTheSameGpuNeverMakeItCountOnceForTwoPods() {
        // p1 and p2 each hold 4 GPUs, but p2's (stale) hint names GPUs 2..5, two of which p1's hint names: 8 GPUs
        // are held, so the node must show 8 taken, not the 6 distinct hinted indices. The clashing 2 join the
        // request-count share and take the lowest free GPUs, 6 and 7.
        List<GenericKubernetesResource> all = new ArrayList<>();
        all.add(node("node-a", null, Map.of()));
        all.add(topology("node-a", seedShape(), null));
        all.add(pod("prod", "p1", "node-a", Map.of("railyard.dev/placement", hint("node-a", 0, 1, 2, 3)),
                Map.of("nvidia.com/gpu", "4")));
        all.add(pod("prod", "p2", "node-a", Map.of("railyard.dev/placement", hint("node-a", 2, 3, 4, 5)),
                Map.of("nvidia.com/gpu", "4")));
        // node-b: the agent says p3 holds GPUs 0,1; p4's hint also names GPU 1 and GPU 9, which the node lacks
        all.add(node("node-b", null, Map.of()));
        all.add(topology("node-b", seedShape(), Map.of("allocatedGpus", List.of(0, 1),
                "allocations", List.of(Map.of("namespace", "prod", "name", "p3",
                        "gpus", List.of(Map.of("deviceId", "GPU-0", "index", 0), Map.of("deviceId", "GPU-1",
                                "index", 1)))))));
        all.add(pod("prod", "p4", "node-b", Map.of("railyard.dev/placement", hint("node-b", 1, 9, 4)),
                Map.of("nvidia.com/gpu", "3")));
        all.add(pod("prod", "p3", "node-b", null, Map.of("nvidia.com/gpu", "2")));

        Converted<NodeStateConverter.Result> c = convert(all);

        assertThat(state(c, "node-a").allocatedGpus()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        assertThat(state(c, "node-a").freeGpuCount()).isZero();
        // node-b: agent 0,1 (p3); p4 keeps 4, and GPUs 1 and 9 count by request: the lowest free, 2 and 3
        assertThat(state(c, "node-b").allocatedGpus()).containsExactly(0, 1, 2, 3, 4);
        assertThat(c.warnings()).containsExactlyInAnyOrder(
                "Pod prod/p2: its railyard.dev/placement hint names GPUs [2, 3] that node node-a lacks or another pod"
                        + " holds; counted by its request instead",
                "Pod prod/p4: its railyard.dev/placement hint names GPUs [1, 9] that node node-b lacks or another pod"
                        + " holds; counted by its request instead");
    }

    @Test
    void hcaResourcesComeFromAllocatableTheAgentsMappingAndThePodsRequests() {
        List<GenericKubernetesResource> all = new ArrayList<>();
        all.add(node("node-a", null, Map.of("nvidia.com/mlx5_0", "100", "rdma/hca_shared_devices_a", "50",
                "cpu", "64")));
        // the agent maps rdma/hca_shared_devices_a to mlx5_3 (rdma-shared-dev-plugin selectors)
        all.add(topology("node-a", seedShape(), Map.of("rdmaResources", List.of(Map.of(
                "resourceName", "rdma/hca_shared_devices_a", "hcas", List.of("mlx5_3"), "mappedBy", "selectors",
                "allocatable", 50, "allocated", 0)))));
        all.add(pod("prod", "p1", "node-a", null, Map.of("nvidia.com/mlx5_0", "1", "cpu", "4")));
        all.add(pod("prod", "p2", "node-a", null, Map.of("nvidia.com/mlx5_0", "1",
                "rdma/hca_shared_devices_a", "1")));
        all.add(pod("prod", "p3", null, null, Map.of("nvidia.com/mlx5_0", "1")));

        Converted<NodeStateConverter.Result> c = convert(all);

        // p1 + p2 hold 2 slots of mlx5_0; the pending p3 holds none; cpu is not an RDMA resource
        assertThat(state(c, "node-a").hcaResources()).containsExactlyInAnyOrder(
                new HcaResource("rdma/hca_shared_devices_a", "mlx5_3", 50, 1),
                new HcaResource("nvidia.com/mlx5_0", "mlx5_0", 100, 2));
        assertThat(c.value().rdmaResources()).containsExactlyInAnyOrder("nvidia.com/mlx5_0",
                "rdma/hca_shared_devices_a");
    }

    @Test
    void cordonedAndNotReadyNodesAreUnschedulableANodeWithoutConditionsIsNot() {
        GenericKubernetesResource cordoned = node("node-a", null, Map.of());
        cordoned.setAdditionalProperty("spec", Map.of("unschedulable", true));
        GenericKubernetesResource notReady = ClusterFixtures.object(WatchedKind.NODE, null, "node-b", null, null,
                Map.of("status", Map.of("conditions", List.of(Map.of("type", "Ready", "status", "Unknown")))));
        GenericKubernetesResource bare = ClusterFixtures.object(WatchedKind.NODE, null, "node-c", null, null, null);

        Converted<NodeStateConverter.Result> c = convert(List.of(cordoned, notReady, bare));

        assertThat(state(c, "node-a").schedulable()).isFalse();
        assertThat(state(c, "node-b").schedulable()).isFalse();
        assertThat(state(c, "node-c").schedulable()).isTrue();
        assertThat(state(c, "node-c").topology()).isNull();
    }

    @Test
    void anUnreadableNodeTopologyIsReportedAndTheNodeKeptWithoutTopology() {
        GenericKubernetesResource badTopo = ClusterFixtures.object(WatchedKind.NODE_TOPOLOGY, null, "node-a", null,
                null, Map.of("spec", Map.of("gpus", "lots")));
        GenericKubernetesResource orphan = topology("node-z", seedShape(), null);

        Converted<NodeStateConverter.Result> c = convert(List.of(node("node-a", null, Map.of()), badTopo, orphan));

        assertThat(state(c, "node-a").topology()).isNull();
        assertThat(c.warnings()).anySatisfy(w -> assertThat(w).startsWith("NodeTopology node-a: spec cannot be read (")
                .endsWith("); the node is treated as having no topology"));
        assertThat(c.warnings()).contains("NodeTopology node-z: no Node of that name; ignored");
    }
}
