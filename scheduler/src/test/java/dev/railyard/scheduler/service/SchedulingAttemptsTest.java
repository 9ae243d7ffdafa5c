package dev.railyard.scheduler.service;

import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.engine.Reason;
import dev.railyard.scheduler.engine.ReasonCode;
import dev.railyard.scheduler.ipam.IpamObjects;
import dev.railyard.scheduler.protocol.PodRef;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One Event per pod per scheduling attempt, with the true counts, never on a pod that was placed; attempts end after
 * a quiet gap or at the longest length, on a clock the tests move by hand.
 */
class SchedulingAttemptsTest {
    private static final Duration QUIET = Duration.ofMillis(500);
    private static final PodRef W0 = new PodRef("prod", "w-0", "uid-0");
    private static final Predicate<String> WAITING = k -> true;

    private final IpamObjects.MutableClock clock = new IpamObjects.MutableClock(Instant.parse("2026-12-01T00:00:00Z"));
    private final RecordingEventSink sink = new RecordingEventSink();
    private final SchedulingAttempts attempts = new SchedulingAttempts(sink, clock, QUIET, Duration.ofSeconds(10),
            1_000);

    private static final Reason HELD = new Reason(ReasonCode.INSUFFICIENT_GPUS, "insufficient free GPUs",
            "8 needed, 0 free");
    private static final Reason NO_HCA = new Reason(ReasonCode.HCA_RESOURCE_MISSING, "no resource rdma/hca",
            "rdma/hca is not advertised on the node");

    private static List<NodeVerdict> refused(String node, Reason r) {
        return List.of(new NodeVerdict(node, List.of(r)));
    }

    /** Volcano's way: one predicate call per node, 16 at a time, within milliseconds. */
    private void predicateEach(PodRef pod, int nodes, Reason r) {
        for (int i = 0; i < nodes; i++) {
            attempts.filtered(pod, refused("gpu-" + i, r));
            clock.advance(Duration.ofMillis(2));
        }
    }

    @Test
    void sixRefusedPredicateCallsGiveOneEventCountingSixNodes() {
        predicateEach(W0, 6, HELD);
        assertThat(attempts.flushDue(WAITING)).as("before the quiet gap").isZero();
        clock.advance(QUIET);
        assertThat(attempts.flushDue(WAITING)).isEqualTo(1);
        // before: six Events "0/1 nodes available: 1 insufficient free GPUs"
        assertThat(sink.events).containsExactly(
                "Pod prod/w-0 RailyardUnschedulable: 0/6 nodes available: 6 insufficient free GPUs");
        assertThat(attempts.openAttempts()).isZero();
    }

    @Test
    void aPodThatPassesOnOneNodeOfTheAttemptGetsNoEvent() {
        predicateEach(W0, 5, HELD);
        attempts.filtered(W0, List.of(NodeVerdict.pass("gpu-5")));
        predicateEach(W0, 2, HELD);
        clock.advance(QUIET);
        attempts.flushDue(WAITING);
        assertThat(sink.events).isEmpty();
    }

    @Test
    void aNeutralPassCountsAsAPass() {
        attempts.filtered(W0, List.of(NodeVerdict.neutral("gpu-n1", "node gpu-n1 has no NodeTopology")));
        predicateEach(W0, 3, HELD);
        clock.advance(QUIET);
        attempts.flushDue(WAITING);
        assertThat(sink.events).isEmpty();
    }

    @Test
    void aPodAllocatedInTheSessionOrBoundMeanwhileGetsNoEvent() {
        PodRef w1 = new PodRef("prod", "w-1", "uid-1");
        predicateEach(W0, 3, HELD);
        attempts.placed("prod/w-0");
        predicateEach(w1, 3, HELD);
        clock.advance(QUIET);
        // w-1 was bound by the time the attempt ended (the cluster state shows a node)
        attempts.flushDue(k -> !k.equals("prod/w-1"));
        assertThat(sink.events).isEmpty();
    }

    @Test
    void anAllocationUndoneLeavesTheRefusalToBeSaid() {
        predicateEach(W0, 3, HELD);
        attempts.placed("prod/w-0");
        attempts.unplaced("prod/w-0");
        clock.advance(QUIET);
        attempts.flushDue(WAITING);
        assertThat(sink.events).hasSize(1);
    }

    @Test
    void aNodeAskedTwiceCountsOnceWithItsLastVerdict() {
        attempts.filtered(W0, refused("gpu-0", HELD));
        attempts.filtered(W0, refused("gpu-1", HELD));
        attempts.filtered(W0, refused("gpu-0", NO_HCA));
        clock.advance(QUIET);
        attempts.flushDue(WAITING);
        // gpu-0's last verdict is unresolvable: kube-scheduler's style adds what preemption cannot help; equal
        // counts keep the order the nodes were first asked about (Verdicts.summarize)
        assertThat(sink.events).containsExactly("Pod prod/w-0 RailyardUnschedulable: 0/2 nodes available: "
                + "1 no resource rdma/hca, 1 insufficient free GPUs; preemption cannot help on 1");
    }

    @Test
    void sessionsASecondApartAreTwoAttemptsAndCallsWithoutPauseAreCutAtTheLongest() {
        predicateEach(W0, 2, HELD);
        clock.advance(Duration.ofSeconds(1));
        attempts.flushDue(WAITING);
        predicateEach(W0, 3, HELD);
        clock.advance(Duration.ofSeconds(1));
        attempts.flushDue(WAITING);
        assertThat(sink.events).containsExactly(
                "Pod prod/w-0 RailyardUnschedulable: 0/2 nodes available: 2 insufficient free GPUs",
                "Pod prod/w-0 RailyardUnschedulable: 0/3 nodes available: 3 insufficient free GPUs");

        // a call every 400 ms for 12 s: never quiet for 500 ms, so the attempt ends at 10 s
        sink.events.clear();
        for (int i = 0; i < 30; i++) {
            attempts.filtered(W0, refused("gpu-" + (i % 4), HELD));
            clock.advance(Duration.ofMillis(400));
            attempts.flushDue(WAITING);
        }
        assertThat(sink.events).containsExactly(
                "Pod prod/w-0 RailyardUnschedulable: 0/4 nodes available: 4 insufficient free GPUs");
    }

    @Test
    void podsBeyondTheMostAttemptsHeldGetNoEventAndNothingIsKeptForThem() {
        SchedulingAttempts small = new SchedulingAttempts(sink, clock, QUIET, QUIET, 2);
        for (int p = 0; p < 3; p++) {
            small.filtered(new PodRef("prod", "p" + p, ""), refused("gpu-0", HELD));
        }
        assertThat(small.openAttempts()).isEqualTo(2);
        clock.advance(QUIET);
        assertThat(small.flushDue(WAITING)).isEqualTo(2);
        assertThat(sink.events).extracting(e -> e.split(" ")[1]).containsExactly("prod/p0", "prod/p1");
    }

    /**
     * The promise "never on a pod that passed in that attempt" under Volcano's concurrency: 16 threads answer 64
     * predicate calls for one pod while another thread keeps ending due attempts; one call of the 64 passes. Then
     * the same with all 64 refused: exactly one Event, counting all 64 nodes. Repeated 50 times.
     */
    @Test
    void sixteenConcurrentPredicateCallersNeverLoseAPassOrANode() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(17);
        try {
            for (int round = 0; round < 50; round++) {
                for (boolean onePasses : new boolean[]{true, false}) {
                    sink.events.clear();
                    PodRef pod = new PodRef("prod", "r" + round + (onePasses ? "p" : "f"), "");
                    race(pool, pod, onePasses ? 37 : -1);
                    clock.advance(QUIET);
                    attempts.flushDue(WAITING);
                    if (onePasses) {
                        assertThat(sink.events).as("round %d", round).isEmpty();
                    } else {
                        assertThat(sink.events).as("round %d", round).containsExactly("Pod " + pod
                                + " RailyardUnschedulable: 0/64 nodes available: 64 insufficient free GPUs");
                    }
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private void race(ExecutorService pool, PodRef pod, int passing) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> calls = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            int first = t * 4;
            calls.add(pool.submit(() -> {
                start.await();
                for (int n = first; n < first + 4; n++) {
                    attempts.filtered(pod, n == passing ? List.of(NodeVerdict.pass("gpu-" + n))
                            : refused("gpu-" + n, HELD));
                }
                return null;
            }));
        }
        Future<?> ender = pool.submit(() -> {
            start.await();
            for (int i = 0; i < 200; i++) {
                attempts.flushDue(WAITING); // the clock stands still: nothing is due while the calls run
            }
            return null;
        });
        start.countDown();
        for (Future<?> f : calls) {
            f.get(10, TimeUnit.SECONDS);
        }
        ender.get(10, TimeUnit.SECONDS);
        assertThat(Set.copyOf(sink.events)).isEmpty();
    }

}
