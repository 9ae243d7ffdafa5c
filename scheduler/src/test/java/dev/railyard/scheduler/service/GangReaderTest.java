package dev.railyard.scheduler.service;

import dev.railyard.scheduler.cluster.ClusterObjects;
import dev.railyard.scheduler.cluster.ClusterView;
import dev.railyard.scheduler.input.RateLimitedLog;
import dev.railyard.scheduler.protocol.GangRef;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A pod in a request names its gang, so a caller can name a new, made-up one each time: the "no PodGroup" line is
 * said once per gang and at most once per PodGroup kind every 10 s (a clock the test moves), and a real gang held
 * back by a flood of made-up ones is said at a later call.
 */
class GangReaderTest {
    final AtomicLong clock = new AtomicLong();
    final List<String> lines = new ArrayList<>();
    final GangReader reader = new GangReader(new RateLimitedLog(Duration.ofSeconds(10), clock::get,
            (level, line, thrown) -> lines.add(level + " " + line)));
    /** A synced cluster with no objects: every PodGroup kind installed, no PodGroup. */
    final ClusterView view = ClusterView.of(new ClusterObjects(Instant.EPOCH, 1, Map.of(), Set.of(), true), null, null);

    /** The line of GangReader.announceNoPodGroup for a Volcano gang in namespace ml (WatchedKind.toString). */
    static String noGroup(String name) {
        return "INFO gang ml/" + name + " (pod annotation scheduling.k8s.io/group-name): there is no "
                + "PodGroup.scheduling.volcano.sh/v1beta1 ml/" + name + ", so its pods are judged one by one, without "
                + "a gang plan";
    }

    @Test
    void madeUpGangsCostOneLinePerWindowAndARealGangHeldBackIsToldLater() {
        for (int i = 0; i < 100; i++) {
            reader.announceNoPodGroup(view, new GangRef("ml", "made-up-" + i, GangRef.Convention.VOLCANO));
        }
        reader.announceNoPodGroup(view, new GangRef("ml", "real", GangRef.Convention.VOLCANO));
        assertThat(lines).containsExactly(noGroup("made-up-0"));

        clock.addAndGet(10_000_000_000L);
        reader.announceNoPodGroup(view, new GangRef("ml", "real", GangRef.Convention.VOLCANO));
        // held back before: made-up-1..99 (99) and real (1), 99 + 1 = 100 counted in this line
        assertThat(lines).containsExactly(noGroup("made-up-0"),
                noGroup("real") + " (and 100 more like it in the 10 s after the previous one)");

        // both told gangs stay told (30 min), whatever the window: no line, nothing counted
        clock.addAndGet(10_000_000_000L);
        reader.announceNoPodGroup(view, new GangRef("ml", "real", GangRef.Convention.VOLCANO));
        reader.announceNoPodGroup(view, new GangRef("ml", "made-up-0", GangRef.Convention.VOLCANO));
        reader.announceNoPodGroup(view, new GangRef("ml", "made-up-1", GangRef.Convention.VOLCANO));
        assertThat(lines).hasSize(3).last().isEqualTo(noGroup("made-up-1"));
    }
}
