package dev.railyard.scheduler.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.railyard.scheduler.cluster.ClusterObjects;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.protocol.AllocationVerdict;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.PodRef;
import dev.railyard.scheduler.protocol.ResourceRequests;
import dev.railyard.scheduler.protocol.kube.KubeExtender;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static dev.railyard.scheduler.cluster.ClusterFixtures.ipPool;
import static dev.railyard.scheduler.cluster.ClusterFixtures.nad;
import static dev.railyard.scheduler.cluster.ClusterFixtures.node;
import static dev.railyard.scheduler.cluster.ClusterFixtures.objects;
import static dev.railyard.scheduler.cluster.ClusterFixtures.pod;
import static dev.railyard.scheduler.cluster.ClusterFixtures.seedShape;
import static dev.railyard.scheduler.cluster.ClusterFixtures.topology;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hostile binds on the wire (issue 16 item 2): a caller that names a pod Railyard is not scheduling gets an
 * {@code Error} naming why, the Binder is never called, and {@code railyard_refused_binds_total{verb,why}} counts one
 * refusal; the same pods through {@code allocateFunc} are vetoed. Cluster: gpu-a, network prod/rail0
 * (192.168.4.0/28), pod {@code prod/p-0} pending for the default scheduler, {@code prod/bound} on gpu-a,
 * {@code prod/foreign} of {@code my-scheduler}; every fixture pod's UID is {@code uid-<name>} (ClusterFixtures).
 */
class BindRefusalWireTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NETWORKS = "k8s.v1.cni.cncf.io/networks";
    private static final Map<String, String> RDMA = Map.of("nvidia.com/mlx5_0", "100");

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<String> binds = Collections.synchronizedList(new ArrayList<>());
    private final EnginePlacementDecisions decisions = decisions();

    private EnginePlacementDecisions decisions() {
        List<GenericKubernetesResource> all = new ArrayList<>(List.of(node("gpu-a", Map.of(), RDMA),
                topology("gpu-a", seedShape(), null), nad("prod", "rail0", "lan2", "192.168.4.0/28"),
                ipPool("kube-system", "192.168.4.0-28", "192.168.4.0/28", List.of())));
        all.add(pod("prod", "p-0", null, Map.of(NETWORKS, "rail0"), Map.of()));
        all.add(pod("prod", "bound", "gpu-a", Map.of(NETWORKS, "rail0"), Map.of()));
        GenericKubernetesResource foreign = pod("prod", "foreign", null, Map.of(NETWORKS, "rail0"), Map.of());
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = (Map<String, Object>) foreign.getAdditionalProperties().get("spec");
        spec.put("schedulerName", "my-scheduler");
        all.add(foreign);
        ClusterObjects o = objects(all);
        EnginePlacementDecisions d = new EnginePlacementDecisions(() -> o,
                new IpPoolLedger(Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC)),
                new PlacementEngine(), null, 50, registry);
        d.reserveWith(Reservations.Settings.DEFAULTS, HoldWriter.none());
        return d;
    }

    private String bind(String name, String uid, String node) throws Exception {
        KubeExtender kube = new KubeExtender(decisions, (pod, n, a) -> binds.add(pod + " -> " + n), 50, registry);
        String body = JSON.createObjectNode().put("PodName", name).put("PodNamespace", "prod").put("PodUID", uid)
                .put("Node", node).toString();
        return JSON.readTree(kube.bind(body.getBytes(StandardCharsets.UTF_8)).body()).path("Error").asText();
    }

    private double refused(String verb, String why) {
        var c = registry.find("railyard_refused_binds_total").tag("verb", verb).tag("why", why).counter();
        return c == null ? 0 : c.count();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "another scheduler's pod | foreign | uid-foreign | other_scheduler | its schedulerName is my-scheduler",
            "a wrong UID | p-0 | uid-someone-else | uid_mismatch | the pod's UID is uid-p-0, not uid-someone-else",
            "no UID | p-0 | '' | uid_mismatch | the request names no pod UID",
            "a pod already bound | bound | uid-bound | already_bound | the pod is already bound to gpu-a",
            "a pod that does not exist | ghost | uid-ghost | unknown_pod | no such pod in Railyard's cache"})
    void aBindOfAPodRailyardIsNotSchedulingIsRefusedAndCounted(String what, String name, String uid, String why,
                                                                 String says) throws Exception {
        String error = bind(name, uid, "gpu-a");
        assertThat(error).startsWith("railyard bind of prod/" + name + " to gpu-a refused: ").contains(says);
        assertThat(binds).as("the Binder must not be called for %s", what).isEmpty();
        assertThat(refused("bind", why)).isEqualTo(1);
        if (!uid.isEmpty()) {
            AllocationVerdict v = decisions.allocated(new ExtenderPod(new PodRef("prod", name, uid), Map.of(),
                    Map.of(NETWORKS, "rail0"), "volcano", ResourceRequests.NONE, null, null), "gpu-a");
            assertThat(v.accepted()).isFalse();
            assertThat(v.reason()).contains(says);
            assertThat(refused("allocateFunc", why)).isEqualTo(1);
        }
    }
}
