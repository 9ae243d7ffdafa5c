package dev.railyard.scheduler.input;

import org.slf4j.Logger;
import org.slf4j.event.Level;
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
 * Log lines a caller can cause once per request (a malformed body, a refused caller, a 429, a refused bind, a gang
 * it made up), written at most once per key per window: the first of a key's lines opens a window and is written;
 * the others within the window are only counted, and the next line written for the key says how many
 * ({@code "... (and 1,234 more like it in the 10 s after the previous one)"}). A flood of requests thus costs a
 * handful of log lines, not one per request (docs/adr/0019-rate-limited-request-warnings.md). The requests' answers,
 * counters and Events are not affected. Where the sink's debug level is on, each line held back is written at debug:
 * whoever turns debug on asked for a line per event.
 *
 * <p>A key's window is one {@link AtomicLong} (its start) and its suppressed count another. A line inside the
 * window only counts (no lock); the threads that see the window expire take the key's lock, and the first of them
 * takes the count and then moves the start, so the others, and every later line, count for the next line. A line
 * that reads the start just before the window ends and counts just after may be reported one line late; no line
 * goes uncounted. Keys must come from a bounded set (kind, verb, route, a reason label; never the caller's text):
 * each key keeps its window for the life of the instance. Thread-safe.
 */
public final class RateLimitedLog {
    /** The window of the extender's rate-limited lines. */
    public static final Duration WINDOW = Duration.ofSeconds(10);

    /** Where lines go: the formatted message and the throwable whose stack trace follows it, or null. */
    @FunctionalInterface
    public interface Sink {
        /** A line written (the first of its window) at {@code level}, {@link Level#INFO} or {@link Level#WARN}. */
        void write(Level level, String line, Throwable thrown);

        /** @return whether {@link #debug} writes anything (checked before a held-back line is formatted) */
        default boolean debugEnabled() {
            return false;
        }

        /** A line held back from {@link #write}, when {@link #debugEnabled}. */
        default void debug(String line, Throwable thrown) {
        }
    }

    private static final class Window {
        /** The clock's reading when the window's line was written. */
        final AtomicLong start;
        /** Lines not written since that line. */
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
     * @param window    how long after a written line the same key's lines are only counted (positive)
     * @param nanoClock a monotonic clock in nanoseconds ({@link System#nanoTime} but in tests)
     * @param sink      where the lines go
     */
    public RateLimitedLog(Duration window, LongSupplier nanoClock, Sink sink) {
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("window must be positive, got " + window);
        }
        this.windowNanos = window.toNanos();
        this.windowText = window.toMillis() % 1000 == 0 ? window.toSeconds() + " s" : window.toMillis() + " ms";
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        this.sink = Objects.requireNonNull(sink, "sink");
    }

    /** Lines to {@code log}, {@link #WINDOW} apart per key, on {@link System#nanoTime}. */
    public static RateLimitedLog of(Logger log) {
        return new RateLimitedLog(WINDOW, System::nanoTime, new Sink() {
            @Override
            public void write(Level level, String line, Throwable thrown) {
                if (level == Level.INFO) {
                    log.info(line, thrown);
                } else {
                    log.warn(line, thrown);
                }
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
     * Writes the line at WARN unless {@code key} had a line within the window, in which case it is only counted
     * (and written at debug, when the sink's debug is on).
     *
     * @param key    what kind of line this is (compared with {@code equals}; from a bounded set)
     * @param format an SLF4J message pattern ({@code {}} for each argument)
     * @param args   its arguments; a last {@link Throwable} beyond the pattern's {@code {}} has its stack trace
     *               written, as SLF4J does
     * @return whether the line was written (not held back)
     */
    public boolean warn(Object key, String format, Object... args) {
        return write(Level.WARN, key, format, args);
    }

    /** As {@link #warn}, at INFO. */
    public boolean info(Object key, String format, Object... args) {
        return write(Level.INFO, key, format, args);
    }

    private boolean write(Level level, Object key, String format, Object[] args) {
        long now = nanoClock.getAsLong();
        Window w = windows.get(key);
        if (w == null) {
            // a new key's window "started" one window ago, so its first line is written
            w = windows.computeIfAbsent(key, k -> new Window(now - windowNanos));
        }
        long quiet = -1;
        if (now - w.start.get() >= windowNanos) {
            synchronized (w) {
                // the count is taken before the new start is published: a line that sees the new window counts for
                // the next line, never for this one
                if (now - w.start.get() >= windowNanos) {
                    quiet = w.suppressed.getAndSet(0);
                    w.start.set(now);
                }
            }
        }
        if (quiet >= 0) {
            return written(level, quiet, format, args);
        }
        w.suppressed.incrementAndGet();
        if (sink.debugEnabled()) {
            FormattingTuple line = MessageFormatter.arrayFormat(format, args);
            sink.debug(line.getMessage(), line.getThrowable());
        }
        return false;
    }

    private boolean written(Level level, long quiet, String format, Object[] args) {
        FormattingTuple line = MessageFormatter.arrayFormat(format, args);
        sink.write(level, quiet == 0 ? line.getMessage() : line.getMessage() + String.format(Locale.ROOT,
                " (and %,d more like it in the %s after the previous one)", quiet, windowText),
                line.getThrowable());
        return true;
    }
}
