package dev.railyard.scheduler.input;

import org.slf4j.event.Level;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link RateLimitedLog} with a 10 s window on a clock the test moves by hand (starting below zero, as
 * {@link System#nanoTime} may), recording the lines it writes. Shared by the log's own tests and the server's.
 */
public abstract class RecordedLogLines {
    /** One second of the clock, in nanoseconds. */
    protected static final long SECOND = 1_000_000_000L;

    /** A written line: its level, text and the throwable whose stack trace follows it, or null. */
    public record Line(Level level, String text, Throwable thrown) {
    }

    protected final AtomicLong clock = new AtomicLong(-3 * SECOND);
    protected final List<Line> lines = Collections.synchronizedList(new ArrayList<>());
    protected final RateLimitedLog log = new RateLimitedLog(Duration.ofSeconds(10), clock::get,
            (level, line, thrown) -> lines.add(new Line(level, line, thrown)));

    /** @return the texts of the lines written so far, in order */
    protected List<String> texts() {
        return lines.stream().map(Line::text).toList();
    }
}
