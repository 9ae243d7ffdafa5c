package dev.railyard.agent;

import dev.railyard.api.topology.AllocatedGpu;
import dev.railyard.api.topology.HcaPortStatus;
import dev.railyard.api.topology.NodeHealth;
import dev.railyard.api.topology.NodeTopologyStatus;
import dev.railyard.api.topology.PodAllocation;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static dev.railyard.agent.PublishGate.Decision.CHANGE;
import static dev.railyard.agent.PublishGate.Decision.FIRST;
import static dev.railyard.agent.PublishGate.Decision.HEALTH;
import static dev.railyard.agent.PublishGate.Decision.HOLD;
import static dev.railyard.agent.PublishGate.Decision.RESYNC;
import static dev.railyard.agent.PublishGate.Decision.UNCHANGED;
import static org.assertj.core.api.Assertions.assertThat;

class PublishGateTest {
    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T07:00:00Z"));
    private final PublishGate gate = new PublishGate(Duration.ofSeconds(30), Duration.ofMinutes(5), clock);

    private static DesiredNodeTopology desired(String observed, String portState, int pods, String transition) {
        List<PodAllocation> allocations = pods == 0 ? List.of() : List.of(new PodAllocation("ns", "p",
                List.of(new AllocatedGpu("GPU-1", "GPU-1", 0)), List.of()));
        return new DesiredNodeTopology("node-a", null, new NodeTopologyStatus(observed,
                "ACTIVE".equals(portState) ? NodeHealth.HEALTHY : NodeHealth.DEGRADED, List.of(), allocations,
                List.of(new HcaPortStatus("mlx5_0", 1, portState, "Ethernet", 400, 2, pods, 63)), List.of(),
                List.of(), List.of(new ConditionBuilder().withType("Ready").withStatus("True").withReason("Observed")
                .withLastTransitionTime(transition).build())));
    }

    @Test
    void writesFirstThenOnlyChangesNoMoreThanOncePerInterval() {
        DesiredNodeTopology a = desired("t0", "ACTIVE", 0, "t0");
        assertThat(gate.decide(a)).isEqualTo(FIRST);
        gate.published(a);

        clock.advance(Duration.ofSeconds(5));
        // A newer observedTime and transition time alone are not a change.
        assertThat(gate.decide(desired("t1", "ACTIVE", 0, "t1"))).isEqualTo(UNCHANGED);

        DesiredNodeTopology b = desired("t1", "ACTIVE", 1, "t0");
        assertThat(gate.decide(b)).isEqualTo(HOLD);           // 5 s < 30 s interval
        clock.advance(Duration.ofSeconds(25));
        assertThat(gate.decide(b)).isEqualTo(CHANGE);         // 30 s since the last write
        gate.published(b);
        clock.advance(Duration.ofSeconds(1));
        assertThat(gate.decide(b)).isEqualTo(UNCHANGED);
    }

    @Test
    void portGoingDownIsWrittenAtOnce() {
        DesiredNodeTopology up = desired("t0", "ACTIVE", 0, "t0");
        gate.published(up);
        clock.advance(Duration.ofSeconds(1));
        assertThat(gate.decide(desired("t1", "DOWN", 0, "t0"))).isEqualTo(HEALTH);
    }

    @Test
    void failedWriteLeavesTheChangePending() {
        DesiredNodeTopology a = desired("t0", "ACTIVE", 0, "t0");
        gate.published(a);
        clock.advance(Duration.ofSeconds(31));
        DesiredNodeTopology b = desired("t1", "ACTIVE", 1, "t0");
        assertThat(gate.decide(b)).isEqualTo(CHANGE);
        // not published (the write failed): offered again
        clock.advance(Duration.ofSeconds(2));
        assertThat(gate.decide(b)).isEqualTo(CHANGE);
    }

    @Test
    void resumedFromAStoredObjectWritesOnlyWhatChangedAndResyncsFromItsWriteTime() {
        // An earlier run wrote this at 06:58:00; the gate starts at 07:00:00 (clock) knowing that.
        gate.resume(desired("2026-11-30T06:58:00Z", "ACTIVE", 1, "2026-11-30T06:00:00Z"),
                Instant.parse("2026-11-30T06:58:00Z"));
        // The same picture with this run's times: nothing to write (not FIRST).
        assertThat(gate.decide(desired("t1", "ACTIVE", 1, "t1"))).isEqualTo(UNCHANGED);
        // A change: 2 min since 06:58:00 > 30 s interval.
        assertThat(gate.decide(desired("t1", "ACTIVE", 0, "t1"))).isEqualTo(CHANGE);
        assertThat(gate.decide(desired("t1", "DOWN", 1, "t1"))).isEqualTo(HEALTH);
        // Unchanged, 5 min after 06:58:00 (= 07:03:00): the heartbeat rewrite.
        clock.advance(Duration.ofMinutes(3));
        assertThat(gate.decide(desired("t2", "ACTIVE", 1, "t1"))).isEqualTo(RESYNC);
    }

    @Test
    void unchangedPictureIsRewrittenAfterTheResyncPeriod() {
        DesiredNodeTopology a = desired("t0", "ACTIVE", 0, "t0");
        gate.published(a);
        clock.advance(Duration.ofMinutes(5));
        assertThat(gate.decide(desired("t9", "ACTIVE", 0, "t0"))).isEqualTo(RESYNC);
    }
}
