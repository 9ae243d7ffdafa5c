package dev.railyard.scheduler.input;

import org.junit.jupiter.api.Test;
import org.slf4j.event.EventRecordingLogger;
import org.slf4j.event.Level;
import org.slf4j.event.SubstituteLoggingEvent;
import org.slf4j.helpers.SubstituteLogger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Lines a caller can cause are written at most once per key per window, with the count of the others in the next
 * line, at the level asked for. The clock is injected: it starts below zero, as {@link System#nanoTime} may. How the
 * server's warnings use it: server/RequestWarningsTest.
 */
class RateLimitedLogTest extends RecordedLogLines {
    @Test
    void infoLinesAreWrittenAtInfoAndEachKeyHasItsOwnWindow() {
        assertThat(log.info("refused unknown_pod", "bind of {} refused", "a/p1")).isTrue();
        assertThat(log.info("refused unknown_pod", "bind of {} refused", "a/p2")).isFalse();
        assertThat(log.warn("failed", "bind of {} failed", "a/p3")).isTrue(); // another key: its own window
        assertThat(log.info("refused unknown_pod", "bind of {} refused", "a/p4")).isFalse();
        clock.addAndGet(10 * SECOND);
        assertThat(log.info("refused unknown_pod", "bind of {} refused", "a/p5")).isTrue();
        // p2 and p4 held back: 2 counted in p5's line; p3's key is another one, so not counted there
        assertThat(lines).containsExactly(new Line(Level.INFO, "bind of a/p1 refused", null),
                new Line(Level.WARN, "bind of a/p3 failed", null),
                new Line(Level.INFO, "bind of a/p5 refused (and 2 more like it in the 10 s after the previous one)",
                        null));
    }

    @Test
    void ofWritesToTheLoggerAtTheLevelAskedAndHeldBackLinesAtDebug() {
        // slf4j's recording logger has every level on, debug included
        Queue<SubstituteLoggingEvent> events = new LinkedBlockingQueue<>();
        RateLimitedLog real = RateLimitedLog.of(new EventRecordingLogger(new SubstituteLogger("t", events, false),
                events));
        IllegalStateException bug = new IllegalStateException("bug");
        real.info("a", "refused {}", 1);
        real.info("a", "refused {}", 2); // within 10 s of the first on System.nanoTime: held back, written at debug
        real.warn("b", "failed {}", 3, bug);
        assertThat(events).extracting(SubstituteLoggingEvent::getLevel, SubstituteLoggingEvent::getMessage,
                SubstituteLoggingEvent::getThrowable).containsExactly(
                org.assertj.core.groups.Tuple.tuple(Level.INFO, "refused 1", null),
                org.assertj.core.groups.Tuple.tuple(Level.DEBUG, "refused 2", null),
                org.assertj.core.groups.Tuple.tuple(Level.WARN, "failed 3", bug));
    }

    @Test
    void theWindowEndsExactlyItsLengthAfterTheLineThatOpenedIt() {
        assertThat(log.warn("k", "first")).isTrue();
        clock.addAndGet(10 * SECOND - 1); // 1 ns short of the window: counted
        assertThat(log.warn("k", "second")).isFalse();
        clock.addAndGet(1); // exactly 10 s after "first": a new window
        assertThat(log.warn("k", "third {}", 3)).isTrue();
        assertThat(texts()).containsExactly("first",
                "third 3 (and 1 more like it in the 10 s after the previous one)");
    }

    @Test
    void racingThreadsWriteOneLineAndLoseNoCount() throws Exception {
        // 8 threads x 10,000 warnings at one instant: 1 line, and 80,000 - 1 = 79,999 counted for the next
        int threads = 8;
        int each = 10_000;
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < each; i++) {
                        log.warn("busy", "429");
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : done) {
                f.get();
            }
        }
        clock.addAndGet(10 * SECOND);
        log.warn("busy", "429");
        assertThat(texts()).containsExactly("429",
                "429 (and 79,999 more like it in the 10 s after the previous one)");
    }

    @Test
    void withDebugOnEveryHeldBackWarningIsWrittenAtDebug() {
        List<String> debug = new ArrayList<>();
        RateLimitedLog verbose = new RateLimitedLog(Duration.ofSeconds(10), clock::get, new RateLimitedLog.Sink() {
            @Override
            public void write(Level level, String line, Throwable thrown) {
                lines.add(new Line(level, line, thrown));
            }

            @Override
            public boolean debugEnabled() {
                return true;
            }

            @Override
            public void debug(String line, Throwable thrown) {
                debug.add(line);
            }
        });
        for (int i = 1; i <= 3; i++) {
            verbose.warn("k", "bad request {}", i);
        }
        clock.addAndGet(10 * SECOND);
        verbose.warn("k", "bad request {}", 4);
        // 1 and 4 open windows at WARN; 2 and 3 are held back there, written at debug, and counted in 4's line
        assertThat(texts()).containsExactly("bad request 1",
                "bad request 4 (and 2 more like it in the 10 s after the previous one)");
        assertThat(debug).containsExactly("bad request 2", "bad request 3");
    }

    @Test
    void aWindowMustBePositiveAndIsSaidInMillisecondsWhenNotWholeSeconds() {
        assertThatThrownBy(() -> new RateLimitedLog(Duration.ZERO, clock::get, (v, l, t) -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("window must be positive, got PT0S");
        RateLimitedLog quick = new RateLimitedLog(Duration.ofMillis(250), clock::get,
                (level, line, thrown) -> lines.add(new Line(level, line, thrown)));
        quick.warn("k", "a");
        quick.warn("k", "b");
        clock.addAndGet(250_000_000L);
        quick.warn("k", "c");
        assertThat(texts()).containsExactly("a", "c (and 1 more like it in the 250 ms after the previous one)");
    }
}
