package dev.railyard.scheduler.hints.delivery;

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

    @Test
    void theBindVerbWaitsForThePodToReachTheCacheSoTheBindingCarriesTheHints() {
        RecordingDecisions port = new RecordingDecisions();
        port.hints = Map.of("railyard.dev/rails", "0");
        java.util.concurrent.atomic.AtomicInteger looks = new java.util.concurrent.atomic.AtomicInteger();
        // the informer delivers the pod on the third look (40 ms after the first)
        HintSource s = HintSource.awaitingPod(HintSource.of(port), ref -> looks.incrementAndGet() >= 3,
                java.time.Duration.ofSeconds(1));

        assertThat(s.hintsFor(POD, "gpu-a1")).isInstanceOf(HintLookup.Hints.class);
        assertThat(looks).hasValue(3);
        assertThat(port.events).containsExactly("hints prod/w-0 gpu-a1");
    }

    @Test
    void aPodTheCacheNeverSeesIsNotReadyAfterTheWaitSoItIsBackfilled() {
        RecordingDecisions port = new RecordingDecisions();
        port.hints = Map.of("railyard.dev/rails", "0");
        java.util.concurrent.atomic.AtomicInteger looks = new java.util.concurrent.atomic.AtomicInteger();
        HintSource s = HintSource.awaitingPod(HintSource.of(port), ref -> {
            looks.incrementAndGet();
            return false;
        }, java.time.Duration.ofMillis(100));

        assertThat(s.hintsFor(POD, "gpu-a1")).isEqualTo(new HintLookup.NotReady(
                "Railyard's cache had not seen the pod 100 ms after the bind request"));
        // 100 ms / 20 ms per look + the first look
        assertThat(looks).hasValue(6);
        assertThat(port.events).isEmpty();
    }
}
