package dev.railyard.scheduler.service;

import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.engine.Status;
import dev.railyard.scheduler.engine.Verdicts;
import dev.railyard.scheduler.protocol.PodRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

/**
 * One {@code RailyardUnschedulable} Event per pod per scheduling attempt, with the true counts: the Filter verdicts a
 * pod gets are collected over the attempt and said once, kube-scheduler style ({@code 0/6 nodes available: 6 too few
 * GPUs pair at ≤ PXB}), when the attempt is over and the pod is still waiting.
 *
 * <p>Volcano asks predicate one node per call, from up to 16 goroutines, and asks the next session's again about a
 * second later; kube-scheduler asks filter once per attempt with every node. Neither tells Railyard that an attempt
 * ended (Volcano's {@code onSessionClose} verb is left unconfigured on purpose, kube-scheduler has none), so an
 * attempt is the run of calls about one pod with gaps shorter than {@code quiet} (500 ms by default: half Volcano's
 * default 1 s schedule period, far more than the milliseconds between one session's calls about one task), cut at
 * {@code longest} so a pod asked about without pause still gets its Event
 * (docs/adr/0013-one-event-per-scheduling-attempt.md).
 *
 * <p>When the attempt ends ({@link #flushDue}) the Event is written only when no node passed, the pod was not
 * allocated in the session ({@link #placed}, Volcano's allocateFunc) and the cluster still shows it waiting (known,
 * unbound); so a pod that binds in that attempt never gets one. The verdict each node got
 * last counts; a node asked about twice counts once. At most {@code maxOpen} attempts are held; pods beyond that get
 * no Event (logged once). Thread-safe.
 */
public final class SchedulingAttempts implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulingAttempts.class);
    /** Default gap that ends an attempt. */
    public static final Duration QUIET = Duration.ofMillis(500);
    /** Default longest attempt. */
    public static final Duration LONGEST = Duration.ofSeconds(10);
    /** Default number of attempts held at once. */
    public static final int MAX_OPEN = 20_000;

    /** One pod's attempt; guarded by the map's lock for its key. */
    private static final class Attempt {
        final PodRef pod;
        final long firstNanos;
        long lastNanos;
        boolean anyPassed;
        boolean placed;
        /** node → last verdict; emptied once a node passed (no Event then). */
        final Map<String, NodeVerdict> byNode = new LinkedHashMap<>();

        Attempt(PodRef pod, long now) {
            this.pod = pod;
            this.firstNanos = now;
            this.lastNanos = now;
        }
    }

    private final EventSink sink;
    private final Clock clock;
    private final long quietNanos;
    private final long longestNanos;
    private final int maxOpen;
    private final ConcurrentHashMap<String, Attempt> open = new ConcurrentHashMap<>();
    private final AtomicBoolean announcedFull = new AtomicBoolean();
    private volatile ScheduledExecutorService timer;

    /**
     * @param sink    where Events go
     * @param clock   time source (a fake one in tests)
     * @param quiet   a gap this long between calls about a pod ends its attempt; positive
     * @param longest an attempt ends at this age however often the pod is asked about; at least {@code quiet}
     * @param maxOpen attempts held at most; positive
     * @throws IllegalArgumentException for a non-positive {@code quiet} or {@code maxOpen}, or {@code longest < quiet}
     */
    public SchedulingAttempts(EventSink sink, Clock clock, Duration quiet, Duration longest, int maxOpen) {
        if (quiet.isZero() || quiet.isNegative() || longest.compareTo(quiet) < 0 || maxOpen <= 0) {
            throw new IllegalArgumentException("attempts need quiet > 0, longest >= quiet and maxOpen > 0; got "
                    + quiet + ", " + longest + ", " + maxOpen);
        }
        this.sink = sink;
        this.clock = clock;
        this.quietNanos = quiet.toNanos();
        this.longestNanos = longest.toNanos();
        this.maxOpen = maxOpen;
    }

    private long now() {
        java.time.Instant i = clock.instant();
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    private static String key(PodRef pod) {
        return pod.namespace() + "/" + pod.name();
    }

    /**
     * Adds one Filter call's verdicts to the pod's attempt (opening one when none is open).
     *
     * @param pod      the pod asked about
     * @param verdicts the verdicts answered, one per node
     */
    public void filtered(PodRef pod, List<NodeVerdict> verdicts) {
        if (verdicts.isEmpty()) {
            return;
        }
        String key = key(pod);
        if (!open.containsKey(key) && open.size() >= maxOpen) {
            if (announcedFull.compareAndSet(false, true)) {
                LOG.warn("{} scheduling attempts open at once: pods beyond that get no RailyardUnschedulable Event",
                        maxOpen);
            }
            return;
        }
        long now = now();
        open.compute(key, (k, a) -> {
            Attempt at = a == null ? new Attempt(pod, now) : a;
            at.lastNanos = now;
            if (at.anyPassed) {
                return at;
            }
            for (NodeVerdict v : verdicts) {
                if (v.feasible()) {
                    at.anyPassed = true;
                    at.byNode.clear();
                    return at;
                }
                at.byNode.put(v.node(), v);
            }
            return at;
        });
    }

    /** The pod was allocated to a node in this attempt (Volcano allocateFunc): its attempt ends without an Event. */
    public void placed(String podKey) {
        open.computeIfPresent(podKey, (k, a) -> {
            a.placed = true;
            return a;
        });
    }

    /** The allocation was undone (Volcano deallocateFunc). */
    public void unplaced(String podKey) {
        open.computeIfPresent(podKey, (k, a) -> {
            a.placed = false;
            return a;
        });
    }

    /** @return attempts open now */
    public int openAttempts() {
        return open.size();
    }

    /**
     * Ends every attempt that has been quiet for {@code quiet} or has lasted {@code longest}, writing its Event when
     * no node passed, the pod was not placed and it still waits.
     *
     * @param waiting whether the pod ({@code namespace/name}) still waits for a node: known to the cluster state and
     *                unbound; false suppresses the Event
     * @return the Events written
     */
    public int flushDue(Predicate<String> waiting) {
        long now = now();
        List<Attempt> ended = new ArrayList<>();
        for (String key : open.keySet()) {
            open.computeIfPresent(key, (k, a) -> {
                if (now - a.lastNanos >= quietNanos || now - a.firstNanos >= longestNanos) {
                    ended.add(a);
                    return null;
                }
                return a;
            });
        }
        int written = 0;
        for (Attempt a : ended) {
            if (a.anyPassed || a.placed || a.byNode.isEmpty() || !waiting.test(key(a.pod))) {
                continue;
            }
            sink.podUnschedulable(a.pod.namespace(), a.pod.name(), a.pod.uid(), message(a.byNode.values()));
            written++;
        }
        return written;
    }

    /**
     * @return {@link Verdicts#summarize} of the attempt's verdicts, and how many refusals preemption cannot fix
     *         ({@code 0/6 nodes available: 4 pool p exhausted, 2 no resource nvidia.com/mlx5_3; preemption cannot
     *         help on 2})
     */
    static String message(java.util.Collection<NodeVerdict> verdicts) {
        List<NodeVerdict> all = List.copyOf(verdicts);
        long unresolvable = all.stream().filter(v -> v.code() == Status.Code.UNSCHEDULABLE_AND_UNRESOLVABLE).count();
        String summary = Verdicts.summarize(all);
        return unresolvable == 0 ? summary : summary + "; preemption cannot help on " + unresolvable;
    }

    /** Starts ending attempts every {@code tick} on a daemon thread ({@link #flushDue}); idempotent. */
    public synchronized void start(Duration tick, Predicate<String> waiting) {
        if (timer != null) {
            return;
        }
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "railyard-attempts");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(() -> {
            try {
                flushDue(waiting);
            } catch (RuntimeException e) {
                LOG.warn("ending scheduling attempts failed: {}", e.toString());
            }
        }, tick.toMillis(), tick.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void close() {
        if (timer != null) {
            timer.shutdownNow();
            timer = null;
        }
    }
}
