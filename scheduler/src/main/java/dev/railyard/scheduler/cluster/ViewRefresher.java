package dev.railyard.scheduler.cluster;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Makes the next cluster view on a thread of its own soon after informer events arrive, so that the scheduler's
 * first call after a change reads a view already made instead of making it (docs/adr/0024). kube-scheduler's cache
 * applies each event to its {@code NodeInfo} as it arrives for the same reason.
 *
 * <p>Events are coalesced: the first {@link #changed()} after a refresh started schedules one refresh {@code delay}
 * later, and refreshes start at least {@code minInterval} apart. A burst of events therefore costs one view, and a
 * steady stream at most one view per interval. A refresh does the work the first call would otherwise do
 * (O(records changed), plus the pool ledger's evaluation after an address change); the price is a view nobody reads
 * when no call comes before the next change.
 *
 * <p>Thread-safe; {@link #changed()} is cheap enough for informer threads (one compare-and-set). A refresh that
 * throws (an exception or an error) is counted ({@code railyard_view_refresh_failures_total}) and logged once per
 * distinct message; the next call then makes the view itself, as without this class, and the next event schedules
 * a refresh again.
 */
public final class ViewRefresher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ViewRefresher.class);

    /** Default wait after the first event of a burst: long enough to take in the rest of the burst. */
    public static final Duration DEFAULT_DELAY = Duration.ofMillis(20);
    /** Default least time between two refreshes' starts. */
    public static final Duration DEFAULT_MIN_INTERVAL = Duration.ofMillis(100);

    private final Runnable refresh;
    private final long delayNanos;
    private final long minIntervalNanos;
    private final ScheduledExecutorService executor;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Timer timer;
    private final Counter failures;
    private volatile long lastStart = Long.MIN_VALUE;
    private volatile String lastFailure;
    private volatile boolean closed;

    /**
     * @param refresh     makes the view (for example: when the cache has synced, take a snapshot); run on this class's
     *                    thread only
     * @param delay       wait after the first event of a burst, at least 0
     * @param minInterval least time between two refreshes' starts, at least 0
     * @param registry    where {@code railyard_view_refresh_seconds} and the failure counter go
     * @throws IllegalArgumentException when a duration is negative
     */
    public ViewRefresher(Runnable refresh, Duration delay, Duration minInterval, MeterRegistry registry) {
        this(refresh, delay, minInterval, registry, Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "railyard-view-refresh");
            t.setDaemon(true);
            return t;
        }));
    }

    /** As the public constructor, on {@code executor} (tests: one that fails). */
    ViewRefresher(Runnable refresh, Duration delay, Duration minInterval, MeterRegistry registry,
                  ScheduledExecutorService executor) {
        this.refresh = Objects.requireNonNull(refresh, "refresh");
        this.executor = Objects.requireNonNull(executor, "executor");
        if (delay.isNegative() || minInterval.isNegative()) {
            throw new IllegalArgumentException("view refresh delay and interval must not be negative: " + delay
                    + ", " + minInterval);
        }
        this.delayNanos = delay.toNanos();
        this.minIntervalNanos = minInterval.toNanos();
        this.timer = Timer.builder("railyard_view_refresh_seconds")
                .description("background view refreshes after informer events (attempts, failed ones and ones "
                        + "before the cache synced included), and their time")
                .register(registry);
        this.failures = Counter.builder("railyard_view_refresh_failures_total")
                .description("background view refreshes that failed (the next call then makes the view)")
                .register(registry);
    }

    /** Informer events arrived: schedules a refresh unless one is scheduled and has not started yet. */
    public void changed() {
        if (closed || !scheduled.compareAndSet(false, true)) {
            return;
        }
        long now = System.nanoTime();
        long start = lastStart;
        long wait = start == Long.MIN_VALUE ? delayNanos : Math.max(delayNanos, start + minIntervalNanos - now);
        try {
            executor.schedule(this::run, wait, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            scheduled.set(false); // closed meanwhile
        } catch (RuntimeException | Error e) {
            // e.g. no native thread for the executor's first task: the next event tries again
            scheduled.set(false);
            throw e;
        }
    }

    private void run() {
        // lastStart first, so a changed() that sees scheduled false also sees this start (the interval). scheduled
        // is cleared before the view is made: an event from now on is either in this view (its change was queued
        // before its handler called changed(), so before the drain) or schedules the next refresh
        lastStart = System.nanoTime();
        scheduled.set(false);
        try {
            timer.record(refresh);
            lastFailure = null;
        } catch (RuntimeException | Error e) {
            failures.increment();
            String msg = e.getClass().getSimpleName() + ": " + e.getMessage();
            if (!msg.equals(lastFailure)) {
                LOG.warn("background view refresh failed ({}); the next scheduler call makes the view", msg);
                lastFailure = msg;
            }
            if (e instanceof Error error) {
                throw error;
            }
        }
    }

    /**
     * Stops the thread: a scheduled refresh is cancelled, one under way runs to its end (a snapshot does not heed
     * interrupts; it touches only memory), and later events schedule nothing.
     */
    @Override
    public void close() {
        closed = true;
        executor.shutdownNow();
    }
}
