package dev.railyard.scheduler.simulate;

import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.scheduler.engine.ClusterSnapshot;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The event loop: FIFO with greedy backfill, waits, modelled run times, conservation. */
class EventSimulatorTest {
    /** Two DGX-shaped nodes under one leaf set: 16 GPUs. */
    private static final ClusterSnapshot TWO = GeneratedCluster.build(2, 1, "dgx:1");

    private static TraceJob job(String name, double at, double duration, int pods, int gpus) {
        return new TraceJob(name, at, duration, pods, gpus, AffinityPolicy.PREFERRED, 0.3,
                Collective.RING_ALL_REDUCE, 256);
    }

    @Test
    void aJobThatDoesNotFitWaitsAndASmallerOneBehindItBackfills() {
        // A takes one node at t=0 for 100 s; B (two nodes) arrives at 1 and must wait for A; C (one node)
        // arrives at 2, fits on the free node and starts at once (no reservation for B); B starts when A leaves
        List<TraceJob> trace = List.of(job("A", 0, 100, 1, 8), job("B", 1, 100, 2, 8), job("C", 2, 10, 1, 8));
        StrategyResult r = EventSimulator.run(TWO, trace, Baselines.binPacking(), StepTimeModel.defaults());
        assertThat(r.finished()).isEqualTo(3);
        assertThat(r.queuedAtEnd()).isZero();
        assertThat(r.waits()).containsExactly(0, 0, 99);
        // B's two pods are under one leaf on the same rails: slowdown 1; JCTs 100, 10 and 99 + 100
        assertThat(r.slowdowns()).containsExactly(1, 1, 1);
        assertThat(r.meanJct()).isCloseTo((100 + 10 + 199) / 3.0, within(1e-9));
        // utilisation window [first arrival + min(mean duration, half the arrival span), last arrival] = [1, 2]:
        // A's 8 of 16 GPUs
        assertThat(r.utilisation()).isCloseTo(0.5, within(1e-9));
    }

    @Test
    void aJobLargerThanTheClusterStaysQueuedAndIsNeverDropped() {
        List<TraceJob> trace = List.of(job("A", 0, 50, 1, 8), job("huge", 1, 50, 3, 8), job("C", 2, 50, 1, 8));
        StrategyResult r = EventSimulator.run(TWO, trace, Baselines.binPacking(), StepTimeModel.defaults());
        assertThat(r.finished()).isEqualTo(2);
        assertThat(r.queuedAtEnd()).isEqualTo(1);
        assertThat(r.jobs()).isEqualTo(3);
    }

    @Test
    void aStrategyThatDoubleBooksAGpuIsStopped() {
        PlacementStrategy greedy = new PlacementStrategy() {
            @Override
            public String name() {
                return "broken";
            }

            @Override
            public List<PodUse> place(SimCluster c, TraceJob j, double waited) {
                return List.of(new PodUse("su000-n00", List.of(c.homeUse(0, 0))));
            }
        };
        List<TraceJob> trace = List.of(job("A", 0, 100, 1, 1), job("B", 1, 100, 1, 1));
        assertThatThrownBy(() -> EventSimulator.run(TWO, trace, greedy, StepTimeModel.defaults()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("conservation: GPU 0 on su000-n00 is already held");
    }

    @Test
    void aSlowPlacementRunsLonger() {
        // two one-GPU pods on one node: a cross-rail hairpin without PXN (JobPlacementTest): bandwidth 30.9 GB/s;
        // this fabric has one tier, so the rail planes meet at tier 2: 2·2 − 1 = 3 layers; ring of 2 pods:
        // (2/2 · 256 MiB / 30.9e9 + 2 · 3 · 2.5 µs) / (256 MiB / 50e9 + 2 · 1 · 2.5 µs)
        double ideal = 268435456 / 50e9 + 2 * 2.5e-6;
        double slow = 268435456 / 30.9e9 + 2 * 3 * 2.5e-6;
        double slowdown = 0.7 + 0.3 * slow / ideal;
        StrategyResult r = EventSimulator.run(TWO, List.of(job("pair", 0, 1000, 2, 1)), Baselines.binPacking(),
                StepTimeModel.defaults());
        assertThat(r.slowdowns()[0]).isCloseTo(slowdown, within(1e-9));
        assertThat(r.meanJct()).isCloseTo(1000 * slowdown, within(1e-6));
    }

    /**
     * Conservation under every strategy, Railyard's real engine included: random traces on a mixed 64-node
     * cluster end with every job finished or still queued, no GPU held, and taken = given back GPU-seconds (the
     * simulator throws otherwise); utilisation never exceeds the cluster.
     */
    @Property(tries = 12)
    void everyStrategyConservesGpusAndJobs(@ForAll @LongRange(min = 1, max = 1_000_000) long seed,
                                           @ForAll @IntRange(min = 5, max = 60) int jobs) {
        ClusterSnapshot cluster = GeneratedCluster.build(64, 2, "dgx:1,hgx4:1");
        Random rnd = new Random(seed);
        int[][] shapes = {{1, 1}, {1, 4}, {1, 8}, {2, 8}, {4, 2}, {8, 1}, {4, 8}, {12, 8}, {80, 8}};
        List<TraceJob> trace = new ArrayList<>();
        double t = 0;
        for (int i = 0; i < jobs; i++) {
            t += rnd.nextDouble() * 20;
            int[] s = shapes[rnd.nextInt(shapes.length)];
            trace.add(new TraceJob("j" + i, t, 1 + rnd.nextDouble() * 300, s[0], s[1], AffinityPolicy.PREFERRED,
                    rnd.nextDouble(), rnd.nextBoolean() ? Collective.ALL_TO_ALL : Collective.RING_ALL_REDUCE, 64));
        }
        for (PlacementStrategy s : Simulator.strategies(seed, 30)) {
            StrategyResult r = EventSimulator.run(cluster, trace, s, StepTimeModel.defaults());
            assertThat(r.finished() + r.queuedAtEnd()).as(s.name()).isEqualTo(jobs);
            assertThat(r.utilisation()).as(s.name()).isBetween(0.0, 1.0);
            for (double u : r.utilSeries()) {
                assertThat(u).as(s.name()).isBetween(0.0, 1.0);
            }
            // only the 80 × 8 shape (640 GPUs > 512) can never fit
            long never = trace.stream().filter(j -> j.totalGpus() > 512).count();
            assertThat(r.queuedAtEnd()).as(s.name()).isGreaterThanOrEqualTo((int) never);
        }
    }
}
