package dev.railyard.scheduler.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;

/**
 * The server's own meters:
 * <ul>
 *   <li>{@code railyard_extender_request_seconds{protocol,verb,status}}: latency histogram per verb and HTTP
 *       status, from the request reaching its handler to the reply written, with buckets from 0.25 ms to 5 s;</li>
 *   <li>{@code railyard_extender_errors_total{protocol,verb,kind}}: requests that got no normal answer, by kind
 *       ({@code malformed_json}, {@code wrong_type}, {@code missing_field}, {@code empty_body}, {@code too_deep},
 *       {@code too_long}, {@code duplicate_key}, {@code out_of_range}, {@code invalid_name}, {@code too_large},
 *       {@code bad_method}, {@code not_found}, {@code truncated_body}, {@code unauthenticated} (401 before the
 *       body), {@code forbidden}, {@code busy} (429: the request-body budget was full), {@code client_gone},
 *       {@code slow_reader} (a reply not taken by the client within the request-read timeout: connection closed),
 *       {@code malformed_request} (framing the decoder refuses), {@code unsupported_version} (505: an HTTP version
 *       other than 1.x), {@code internal});</li>
 *   <li>{@code railyard_extender_request_body_in_flight_bytes} and {@code railyard_extender_request_body_budget_bytes}:
 *       request-body bytes and unwritten reply bytes held now, and the budget they may fill ({@link RequestBodyBudget});</li>
 *   <li>{@code railyard_extender_unauthenticated_body_in_flight_bytes{protocol,verb}} and
 *       {@code railyard_extender_unauthenticated_body_budget_bytes{protocol,verb}}: the same for each route whose
 *       caller is not authenticated before the body, which has a small budget of its own.</li>
 * </ul>
 * Thread-safe; meters are created on first use and cached.
 */
public final class ServerMetrics {
    static final String REQUESTS = "railyard.extender.request";
    static final String ERRORS = "railyard.extender.errors";
    private static final Duration[] BUCKETS = {
            Duration.ofNanos(250_000), Duration.ofNanos(500_000), Duration.ofMillis(1), Duration.ofMillis(2),
            Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
            Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
            Duration.ofMillis(2500), Duration.ofSeconds(5)};

    private final MeterRegistry registry;
    private final ConcurrentMap<String, Timer> timers = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Counter> errors = new ConcurrentHashMap<>();

    public ServerMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Registers the gauges of the request-body budget (once per registry; later calls keep the first). */
    void bodyBudget(RequestBodyBudget budget) {
        if (registry.find("railyard.extender.request.body.budget").gauge() != null) {
            return;
        }
        Gauge.builder("railyard.extender.request.body.in.flight", budget, RequestBodyBudget::bytesInFlight)
                .description("Request-body and unwritten reply bytes held in memory now").baseUnit("bytes").register(registry);
        Gauge.builder("railyard.extender.request.body.budget", budget, RequestBodyBudget::bytes)
                .description("Request-body bytes that may be held at once").baseUnit("bytes").register(registry);
    }

    /**
     * Registers the gauges of a route's own budget (a route whose caller is not authenticated before the body):
     * {@code railyard_extender_unauthenticated_body_in_flight_bytes{protocol,verb}} and
     * {@code railyard_extender_unauthenticated_body_budget_bytes{protocol,verb}} (once per registry and route).
     */
    void routeBudget(String protocol, String verb, RequestBodyBudget budget) {
        if (registry.find("railyard.extender.unauthenticated.body.budget").tag("protocol", protocol).tag("verb", verb)
                .gauge() != null) {
            return;
        }
        Gauge.builder("railyard.extender.unauthenticated.body.in.flight", budget, RequestBodyBudget::bytesInFlight)
                .description("Request-body and unwritten reply bytes held now by a route whose caller is not "
                        + "authenticated before the body").tag("protocol", protocol).tag("verb", verb)
                .baseUnit("bytes").register(registry);
        Gauge.builder("railyard.extender.unauthenticated.body.budget", budget, RequestBodyBudget::bytes)
                .description("Request-body bytes such a route may hold at once").tag("protocol", protocol)
                .tag("verb", verb).baseUnit("bytes").register(registry);
    }

    /** Records one request's latency. */
    void request(String protocol, String verb, int status, long nanos) {
        timers.computeIfAbsent(protocol + '\0' + verb + '\0' + status, k -> Timer.builder(REQUESTS)
                .description("Extender request latency, handler start to reply written")
                .tag("protocol", protocol).tag("verb", verb).tag("status", Integer.toString(status))
                .serviceLevelObjectives(BUCKETS)
                .register(registry)).record(nanos, TimeUnit.NANOSECONDS);
    }

    /** Counts one request that got no normal answer. */
    void error(String protocol, String verb, String kind) {
        errors.computeIfAbsent(protocol + '\0' + verb + '\0' + kind, k -> Counter.builder(ERRORS)
                .description("Extender requests answered with an error, by kind")
                .tag("protocol", protocol).tag("verb", verb).tag("kind", kind)
                .register(registry)).increment();
    }
}
