package dev.railyard.scheduler.service;

import dev.railyard.scheduler.cluster.ClusterObjects;
import dev.railyard.scheduler.engine.NodeScore;
import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.GangRef;
import dev.railyard.scheduler.protocol.PodRef;
import dev.railyard.scheduler.protocol.ResourceRequests;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.railyard.scheduler.cluster.ClusterFixtures.node;
import static dev.railyard.scheduler.cluster.ClusterFixtures.objects;
import static dev.railyard.scheduler.cluster.ClusterFixtures.pod;
import static dev.railyard.scheduler.cluster.ClusterFixtures.podGroup;
import static dev.railyard.scheduler.cluster.ClusterFixtures.seedShape;
import static dev.railyard.scheduler.cluster.ClusterFixtures.topology;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link EnginePlacementDecisions#prepare}: a new view is prepared for the gangs a scheduler asked about, so the
 * first call after a change finds the gang's plan made. Two seed-shaped nodes (8 GPUs each), both full at first
 * (a running pod holds each one's GPUs), and a one-pod gang {@code prod/pg} whose p0 asks for 8 GPUs; then gpu-b's
 * pod ends, and gpu-b is the only node p0 fits.
 */
class PreparedGangsTest {
    private static final Map<String, String> RDMA = Map.of("nvidia.com/mlx5_0", "100", "nvidia.com/mlx5_1", "100",
            "nvidia.com/mlx5_2", "100", "nvidia.com/mlx5_3", "100");
    private static final Map<String, Object> EIGHT_GPUS = Map.of("nvidia.com/gpu", "8");
    private static final Map<String, String> IN_GROUP = Map.of(GangRef.VOLCANO_GROUP_ANNOTATION, "pg");
    private static final List<String> NODES = List.of("gpu-a", "gpu-b");
    private final Clock clock = Clock.fixed(Instant.parse("2026-09-01T00:00:00Z"), ZoneOffset.UTC);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private static ClusterObjects cluster(long version, boolean gpuBFull, boolean podGroup) {
        List<GenericKubernetesResource> all = new ArrayList<>(List.of(
                node("gpu-a", Map.of(), RDMA), node("gpu-b", Map.of(), RDMA),
                topology("gpu-a", seedShape(), null), topology("gpu-b", seedShape(), null),
                pod("prod", "busy-a", "gpu-a", Map.of(), EIGHT_GPUS),
                pod("prod", "p0", null, IN_GROUP, EIGHT_GPUS)));
        if (gpuBFull) {
            all.add(pod("prod", "busy-b", "gpu-b", Map.of(), EIGHT_GPUS));
        }
        if (podGroup) {
            all.add(podGroup("prod", "pg", 1, Map.of()));
        }
        ClusterObjects o = objects(all);
        return new ClusterObjects(o.takenAt(), version, o.objects(), Set.of(), true);
    }

    private static ExtenderPod p0() {
        return new ExtenderPod(new PodRef("prod", "p0", "uid-p0"), Map.of(), IN_GROUP, "volcano",
                new ResourceRequests(Map.of("nvidia.com/gpu", BigDecimal.valueOf(8))),
                GangRef.of("prod", Map.of(), IN_GROUP), null);
    }

    private EnginePlacementDecisions decisions(ClusterObjects[] now) {
        return new EnginePlacementDecisions(() -> now[0], new IpPoolLedger(clock), new PlacementEngine(), null, 50,
                registry);
    }

    private double plans() {
        return registry.get("railyard_gang_plans_total").functionCounter().count();
    }

    @Test
    void aNewViewPreparedForAGangAskedAboutLeavesTheNextCallNothingToPlan() {
        ClusterObjects[] now = {cluster(1, true, true)};
        var d = decisions(now);
        // both nodes full: the call plans the gang (the free GPUs cannot hold it) and every node refuses p0
        assertThat(d.filter(p0(), NODES)).noneMatch(NodeVerdict::feasible);
        assertThat(plans()).isEqualTo(1.0);

        now[0] = cluster(2, false, true);
        d.prepare(d.view());
        // the view where gpu-b is free was planned for by prepare ...
        assertThat(plans()).isEqualTo(2.0);
        List<NodeVerdict> verdicts = d.filter(p0(), NODES);
        List<NodeScore> scores = d.score(p0(), NODES);
        // ... so the calls plan nothing, and answer as the plan says: p0 on gpu-b, the only node with 8 free GPUs
        assertThat(plans()).isEqualTo(2.0);
        assertThat(verdicts).extracting(NodeVerdict::feasible).containsExactly(false, true);
        assertThat(scores).filteredOn(s -> s.node().equals("gpu-b")).extracting(NodeScore::score).containsExactly(100);
    }

    @Test
    void withoutPrepareTheFirstCallAfterTheChangeMakesThePlan() {
        // the control for the test above: the same calls, no prepare
        ClusterObjects[] now = {cluster(1, true, true)};
        var d = decisions(now);
        d.filter(p0(), NODES);
        now[0] = cluster(2, false, true);
        d.view();
        assertThat(plans()).isEqualTo(1.0);
        assertThat(d.filter(p0(), NODES)).extracting(NodeVerdict::feasible).containsExactly(false, true);
        assertThat(plans()).isEqualTo(2.0);
    }

    @Test
    void aGangNobodyAskedAboutIsNotPlannedAndAViewIsPreparedOnce() {
        ClusterObjects[] now = {cluster(1, true, true)};
        var d = decisions(now);
        d.prepare(d.view());
        assertThat(plans()).isEqualTo(0.0);

        // asked about while both nodes are full: no plan to keep, so each new view needs one
        d.filter(p0(), NODES);
        assertThat(plans()).isEqualTo(1.0);
        now[0] = cluster(2, false, true);
        var view = d.view();
        d.prepare(view);
        d.prepare(view);
        assertThat(plans()).isEqualTo(2.0);
        d.prepare(null);
        assertThat(plans()).isEqualTo(2.0);
    }

    @Test
    void aGangWhosePodGroupIsGoneIsForgotten() {
        ClusterObjects[] now = {cluster(1, true, true)};
        var d = decisions(now);
        d.filter(p0(), NODES);
        assertThat(plans()).isEqualTo(1.0);

        now[0] = cluster(2, false, false);
        d.prepare(d.view());
        now[0] = cluster(3, true, true);
        d.prepare(d.view());
        // the PodGroup was missing from view 2, so the gang was forgotten and view 3 is not planned for it
        assertThat(plans()).isEqualTo(1.0);
    }
}
