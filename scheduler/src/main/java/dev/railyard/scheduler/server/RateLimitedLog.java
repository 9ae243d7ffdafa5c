package dev.railyard.scheduler.server;

import org.slf4j.Logger;
import org.slf4j.helpers.FormattingTuple;
import org.slf4j.helpers.MessageFormatter;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Warnings a caller can cause once per request (a malformed body, a refused caller, a 429, a handler bug), written
 * at most once per key per window: the first of a key's warnings opens a window and is written; the others within
 * the window are only counted, and the next line written for the key says how many
 * ({@code "... (and 1,234 more like it in the 10 s after the previous one)"}). A flood of bad requests
 * thus costs a handful of log lines, not one per request (docs/adr/0019-rate-limited-request-warnings.md). The
 * requests' answers and error counters are not affected. Where the sink's debug level is on, each warning held
 * back is written at debug: whoever turns debug on asked for a line per event.
 *
 * <p>A key's window is one {@link AtomicLong} (its start) and its suppressed count another. A warning inside the
 * window only counts (no lock); the threads that see the window expire take the key's lock, and the first of them
 * takes the count and then moves the start, so the others, and every later warning, count for the next line. A
 * warning that reads the start just before the window ends and counts just after may be reported one line late; no
 * warning goes uncounted. Keys must come from a bounded set (kind and route, never the caller's text): each key
 * keeps its window for the life of the server.
 */
final class RateLimitedLog {
    /** The window of the server's warnings. */
    static final Duration WINDOW = Duration.ofSeconds(10);

    /** Where lines go: the formatted message and the throwable whose stack trace follows it, or null. */
    @FunctionalInterface
    interface Sink {
        /** A warning written: the first of its window. */
        void warn(String line, Throwable thrown);

        /** @return whether {@link #debug} writes anything (checked before a held-back warning is formatted) */
        default boolean debugEnabled() {
            return false;
        }

        /** A warning held back from {@link #warn}, when {@link #debugEnabled}. */
        default void debug(String line, Throwable thrown) {
        }
    }

    private static final class Window {
        /** The clock's reading when the window's line was written. */
        final AtomicLong start;
        /** Warnings not written since that line. */
        final AtomicLong suppressed = new AtomicLong();

        Window(long start) {
            this.start = new AtomicLong(start);
        }
    }

    private final long windowNanos;
    private final String windowText;
    private final LongSupplier nanoClock;
    private final Sink sink;
    private final ConcurrentMap<Object, Window> windows = new ConcurrentHashMap<>();

    /**
     * @param window    how long after a written line the same key's warnings are only counted (positive)
     * @param nanoClock a monotonic clock in nanoseconds ({@link System#nanoTime} but in tests)
     * @param sink      where the lines go
     */
    RateLimitedLog(Duration window, LongSupplier nanoClock, Sink sink) {
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("window must be positive, got " + window);
        }
        this.windowNanos = window.toNanos();
        this.windowText = window.toMillis() % 1000 == 0 ? window.toSeconds() + " s" : window.toMillis() + " ms";
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        this.sink = Objects.requireNonNull(sink, "sink");
    }

    /** Warnings to {@code log} at WARN, {@link #WINDOW} apart per key, on {@link System#nanoTime}. */
    static RateLimitedLog warnings(Logger log) {
        return new RateLimitedLog(WINDOW, System::nanoTime, new Sink() {
            @Override
            public void warn(String line, Throwable thrown) {
                log.warn(line, thrown);
            }

            @Override
            public boolean debugEnabled() {
                return log.isDebugEnabled();
            }

            @Override
            public void debug(String line, Throwable thrown) {
                log.debug(line, thrown);
            }
        });
    }

    /**
     * Writes the warning unless {@code key} had a line within the window, in which case it is only counted (and
     * written at debug, when the sink's debug is on).
     *
     * @param key    what kind of warning this is (compared with {@code equals}; from a bounded set)
     * @param format an SLF4J message pattern ({@code {}} for each argument)
     * @param args   its arguments; a last {@link Throwable} beyond the pattern's {@code {}} has its stack trace
     *               written, as SLF4J does
     * @return whether the line was written as a warning (not held back)
     */
    boolean warn(Object key, String format, Object... args) {
        long now = nanoClock.getAsLong();
        Window w = windows.get(key);
        if (w == null) {
            // a new key's window "started" one window ago, so its first warning is written
            w = windows.computeIfAbsent(key, k -> new Window(now - windowNanos));
        }
        long quiet = -1;
        if (now - w.start.get() >= windowNanos) {
            synchronized (w) {
                // the count is taken before the new start is published: a warning that sees the new window counts
                // for the next line, never for this one
                if (now - w.start.get() >= windowNanos) {
                    quiet = w.suppressed.getAndSet(0);
                    w.start.set(now);
                }
            }
        }
        if (quiet < 0) {
            w.suppressed.incrementAndGet();
            if (sink.debugEnabled()) {
                FormattingTuple line = MessageFormatter.arrayFormat(format, args);
                sink.debug(line.getMessage(), line.getThrowable());
            }
            return false;
        }
        FormattingTuple line = MessageFormatter.arrayFormat(format, args);
        sink.warn(quiet == 0 ? line.getMessage() : line.getMessage() + String.format(Locale.ROOT,
                " (and %,d more like it in the %s after the previous one)", quiet, windowText),
                line.getThrowable());
        return true;
    }
}
