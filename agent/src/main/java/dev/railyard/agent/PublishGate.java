package dev.railyard.agent;

import dev.railyard.api.topology.HcaPortStatus;
import dev.railyard.api.topology.NodeHealth;
import dev.railyard.api.topology.NodeTopologyStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * Decides when the agent writes its {@code NodeTopology}: only when something changed, at most once per
 * {@code interval}; but a health change (a port going up or down, the status turning stale or fresh) at once; and an
 * unchanged picture again after {@code resync}, so that {@code observedTime} works as a heartbeat.
 *
 * <p>"Changed" compares the whole desired object except {@code observedTime} and the conditions'
 * {@code lastTransitionTime}. Call {@link #published} only after a write succeeded: a failed write leaves the change
 * pending, and the next {@link #decide} offers it again. Not thread-safe.
 */
public final class PublishGate {
    /** What to do with a desired object. */
    public enum Decision {
        /** Nothing written yet: write. */
        FIRST,
        /** Health changed: write now, whatever the interval. */
        HEALTH,
        /** Changed and the interval has passed: write. */
        CHANGE,
        /** Unchanged but older than the resync period: write again. */
        RESYNC,
        /** Changed, but the last write is younger than the interval: wait. */
        HOLD,
        /** Nothing to write. */
        UNCHANGED;

        /** @return true for the decisions that write */
        public boolean publishes() {
            return this == FIRST || this == HEALTH || this == CHANGE || this == RESYNC;
        }
    }

    private final Duration interval;
    private final Duration resync;
    private final Clock clock;

    private DesiredNodeTopology lastContent;
    private Object lastHealth;
    private Instant lastPublishedAt;

    /**
     * @param interval shortest time between two writes of non-health changes
     * @param resync   longest time between two writes
     * @param clock    time source
     */
    public PublishGate(Duration interval, Duration resync, Clock clock) {
        this.interval = Objects.requireNonNull(interval);
        this.resync = Objects.requireNonNull(resync);
        this.clock = Objects.requireNonNull(clock);
    }

    /** @return whether to write {@code desired} now */
    public Decision decide(DesiredNodeTopology desired) {
        if (lastPublishedAt == null) {
            return Decision.FIRST;
        }
        if (!healthKey(desired).equals(lastHealth)) {
            return Decision.HEALTH;
        }
        Duration since = Duration.between(lastPublishedAt, clock.instant());
        if (!content(desired).equals(lastContent)) {
            return since.compareTo(interval) >= 0 ? Decision.CHANGE : Decision.HOLD;
        }
        return since.compareTo(resync) >= 0 ? Decision.RESYNC : Decision.UNCHANGED;
    }

    /**
     * Starts from what the API server already holds (written by an earlier run of the agent), as if this gate had
     * written it at {@code writtenAt}: an unchanged picture is then not written again until {@code resync} after
     * that time. Call before the first {@link #decide}.
     *
     * @param stored    the stored object, with a status
     * @param writtenAt when it was written (its {@code observedTime})
     */
    public void resume(DesiredNodeTopology stored, Instant writtenAt) {
        Objects.requireNonNull(stored.status(), "stored status");
        lastContent = content(stored);
        lastHealth = healthKey(stored);
        lastPublishedAt = Objects.requireNonNull(writtenAt);
    }

    /** Records a successful write of {@code desired}. */
    public void published(DesiredNodeTopology desired) {
        lastContent = content(desired);
        lastHealth = healthKey(desired);
        lastPublishedAt = clock.instant();
    }

    private record HealthKey(NodeHealth health, List<PortUp> ports, List<String> conditions) {
    }

    private record PortUp(String hca, int port, boolean up) {
    }

    private static HealthKey healthKey(DesiredNodeTopology d) {
        NodeTopologyStatus s = d.status();
        return new HealthKey(s.health(),
                s.ports().stream().map(p -> new PortUp(p.hca(), p.port(), p.isUp())).toList(),
                s.conditions().stream().map(c -> c.getType() + "=" + c.getStatus()).toList());
    }

    private static DesiredNodeTopology content(DesiredNodeTopology d) {
        NodeTopologyStatus s = d.status();
        List<Condition> conditions = s.conditions().stream()
                .map(c -> new ConditionBuilder(c).withLastTransitionTime(null).build()).toList();
        NodeTopologyStatus normalized = new NodeTopologyStatus(null, s.health(), s.allocatedGpus(), s.allocations(),
                s.ports(), s.rdmaResources(), s.netdevs(), conditions);
        return new DesiredNodeTopology(d.nodeName(), d.spec(), normalized);
    }

    /** @return ports whose state is known to be down, for log lines */
    static List<String> downPorts(NodeTopologyStatus s) {
        return s.ports().stream().filter(p -> !p.isUp()).map(PublishGate::portName).toList();
    }

    private static String portName(HcaPortStatus p) {
        return p.hca() + "/" + p.port();
    }
}
