package dev.railyard.scheduler.service;

import dev.railyard.scheduler.cluster.ClusterObjects;
import dev.railyard.scheduler.engine.NodeScore;
import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.scheduler.engine.Reason;
import dev.railyard.scheduler.engine.ReasonCode;
import dev.railyard.scheduler.engine.Status;
import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.GangJob;
import dev.railyard.scheduler.protocol.GangRef;
import dev.railyard.scheduler.protocol.GangVerdict;
import dev.railyard.scheduler.protocol.PodRef;
import dev.railyard.scheduler.protocol.ResourceRequests;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static dev.railyard.scheduler.cluster.ClusterFixtures.node;
import static dev.railyard.scheduler.cluster.ClusterFixtures.objects;
import static dev.railyard.scheduler.cluster.ClusterFixtures.pod;
import static dev.railyard.scheduler.cluster.ClusterFixtures.podGroup;
import static dev.railyard.scheduler.cluster.ClusterFixtures.seedShape;
import static dev.railyard.scheduler.cluster.ClusterFixtures.topology;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code railyard.dev/} placement annotation with a value Railyard does not know, on the pod or on its PodGroup,
 * is the job author's mistake: every deciding verb answers with a reason naming it (found by an attacker review:
 * each of them answered HTTP 500 with a stack trace, and under {@code ignorable: true} kube-scheduler then bound the
 * pod without Railyard). The value is the author's text, so a newline in it must not end the reason's line.
 */
class PolicyAnnotationErrorsTest {
    private static final Map<String, String> RDMA = Map.of("nvidia.com/mlx5_0", "100", "nvidia.com/mlx5_1", "100",
            "nvidia.com/mlx5_2", "100", "nvidia.com/mlx5_3", "100");
    /** GPUs and one slot of each seed HCA: in the hint scope, so the bind asks for hints. */
    private static final Map<String, Object> EIGHT = Map.of("nvidia.com/gpu", "8", "nvidia.com/mlx5_0", "1",
            "nvidia.com/mlx5_1", "1", "nvidia.com/mlx5_2", "1", "nvidia.com/mlx5_3", "1");
    private static final String GROUP = "scheduling.k8s.io/group-name";
    private final Clock clock = Clock.fixed(Instant.parse("2026-09-01T00:00:00Z"), ZoneOffset.UTC);

    private EnginePlacementDecisions decisions(Map<String, String> groupAnnotations, Map<String, String> podAnnotations) {
        ClusterObjects objects = objects(List.of(
                node("gpu-a", Map.of(), RDMA), topology("gpu-a", seedShape(), null),
                podGroup("prod", "pg", 1, groupAnnotations),
                pod("prod", "p0", null, podAnnotations, EIGHT)));
        return new EnginePlacementDecisions(() -> objects, new IpPoolLedger(clock), new PlacementEngine(), null, 50,
                new SimpleMeterRegistry());
    }

    private static ExtenderPod p0(Map<String, String> annotations) {
        return new ExtenderPod(new PodRef("prod", "p0", "uid-p0"), Map.of(), annotations, "volcano",
                new ResourceRequests(Map.of("nvidia.com/gpu", BigDecimal.valueOf(8))),
                GangRef.of("prod", Map.of(), annotations), null);
    }

    @Test
    void aBadValueOnThePodRefusesEveryNodeNamingTheAnnotationAndScoresNeutrally() {
        Map<String, String> bad = Map.of(GROUP, "pg", "railyard.dev/fabric-scope", "bogus\nFORGED line");
        var d = decisions(Map.of(), bad);

        List<NodeVerdict> verdicts = d.filter(p0(bad), List.of("gpu-a", "gpu-x"));

        assertThat(verdicts).extracting(NodeVerdict::node).containsExactly("gpu-a", "gpu-x");
        for (NodeVerdict v : verdicts) {
            // unresolvable: no node and no preemption helps until the annotation is fixed
            assertThat(v.code()).isEqualTo(Status.Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
            Reason r = v.reasons().getFirst();
            assertThat(r.code()).isEqualTo(ReasonCode.POLICY_INVALID);
            assertThat(r.detail()).startsWith("annotation railyard.dev/fabric-scope: 'bogus\\nFORGED line' is not ")
                    .doesNotContain("\n");
        }
        assertThat(d.score(p0(bad), List.of("gpu-a"))).containsExactly(NodeScore.neutral("gpu-a", 50));
    }

    @Test
    void aBadValueOnThePodGroupRefusesItsTasksAndItsEnqueue() {
        Map<String, String> member = Map.of(GROUP, "pg");
        var d = decisions(Map.of("railyard.dev/gpu-hca-max-distance", ""), member);

        assertThat(d.filter(p0(member), List.of("gpu-a")).getFirst().reasons().getFirst().code())
                .isEqualTo(ReasonCode.POLICY_INVALID);
        GangVerdict v = d.enqueueable(new GangJob("prod/pg", "", "prod", "pg", "default", 1, Map.of(),
                List.of(p0(member))));
        assertThat(v.outcome()).isEqualTo(GangVerdict.Outcome.REJECT);
        assertThat(v.reason()).isEqualTo("annotation railyard.dev/gpu-hca-max-distance: '' is not PIX, PXB, P2C, "
                + "PHB, NODE or SYS");
        // no hints can be planned for it: the bind gets none rather than an error
        assertThat(d.bindHints(new PodRef("prod", "p0", "uid-p0"), "gpu-a")).isEmpty();
    }
}
