package dev.railyard.agent;

import io.github.resilience4j.core.IntervalFunction;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The node agent's loop: every refresh period it observes the node ({@link NodeObserver}), builds the desired
 * {@code NodeTopology} ({@link NodeTopologyAssembler}), asks the {@link PublishGate} whether to write, and writes
 * through the {@link NodeTopologySink}.
 *
 * <p>Restarts: before its first write the agent reads what the sink holds for its node
 * ({@link NodeTopologySink#stored}, one {@code get}). When that is a status with an {@code observedTime}, the gate and
 * the conditions resume from it: a restarted agent that finds the node as its predecessor left it writes nothing
 * until something changes or the resync period since that {@code observedTime} has passed, and unchanged conditions
 * keep their {@code lastTransitionTime}. The read is retried on each refresh until it succeeds or a write has
 * succeeded; a failed read (API server down, no {@code get} permission) costs only one rewrite of an unchanged
 * object.
 *
 * <p>Failure behaviour: nothing stops the loop. An unreadable sysfs, an absent kubelet socket or a refused write
 * makes the next refresh come after a backoff instead of the period: exponential from
 * {@code min(1 s, refresh period)}, doubling, with 25 % jitter, capped at {@link AgentSettings#maxBackoff()}
 * (Resilience4j {@link IntervalFunction#ofExponentialRandomBackoff}); the first clean refresh returns to the period.
 * Failed sources mark the published status stale rather than publishing a guess (see {@link NodeTopologyAssembler}).
 *
 * <p>Metrics (Micrometer): {@code railyard.agent.refresh} (timer), {@code railyard.agent.refresh.problems}
 * (counter by {@code source}: sysfs, podresources, publish), {@code railyard.agent.publish} (counter by
 * {@code decision}), {@code railyard.agent.stale} (gauge, 1 when the last refresh failed somewhere),
 * {@code railyard.agent.consecutive.failures} (gauge).
 *
 * <p>{@link #refreshOnce()} runs one refresh on the caller's thread (tests, benchmarks); {@link #start()} runs the
 * loop on one daemon thread. Refreshes never overlap.
 */
public final class NodeAgent implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NodeAgent.class);

    private final AgentSettings settings;
    private final NodeObserver observer;
    private final NodeTopologyAssembler assembler;
    private final PublishGate gate;
    private final NodeTopologySink sink;
    private final MeterRegistry registry;
    private final Clock clock;
    private final IntervalFunction backoff;
    private final Timer refreshTimer;
    private final Object lock = new Object();

    private ScheduledExecutorService loop;
    private volatile int consecutiveFailures;
    private volatile boolean stale = true;
    private volatile Instant lastRefresh;
    private volatile Instant lastPublish;
    private volatile String lastProblem;
    /** Whether the stored object has been read back, or a write has made reading it pointless. */
    private boolean resumed;
    private int failedReads;

    /**
     * @param settings  agent settings (periods, backoff)
     * @param observer  reads the node
     * @param assembler builds the object to publish
     * @param sink      writes it
     * @param registry  metrics
     * @param clock     time source, shared with the gate
     */
    public NodeAgent(AgentSettings settings, NodeObserver observer, NodeTopologyAssembler assembler,
                     NodeTopologySink sink, MeterRegistry registry, Clock clock) {
        this.settings = Objects.requireNonNull(settings);
        this.observer = Objects.requireNonNull(observer);
        this.assembler = Objects.requireNonNull(assembler);
        this.sink = Objects.requireNonNull(sink);
        this.registry = Objects.requireNonNull(registry);
        this.clock = Objects.requireNonNull(clock);
        this.gate = new PublishGate(settings.publishInterval(), settings.resyncPeriod(), clock);
        Duration initial = settings.refreshPeriod().compareTo(Duration.ofSeconds(1)) < 0
                ? settings.refreshPeriod() : Duration.ofSeconds(1);
        this.backoff = IntervalFunction.ofExponentialRandomBackoff(initial, 2.0, 0.25, settings.maxBackoff());
        this.refreshTimer = Timer.builder("railyard.agent.refresh")
                .description("one refresh: sysfs, kubelet, assemble, publish decision and write")
                .register(registry);
        Gauge.builder("railyard.agent.stale", this, a -> a.stale ? 1 : 0)
                .description("1 when the last refresh could not read every source or write the object")
                .register(registry);
        Gauge.builder("railyard.agent.consecutive.failures", this, a -> a.consecutiveFailures)
                .description("refreshes in a row that failed somewhere")
                .register(registry);
    }

    /**
     * Runs one refresh now on the calling thread.
     *
     * @return what it did; never throws for a failed source or write
     */
    public RefreshOutcome refreshOnce() {
        synchronized (lock) {
            return refreshTimer.record(this::refresh);
        }
    }

    private RefreshOutcome refresh() {
        if (!resumed) {
            resume();
        }
        NodeObservation obs = observer.observe();
        if (obs.sysfsProblem() != null) {
            problem("sysfs");
        }
        if (obs.podResourcesProblem() != null) {
            problem("podresources");
        }
        DesiredNodeTopology desired = assembler.assemble(obs);
        PublishGate.Decision decision = gate.decide(desired);
        String problem = obs.sysfsProblem() != null ? obs.sysfsProblem() : obs.podResourcesProblem();
        boolean published = false;
        if (decision.publishes()) {
            try {
                sink.publish(desired);
                gate.published(desired);
                resumed = true;
                published = true;
                lastPublish = clock.instant();
                Counter.builder("railyard.agent.publish").description("writes of the NodeTopology by decision")
                        .tag("decision", decision.name()).register(registry).increment();
                if (decision == PublishGate.Decision.HEALTH) {
                    LOG.info("published {} at once: health {}, ports down {}", settings.nodeName(),
                            desired.status().health(), PublishGate.downPorts(desired.status()));
                }
            } catch (RuntimeException e) {
                problem("publish");
                String message = "cannot write NodeTopology " + settings.nodeName() + ": " + oneLine(e);
                LOG.warn("{}", message);
                problem = problem == null ? message : problem + "; " + message;
            }
        }
        RefreshOutcome outcome = new RefreshOutcome(decision, published, obs.complete(), problem, desired);
        consecutiveFailures = outcome.healthy() ? 0 : consecutiveFailures + 1;
        stale = !outcome.healthy();
        lastProblem = problem;
        lastRefresh = clock.instant();
        return outcome;
    }

    private void resume() {
        String node = settings.nodeName();
        try {
            var stored = sink.stored(node);
            resumed = true;
            if (stored.isEmpty() || stored.get().status() == null) {
                return;
            }
            Instant writtenAt = instant(stored.get().status().observedTime());
            if (writtenAt == null) {
                LOG.info("stored NodeTopology {} has no observedTime; writing it on the first refresh", node);
                return;
            }
            assembler.resume(stored.get().status());
            gate.resume(stored.get(), writtenAt);
            LOG.info("resuming from stored NodeTopology {} observed {}: written again only when changed", node,
                    writtenAt);
        } catch (RuntimeException e) {
            // Said once: while the API server is away every refresh tries again, and the failed write says so too.
            if (++failedReads == 1) {
                LOG.warn("cannot read back NodeTopology {} (it will be written whole on the first refresh): {}",
                        node, oneLine(e));
            } else {
                LOG.debug("cannot read back NodeTopology {} (attempt {}): {}", node, failedReads, oneLine(e));
            }
        }
    }

    /**
     * @return fabric8's message ("Operation: [patch] ... failed.") followed by the deepest cause that has a message
     *         (or the causes' class names when none has, as for the JDK HttpClient's
     *         {@code IOException: ConnectException: ClosedChannelException}), on one line
     */
    static String oneLine(Throwable e) {
        String cause = null;
        List<String> types = new ArrayList<>();
        for (Throwable t = e.getCause(); t != null && types.size() < 8; t = t.getCause()) {
            types.add(t.getClass().getSimpleName());
            if (t.getMessage() != null) {
                cause = t.getClass().getSimpleName() + ": " + t.getMessage();
            }
        }
        if (cause == null && !types.isEmpty()) {
            cause = String.join(": ", types);
        }
        String message = String.valueOf(e.getMessage());
        if (cause != null && !message.contains(cause)) {
            message = message + " " + cause;
        }
        return message.replaceAll("\\s+", " ").strip();
    }

    private static Instant instant(String rfc3339) {
        if (rfc3339 == null) {
            return null;
        }
        try {
            return Instant.parse(rfc3339);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private void problem(String source) {
        Counter.builder("railyard.agent.refresh.problems").description("refreshes that failed, by source")
                .tag("source", source).register(registry).increment();
    }

    /** @return how long to wait before the next refresh: the period, or a backoff after failures */
    Duration nextDelay() {
        int failures = consecutiveFailures;
        if (failures == 0) {
            return settings.refreshPeriod();
        }
        return Duration.ofMillis(backoff.apply(failures));
    }

    /** Starts the loop on a daemon thread; the first refresh runs at once. Idempotent. */
    public void start() {
        synchronized (this) {
            if (loop != null) {
                return;
            }
            loop = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "railyard-agent-refresh");
                t.setDaemon(true);
                return t;
            });
            loop.execute(this::tick);
        }
    }

    private void tick() {
        try {
            refreshOnce();
        } catch (RuntimeException e) {
            LOG.error("refresh failed unexpectedly: {}", e.toString(), e);
            consecutiveFailures++;
            stale = true;
            lastProblem = e.toString();
        }
        ScheduledExecutorService l = loop;
        if (l != null && !l.isShutdown()) {
            l.schedule(this::tick, nextDelay().toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * @return liveness and staleness: live while a refresh finished within twice the longest wait
     *         ({@code 2 × (max backoff + refresh period)}), or the agent started less than that ago
     */
    public AgentHealth health() {
        Instant last = lastRefresh;
        Duration limit = settings.maxBackoff().plus(settings.refreshPeriod()).multipliedBy(2);
        boolean live = last == null ? loop != null : Duration.between(last, clock.instant()).compareTo(limit) <= 0;
        return new AgentHealth(live, stale, last, lastPublish, lastProblem);
    }

    /** Stops the loop, waiting up to five seconds for a running refresh. */
    @Override
    public void close() {
        ScheduledExecutorService l;
        synchronized (this) {
            l = loop;
            loop = null;
        }
        if (l != null) {
            l.shutdownNow();
            try {
                l.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
