package dev.railyard.scheduler.cluster;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Asks the API server {@code GET /readyz} every {@code period}, with a timeout of one period, and remembers since when
 * it has not answered: an API server that accepts connections and answers nothing (paused, overloaded, half the
 * network gone) leaves every informer's watch open and silent, so only asking shows it (a stopped one also breaks
 * the watches, which {@link ClusterCache#longestOutage()} sees). {@code /readyz} is readable by any client
 * (kube-apiserver's {@code system:public-info-viewer} role). Exported as {@code railyard_api_server_unanswered_seconds}.
 * Thread-safe; {@link #close()} stops it.
 */
public final class ApiServerPing implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ApiServerPing.class);

    private final KubernetesClient client;
    private final Clock clock;
    private final Duration period;
    private final AtomicReference<Instant> unansweredSince = new AtomicReference<>();
    private final java.util.concurrent.ExecutorService calls = Executors.newVirtualThreadPerTaskExecutor();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "railyard-api-ping");
        t.setDaemon(true);
        return t;
    });

    /**
     * @param client a client whose requests time out within about {@code period} and are not retried
     * @param period how often to ask, positive
     */
    public ApiServerPing(KubernetesClient client, Clock clock, Duration period, MeterRegistry registry) {
        this.client = client;
        this.clock = clock;
        this.period = period;
        Gauge.builder("railyard_api_server_unanswered_seconds", () -> unanswered().map(d -> d.toMillis() / 1000.0)
                        .orElse(0.0))
                .description("seconds the API server has not answered GET /readyz (0 while it answers)")
                .register(registry);
    }

    /** Starts asking. */
    public ApiServerPing start() {
        timer.scheduleWithFixedDelay(this::ask, 0, period.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    private void ask() {
        boolean answered;
        try {
            CompletableFuture.supplyAsync(() -> client.raw("/readyz"), calls).get(period.toMillis(),
                    TimeUnit.MILLISECONDS);
            answered = true;
        } catch (Exception e) {
            answered = false;
        }
        if (answered) {
            if (unansweredSince.getAndSet(null) != null) {
                LOG.info("the API server answers again");
            }
        } else if (unansweredSince.compareAndSet(null, clock.instant())) {
            LOG.warn("the API server did not answer GET /readyz within {} ms", period.toMillis());
        }
    }

    /** @return how long the API server has not answered, or empty while it answers */
    public Optional<Duration> unanswered() {
        Instant since = unansweredSince.get();
        return since == null ? Optional.empty() : Optional.of(Duration.between(since, clock.instant()));
    }

    /**
     * @return empty while the API server has answered within {@code bound}; else one line saying for how long not
     */
    public Optional<String> staleness(Duration bound) {
        return unanswered().filter(d -> d.compareTo(bound) > 0).map(d -> "the API server has not answered for "
                + d.toSeconds() + " s (longer than " + bound.toMillis() / 1000.0 + " s): the cluster state may be stale");
    }

    @Override
    public void close() {
        timer.shutdownNow();
        calls.shutdownNow();
    }
}
