package dev.railyard.scheduler.hints;

import dev.railyard.scheduler.protocol.PodRef;
import dev.railyard.scheduler.protocol.RecordingDecisions;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

class HintSourceTest {
    private static final PodRef POD = new PodRef("prod", "w-0", "u");

    @Test
    void thePortsEmptyAnswerMeansNothingToAddAndAMapIsTheHint() {
        RecordingDecisions port = new RecordingDecisions();
        assertThat(HintSource.of(port).hintsFor(POD, "gpu-a1")).isInstanceOf(HintLookup.NotApplicable.class);
        port.hints = Map.of("railyard.dev/rails", "0");
        assertThat(HintSource.of(port).hintsFor(POD, "gpu-a1"))
                .isEqualTo(new HintLookup.Hints(Map.of("railyard.dev/rails", "0")));
        assertThat(port.events).containsExactly("hints prod/w-0 gpu-a1", "hints prod/w-0 gpu-a1");
    }

    @Test
    void anUnsyncedCacheIsNotReadySoTheBindIsBackfilled() {
        RecordingDecisions port = new RecordingDecisions();
        port.hints = Map.of("railyard.dev/rails", "0");
        AtomicBoolean synced = new AtomicBoolean(false);
        HintSource s = HintSource.of(port, synced::get);
        assertThat(s.hintsFor(POD, "gpu-a1"))
                .isEqualTo(new HintLookup.NotReady("the cluster cache has not synced yet"));
        assertThat(port.events).isEmpty(); // the port is not asked while cold
        synced.set(true);
        assertThat(s.hintsFor(POD, "gpu-a1")).isInstanceOf(HintLookup.Hints.class);
    }
}
