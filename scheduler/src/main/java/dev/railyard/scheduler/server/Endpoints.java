package dev.railyard.scheduler.server;

import dev.railyard.scheduler.input.LogText;
import dev.railyard.scheduler.input.RateLimitedLog;
import dev.railyard.scheduler.protocol.Caller;
import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.WireFormatException;
import dev.railyard.scheduler.protocol.WireReply;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What the server answers, independent of how bytes move: the route table, the built-in endpoints, who may call
 * a verb and whether its body fits, and the verb's reply. {@link #admitNow} runs on the event loop and never
 * blocks; {@link #awaitShare} and {@link #grow} wait for the {@link RequestBodyBudget}, so {@link HttpConnection}
 * calls them off the event loop; {@link #handle} and {@link #builtIn} run on the loop only where the verb declares
 * {@link VerbHandler.Threading#IO_THREAD} (and its body is small) or {@link #builtInOnLoop} says so. Thread-safe.
 */
final class Endpoints {
    private static final Logger LOG = LoggerFactory.getLogger(ExtenderServer.class);
    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    /**
     * A mounted verb.
     *
     * @param protocol        the metric tag {@code protocol}: the path's first segment, or {@code railyard}
     * @param verb            the metric tag {@code verb}
     * @param budget          where its bodies' shares come from: the listener's (the schedulers') budget, or for a
     *                        verb whose caller is not authenticated before the body
     *                        ({@link VerbHandler.BodyBudget#UNAUTHENTICATED}) a small one of its own
     * @param maxRequestBytes its largest body (413 past it)
     */
    record Route(String protocol, String verb, VerbHandler handler, RequestBodyBudget budget, long maxRequestBytes) {
        boolean ownBudget() {
            return handler.bodyBudget() == VerbHandler.BodyBudget.UNAUTHENTICATED;
        }
    }

    /**
     * The outcome of admitting a verb's request before its body is read.
     *
     * @param refusal the answer that ends the request, or null to read the body
     * @param lease   the request's share of the budget (null when refused or when the verb ignores its body)
     */
    record Admission(Answer refusal, RequestBodyBudget.Lease lease) {
    }

    /**
     * The key of a rate-limited warning ({@link RateLimitedLog}): its kind and the route (null for a built-in
     * endpoint or an unknown path), so a flood of one kind at one verb does not hide another.
     */
    private record Warning(String kind, Route route) {
    }

    private final Map<String, Route> routes;
    private final ReadinessProbe readiness;
    private final PrometheusMeterRegistry registry;
    private final ServerMetrics metrics;
    private final RequestBodyBudget bodyBudget;
    private final RateLimitedLog warnings;

    Endpoints(Map<String, VerbHandler> routes, ServerSettings settings, ReadinessProbe readiness,
              PrometheusMeterRegistry registry) {
        this(routes, settings, readiness, registry, RateLimitedLog.of(LOG));
    }

    /** @param warnings where the warnings a caller can cause go, at most one per kind and route per window */
    Endpoints(Map<String, VerbHandler> routes, ServerSettings settings, ReadinessProbe readiness,
              PrometheusMeterRegistry registry, RateLimitedLog warnings) {
        Map<String, Route> table = new LinkedHashMap<>();
        routes.forEach((path, h) -> {
            String[] parts = path.substring(1).split("/", 2);
            if (!path.startsWith("/") || parts[0].isEmpty() || (parts.length == 2 && parts[1].isEmpty())) {
                throw new IllegalArgumentException("route must look like /<protocol>/<verb> or /<verb>: " + path);
            }
            String protocol = parts.length == 2 ? parts[0] : "railyard";
            String verb = parts.length == 2 ? parts[1] : parts[0];
            table.put(path, h.bodyBudget() == VerbHandler.BodyBudget.UNAUTHENTICATED
                    ? new Route(protocol, verb, h, new RequestBodyBudget(settings.bodyBudget().unauthenticatedRouteBytes(),
                            settings.bodyBudget().maxWait()),
                            Math.min(RequestBodyBudget.UNAUTHENTICATED_MAX_BODY, settings.maxRequestBytes()))
                    : new Route(protocol, verb, h, settings.bodyBudget(), settings.maxRequestBytes()));
        });
        this.routes = Map.copyOf(table);
        this.readiness = readiness; // null: no /healthz, /readyz, /metrics on this listener
        this.registry = registry;
        this.metrics = new ServerMetrics(registry);
        this.bodyBudget = settings.bodyBudget();
        this.warnings = warnings;
        metrics.bodyBudget(bodyBudget);
        this.routes.values().stream().filter(Route::ownBudget)
                .forEach(r -> metrics.routeBudget(r.protocol(), r.verb(), r.budget()));
    }

    int size() {
        return routes.size();
    }

    ServerMetrics metrics() {
        return metrics;
    }

    /**
     * For the start line: each route with a budget of its own, e.g. {@code ; /admission/pods-binding (caller not
     * authenticated before the body): bodies up to 1048576 bytes, 16777216 bytes in flight}, or empty.
     */
    String ownBudgets() {
        StringBuilder out = new StringBuilder();
        routes.forEach((path, r) -> {
            if (r.ownBudget()) {
                out.append("; ").append(path).append(" (caller not authenticated before the body): bodies up to ")
                        .append(r.maxRequestBytes()).append(" bytes, ").append(r.budget().bytes())
                        .append(" bytes in flight");
            }
        });
        return out.toString();
    }

    /** @return the verb mounted at {@code path}, or null */
    Route route(String path) {
        return routes.get(path);
    }

    /**
     * Whether {@link #builtIn} answers {@code path} without blocking, so on the event loop: {@code /healthz} and
     * the 404 of an unknown path are constants; {@code /readyz} asks the {@link ReadinessProbe} (which may build
     * the first cluster view) and {@code /metrics} formats every meter, so both run off the loop.
     */
    boolean builtInOnLoop(String path) {
        return readiness == null || !"/readyz".equals(path) && !"/metrics".equals(path);
    }

    /**
     * {@code /healthz}, {@code /readyz}, {@code /metrics}, or 404 for any other unknown path; 404 for all three too
     * on a listener without them (no {@link ReadinessProbe}: the secure and webhook ports of {@code serve}).
     */
    Answer builtIn(String method, String path) {
        boolean get = "GET".equals(method) || "HEAD".equals(method);
        switch (readiness == null ? "" : path) {
            case "/healthz" -> {
                return get ? Answer.keep(WireReply.text(200, "ok")) : methodNotAllowed(method, path, "GET", "http", path);
            }
            case "/readyz" -> {
                if (!get) {
                    return methodNotAllowed(method, path, "GET", "http", path);
                }
                Optional<String> why = readiness.notReadyReason();
                return Answer.keep(why.map(r -> WireReply.text(503, "not ready: " + Answer.oneLine(r)))
                        .orElseGet(() -> WireReply.text(200, "ready")));
            }
            case "/metrics" -> {
                if (!get) {
                    return methodNotAllowed(method, path, "GET", "http", path);
                }
                return Answer.keep(new WireReply(200, PROMETHEUS_TEXT, registry.scrape().getBytes(StandardCharsets.UTF_8)));
            }
            default -> {
                metrics.error("http", "unknown", "not_found");
                boolean mainOnly = readiness == null && ("/healthz".equals(path) || "/readyz".equals(path)
                        || "/metrics".equals(path));
                return Answer.keep(WireReply.text(404, "no endpoint " + Answer.oneLine(path) + (mainOnly
                        ? " on this port: /healthz, /readyz and /metrics are served on the main port only"
                        : ": Volcano verbs are under /volcano/, kube-scheduler verbs under /kube/")));
            }
        }
    }

    /** 405 with {@code Allow}. */
    Answer methodNotAllowed(String method, String path, String allow, String protocol, String verb) {
        metrics.error(protocol, verb, "bad_method");
        return new Answer(WireReply.text(405, Answer.oneLine(method) + " " + Answer.oneLine(path)
                + ": method not allowed, use " + allow), Map.of("Allow", allow), false);
    }

    /**
     * Decides, before any of the body is read, whether a POST to a verb goes on: the route's
     * {@link VerbHandler#refuse} (401/403), then the declared length against the limit (413), then a share of the
     * request-body budget if one is free at once. Every refusal closes the connection. Quick and non-blocking (it
     * runs on an event loop): {@code refuse} must be, and a share that is not free now is left to
     * {@link #awaitShare}.
     *
     * @param declared the Content-Length, or -1 for a chunked body
     * @return the admission, or null when the request must wait for its share ({@link #awaitShare})
     */
    Admission admitNow(Route route, Caller caller, long declared) {
        String name = route.protocol() + " " + route.verb();
        Optional<WireReply> refused = route.handler().refuse(caller);
        if (refused.isPresent()) {
            metrics.error(route.protocol(), route.verb(), refused.get().status() == 401 ? "unauthenticated" : "forbidden");
            warnings.warn(new Warning("refused", route), "{}: refused {} from {}: {}", name, refused.get().status(),
                    caller.remoteAddress(), Answer.oneLine(refused.get().bodyText().strip()));
            return new Admission(Answer.closing(refused.get()), null);
        }
        if (!route.handler().readsBody()) {
            return new Admission(null, null);
        }
        if (declared > route.maxRequestBytes()) {
            return new Admission(tooLarge(route, declared), null);
        }
        return route.budget().tryAcquireNow(share(declared)).map(l -> new Admission(null, l)).orElse(null);
    }

    /**
     * Waits up to {@link RequestBodyBudget#maxWait()} for a body's share of the budget (429 after that). Blocks:
     * call it off the event loop.
     *
     * @throws InterruptedException when interrupted while waiting
     */
    Admission awaitShare(Route route, long declared) throws InterruptedException {
        Optional<RequestBodyBudget.Lease> lease = route.budget().tryAcquire(share(declared));
        return lease.map(l -> new Admission(null, l)).orElseGet(() -> new Admission(busy(route), null));
    }

    private static long share(long declared) {
        return declared >= 0 ? declared : RequestBodyBudget.CHUNK;
    }

    /**
     * Grows a chunked body's share by {@link RequestBodyBudget#CHUNK}, waiting for the budget. Blocks: call it off
     * the event loop.
     *
     * @return null when grown, else the 429
     * @throws InterruptedException when interrupted while waiting for the budget
     */
    Answer grow(Route route, RequestBodyBudget.Lease lease) throws InterruptedException {
        return lease.grow(RequestBodyBudget.CHUNK) ? null : busy(route);
    }

    /**
     * Charges an unwritten reply to the budget of its route (the listener's for a built-in endpoint, {@code route}
     * null) ({@link RequestBodyBudget#chargeReply}); never blocks.
     */
    RequestBodyBudget.Lease chargeReply(Route route, long replyBytes) {
        return (route != null ? route.budget() : bodyBudget).chargeReply(replyBytes);
    }

    /** 413 for a declared length over the limit ({@code declared} &gt;= 0) or a streamed body past it (-1). */
    Answer tooLarge(Route route, long declared) {
        metrics.error(route.protocol(), route.verb(), "too_large");
        String name = route.protocol() + " " + route.verb();
        String limit = route.maxRequestBytes() + " bytes" + (route.ownBudget()
                ? " (this route's: its callers are not authenticated before the body is read)" : "");
        return Answer.closing(413, declared >= 0
                ? name + ": request body of " + declared + " bytes is over the limit of " + limit
                : name + ": request body is over the limit of " + limit);
    }

    /** 429: the request-body budget stayed short for the whole wait. */
    private Answer busy(Route route) {
        String name = route.protocol() + " " + route.verb();
        metrics.error(route.protocol(), route.verb(), "busy");
        String budget = route.ownBudget()
                ? "this route's budget of " + route.budget().bytes() + " bytes (its callers are not authenticated "
                        + "before the body is read, so it has a small budget of its own)"
                : "the budget of " + route.budget().bytes() + " bytes (serve --request-bytes-in-flight)";
        warnings.warn(new Warning("busy", route), "{}: 429, request bodies in flight fill {}", name, budget);
        return new Answer(WireReply.text(429, name + ": server busy: request bodies in flight fill " + budget
                + "; retry later"), Map.of("Retry-After", "1"), true);
    }

    /**
     * The verb's reply to a complete body: 400 with the reason for a body it cannot use, 500 with one line (and a
     * warning in the log) for a bug in the handler. Gives the body's share of the budget back. The warnings are
     * rate-limited ({@link RateLimitedLog}); the answers and error counters are per request.
     */
    Answer handle(Route route, byte[] body, Caller caller, RequestBodyBudget.Lease lease) {
        try (RequestBodyBudget.Lease ignored = lease) {
            return Answer.keep(route.handler().handle(body, caller));
        } catch (WireFormatException e) {
            metrics.error(route.protocol(), route.verb(), e.kind().tag());
            warnings.warn(new Warning("bad_request", route), "bad request: {}", e.getMessage());
            return Answer.keep(WireReply.text(400, Answer.oneLine(e.getMessage())));
        } catch (dev.railyard.topology.InputException e) {
            // bad input the handler found beyond the wire format (its own one-line reason): the caller's, not a bug
            metrics.error(route.protocol(), route.verb(), "input");
            warnings.warn(new Warning("bad_request", route), "bad request: {}", Answer.oneLine(e.getMessage()));
            return Answer.keep(WireReply.text(400, Answer.oneLine(e.getMessage())));
        } catch (RuntimeException e) {
            metrics.error(route.protocol(), route.verb(), "internal");
            return internalError(route, route.protocol() + " " + route.verb(), e);
        }
    }

    /**
     * 500 with one line for a bug met while answering: a warning with the stack trace, rate-limited like the
     * others (a bug a caller can trigger at will must not flood the log either; the first of each window keeps its
     * stack trace).
     *
     * @param route the verb, or null for a built-in endpoint
     * @param name  the verb's or endpoint's name for the line and the reply
     */
    Answer internalError(Route route, String name, RuntimeException bug) {
        // the trace's first line repeats the message unescaped: kept only when the message cannot forge a line
        String message = String.valueOf(bug.getMessage());
        boolean plain = LogText.escape(message).equals(message);
        warnings.warn(new Warning("internal", route), "{}: internal error: {}", Answer.oneLine(name),
                Answer.oneLine(bug.toString()), plain ? bug : null);
        return Answer.keep(WireReply.text(500, name + ": internal error: " + Answer.oneLine(bug.toString())));
    }
}
