package dev.railyard.scheduler.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsServer;
import dev.railyard.scheduler.input.LogText;
import dev.railyard.scheduler.protocol.Caller;
import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.WireFormatException;
import dev.railyard.scheduler.protocol.WireReply;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The extender's HTTP/1.1 server: the JDK's {@code com.sun.net.httpserver} with one virtual thread per
 * exchange (see docs/adr/0003-http-server.md for the measurement behind the choice).
 *
 * <p>Endpoints:
 * <ul>
 *   <li>{@code POST <prefix><verb>}: the protocol verbs mounted with {@link #mount} (Volcano under
 *       {@code /volcano/}, kube-scheduler under {@code /kube/});</li>
 *   <li>{@code GET /healthz}: 200 {@code ok} while the process serves;</li>
 *   <li>{@code GET /readyz}: 200 {@code ready}, or 503 with the {@link ReadinessProbe}'s reason;</li>
 *   <li>{@code GET /metrics}: Prometheus text format.</li>
 * </ul>
 *
 * <p>Keep-alive is HTTP/1.1's default; TCP_NODELAY is switched on (system property
 * {@code sun.net.httpserver.nodelay}, unless set otherwise before this class loads), else small replies wait on
 * delayed ACKs. A request that has not arrived completely within {@link ConnectionTimeouts#requestRead()} (a
 * client that sends half a request and stalls) and a keep-alive connection idle for
 * {@link ConnectionTimeouts#idle()} are closed by the server; these are per process (see
 * {@link ConnectionTimeouts}). A body larger than {@link ServerSettings#maxRequestBytes()} is answered 413 and the connection
 * closed at once, without reading the body when its Content-Length says so. Bodies held in memory at once are bounded
 * by the {@link RequestBodyBudget} ({@link ServerSettings#bodyBudget()}): a request that cannot get its share within
 * a short wait is answered 429 with {@code Retry-After: 1} and the connection closed. Bad input gets a 4xx with a one-line
 * text reason; a handler bug gets a 500 with a one-line reason and a warning in the log; the server keeps
 * serving in every case.
 *
 * <p>Callers: with a client CA ({@link ServerSettings#clientCa()}) the HTTPS listener asks every client for a
 * certificate and verifies it per request ({@link ClientCertificateVerifier}); before reading a body it asks the
 * route's {@link VerbHandler#refuse} whether this {@link Caller} (its verified certificates or why they were
 * refused, its bearer token) may call,
 * and answers 401/403 with the reason and closes the connection if not (docs/adr/0010-authenticated-callers.md).
 */
public final class ExtenderServer implements AutoCloseable {
    static final String DRAIN_AMOUNT = "sun.net.httpserver.drainAmount";

    static {
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
        // JDK 25 sun/net/httpserver/LeftOverInputStream.close() drains up to drainAmount bytes of an unread body
        // before the connection is closed, blocking until the request-read timeout on a client that declared a
        // body it never sends; 0 closes such a connection at once (after a 413, 429, 401). Bodies we answer are
        // read to their end, so keep-alive is unaffected.
        if (System.getProperty(DRAIN_AMOUNT) == null) {
            System.setProperty(DRAIN_AMOUNT, "0");
        }
    }


    private static final Logger LOG = LoggerFactory.getLogger(ExtenderServer.class);
    private static final byte[] NO_BODY = new byte[0];
    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    private static final int BACKLOG = 1024;
    /** Unread request bytes read to reach the end of a request whose connection is kept (what the JDK drains). */
    private static final long KEEP_ALIVE_DRAIN = 64 * 1024;

    private record Route(String protocol, String verb, VerbHandler handler) {
    }

    private final HttpServer server;
    private final ExecutorService executor;
    private final Map<String, Route> routes;
    private final long maxRequestBytes;
    private final ReadinessProbe readiness;
    private final PrometheusMeterRegistry registry;
    private final ServerMetrics metrics;
    private final RequestBodyBudget bodyBudget;
    private final ClientCertificateVerifier verifier;

    private ExtenderServer(HttpServer server, ExecutorService executor, Map<String, Route> routes,
                           ServerSettings settings, ClientCertificateVerifier verifier, ReadinessProbe readiness,
                           PrometheusMeterRegistry registry) {
        this.server = server;
        this.verifier = verifier;
        this.executor = executor;
        this.routes = routes;
        this.maxRequestBytes = settings.maxRequestBytes();
        this.readiness = readiness;
        this.registry = registry;
        this.metrics = new ServerMetrics(registry);
        this.bodyBudget = settings.bodyBudget();
        metrics.bodyBudget(bodyBudget);
    }

    /**
     * Prefixes each verb name with the protocol's path prefix, e.g. {@code /volcano/} + {@code predicate}.
     *
     * @param prefix a path starting and ending with {@code /}
     */
    public static Map<String, VerbHandler> mount(String prefix, Map<String, VerbHandler> verbs) {
        if (!prefix.startsWith("/") || !prefix.endsWith("/")) {
            throw new IllegalArgumentException("prefix must start and end with '/': " + prefix);
        }
        Map<String, VerbHandler> out = new LinkedHashMap<>();
        verbs.forEach((verb, h) -> out.put(prefix + verb, h));
        return out;
    }

    /**
     * Binds and starts the server.
     *
     * @param routes    full path ({@code /volcano/predicate}) to handler; the first path segment becomes the
     *                  {@code protocol} metric tag and the rest the {@code verb} tag; a one-segment route
     *                  ({@code /explain}) is tagged protocol {@code railyard}
     * @param readiness consulted on every {@code /readyz}
     * @param registry  where the server's and adapters' meters live; scraped at {@code /metrics}
     * @throws IOException                  when the address cannot be bound
     * @throws TlsSettings.TlsException when TLS is configured and its material cannot be used
     * @throws IllegalStateException        when another listener of this JVM started with other
     *                                      {@link ServerSettings#connections() connection timeouts}
     */
    public static ExtenderServer start(ServerSettings settings, Map<String, VerbHandler> routes,
                                       ReadinessProbe readiness, PrometheusMeterRegistry registry)
            throws IOException, TlsSettings.TlsException {
        Objects.requireNonNull(readiness, "readiness");
        Objects.requireNonNull(registry, "registry");
        Map<String, Route> table = new LinkedHashMap<>();
        routes.forEach((path, h) -> {
            String[] parts = path.substring(1).split("/", 2);
            if (parts[0].isEmpty() || (parts.length == 2 && parts[1].isEmpty())) {
                throw new IllegalArgumentException("route must look like /<protocol>/<verb> or /<verb>: " + path);
            }
            table.put(path, parts.length == 2 ? new Route(parts[0], parts[1], h) : new Route("railyard", parts[0], h));
        });
        settings.connections().applyToJdkServer();
        HttpServer http;
        ClientCertificateVerifier verifier = null;
        if (settings.tls() != null) {
            verifier = settings.clientCa() == null ? null : new ClientCertificateVerifier(settings.clientCa());
            var ctx = settings.tls().sslContext(verifier == null ? null : verifier.handshakeTrustManagers());
            HttpsServer https = HttpsServer.create(settings.address(), BACKLOG);
            https.setHttpsConfigurator(verifier == null ? new HttpsConfigurator(ctx) : wantClientCertificates(ctx));
            http = https;
        } else {
            http = HttpServer.create(settings.address(), BACKLOG);
        }
        ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
        ExtenderServer s = new ExtenderServer(http, executor, Map.copyOf(table), settings, verifier, readiness,
                registry);
        http.createContext("/", s::handle);
        http.setExecutor(executor);
        http.start();
        LOG.info("railyard extender listening on {} ({} verbs, request limit {} bytes, {} bytes of bodies in flight "
                        + "at most; {})",
                url(settings.tls() != null ? "https" : "http", settings.address().getHostString(), s.port()),
                table.size(), settings.maxRequestBytes(), settings.bodyBudget().bytes(),
                settings.connections().describe());
        return s;
    }

    /**
     * Asks every client for a certificate ("want", not "need") and lets any chain through the handshake
     * ({@link ClientCertificateVerifier#handshakeTrustManagers()}): each request's chain is verified against the
     * client CA in {@link #caller}, so that a route can answer 401 with a reason ({@link VerbHandler#refuse}) to a
     * client with no certificate or one that does not verify, as kube-apiserver does.
     */
    private static HttpsConfigurator wantClientCertificates(javax.net.ssl.SSLContext ctx) {
        return new HttpsConfigurator(ctx) {
            @Override
            public void configure(com.sun.net.httpserver.HttpsParameters params) {
                javax.net.ssl.SSLParameters p = getSSLContext().getDefaultSSLParameters();
                p.setWantClientAuth(true);
                params.setSSLParameters(p);
            }
        };
    }

    /**
     * @param scheme {@code http} or {@code https}
     * @param host   a host name or an IPv4 or IPv6 literal ({@code 0:0:0:0:0:0:0:1})
     * @param port   TCP port
     * @return {@code scheme://host:port}, an IPv6 literal in brackets as URLs write it (RFC 3986 §3.2.2):
     *         {@code http://[0:0:0:0:0:0:0:1]:8888}
     */
    public static String url(String scheme, String host, int port) {
        String h = host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
        return scheme + "://" + h + ":" + port;
    }

    /** The bound port (useful when started on port 0). */
    public int port() {
        return server.getAddress().getPort();
    }

    /** The bound address. */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    /**
     * Stops accepting connections, waits up to {@code graceSeconds} for in-flight exchanges to finish, then
     * closes every connection.
     */
    public void stop(int graceSeconds) {
        server.stop(graceSeconds);
        executor.close();
    }

    /** Stops at once ({@link #stop(int) stop(0)}). */
    @Override
    public void close() {
        stop(0);
    }

    private void handle(HttpExchange ex) {
        long start = System.nanoTime();
        String path = ex.getRequestURI().getPath();
        Route route = routes.get(path);
        String protocol = route == null ? "http" : route.protocol();
        String verb = route == null ? path : route.verb();
        int status = 500;
        try {
            WireReply reply;
            if (route == null) {
                reply = builtIn(ex, path);
            } else {
                reply = serveVerb(ex, route);
            }
            status = reply.status();
            if (!"close".equalsIgnoreCase(ex.getResponseHeaders().getFirst("Connection"))) {
                drain(ex.getRequestBody()); // what the JDK would drain to keep the connection; a closing reply skips it
            }
            send(ex, reply);
        } catch (IOException e) {
            // the client went away mid-exchange; nothing to answer
            metrics.error(protocol, verb, "client_gone");
            LOG.debug("{} {}: connection lost: {}", protocol, verb, e.toString());
        } catch (RuntimeException e) {
            // a bug: answer 500 with one line, keep serving
            metrics.error(protocol, verb, "internal");
            LOG.warn("{} {}: internal error: {}", protocol, verb, e.toString(), e);
            try {
                send(ex, WireReply.text(500, protocol + " " + verb + ": internal error: " + oneLine(e.toString())));
            } catch (IOException | RuntimeException ignored) {
                // headers may already be sent; the connection closes with the exchange
            }
        } finally {
            ex.close();
            if (route != null) {
                metrics.request(protocol, verb, status, System.nanoTime() - start);
            }
        }
    }

    private WireReply builtIn(HttpExchange ex, String path) {
        boolean get = "GET".equals(ex.getRequestMethod()) || "HEAD".equals(ex.getRequestMethod());
        switch (path) {
            case "/healthz" -> {
                return get ? WireReply.text(200, "ok") : methodNotAllowed(ex, "GET", "http", path);
            }
            case "/readyz" -> {
                if (!get) {
                    return methodNotAllowed(ex, "GET", "http", path);
                }
                Optional<String> why = readiness.notReadyReason();
                return why.map(r -> WireReply.text(503, "not ready: " + oneLine(r))).orElseGet(() -> WireReply.text(200, "ready"));
            }
            case "/metrics" -> {
                if (!get) {
                    return methodNotAllowed(ex, "GET", "http", path);
                }
                return new WireReply(200, PROMETHEUS_TEXT, registry.scrape().getBytes(StandardCharsets.UTF_8));
            }
            default -> {
                metrics.error("http", "unknown", "not_found");
                return WireReply.text(404, "no endpoint " + oneLine(path)
                        + ": Volcano verbs are under /volcano/, kube-scheduler verbs under /kube/");
            }
        }
    }

    private WireReply methodNotAllowed(HttpExchange ex, String allow, String protocol, String verb) {
        metrics.error(protocol, verb, "bad_method");
        ex.getResponseHeaders().set("Allow", allow);
        return WireReply.text(405, ex.getRequestMethod() + " " + ex.getRequestURI().getPath()
                + ": method not allowed, use " + allow);
    }

    private WireReply serveVerb(HttpExchange ex, Route route) throws IOException {
        String name = route.protocol() + " " + route.verb();
        if (!"POST".equals(ex.getRequestMethod())) {
            return methodNotAllowed(ex, "POST", route.protocol(), route.verb());
        }
        Caller caller = caller(ex);
        Optional<WireReply> refused = route.handler().refuse(caller);
        if (refused.isPresent()) {
            metrics.error(route.protocol(), route.verb(), refused.get().status() == 401 ? "unauthenticated" : "forbidden");
            LOG.warn("{}: refused {} from {}: {}", name, refused.get().status(), caller.remoteAddress(),
                    oneLine(refused.get().bodyText()));
            return closing(ex, refused.get());
        }
        BodyRead read = readBody(ex, route, name);
        if (read.refusal() != null) {
            return read.refusal();
        }
        try (RequestBodyBudget.Lease ignored = read.lease()) {
            return route.handler().handle(read.body(), caller);
        } catch (WireFormatException e) {
            metrics.error(route.protocol(), route.verb(), e.kind().tag());
            LOG.warn("bad request: {}", e.getMessage());
            return WireReply.text(400, oneLine(e.getMessage()));
        }
    }

    /** A body read to its end under a share of the budget (to close once answered), or the reply refusing it. */
    private record BodyRead(byte[] body, RequestBodyBudget.Lease lease, WireReply refusal) {
        static BodyRead refused(WireReply reply) {
            return new BodyRead(null, null, reply);
        }
    }

    /**
     * Reads the body to its end (so that a keep-alive connection can carry the next request) under a share of
     * the {@link RequestBodyBudget}; refuses with 400, 413 or 429 and {@code Connection: close} without reading
     * (the JDK server then closes at once: {@code sun.net.httpserver.drainAmount} is 0, see the static block).
     */
    private BodyRead readBody(HttpExchange ex, Route route, String name) throws IOException {
        InputStream in = ex.getRequestBody();
        if (!route.handler().readsBody()) {
            in.transferTo(OutputStream.nullOutputStream());
            return new BodyRead(NO_BODY, null, null);
        }
        long declared;
        String cl = ex.getRequestHeaders().getFirst("Content-Length");
        try {
            declared = cl == null ? -1 : Long.parseLong(cl.trim());
        } catch (NumberFormatException e) {
            metrics.error(route.protocol(), route.verb(), "malformed_request");
            return BodyRead.refused(closing(ex, WireReply.text(400, name + ": bad Content-Length: " + oneLine(cl))));
        }
        if (declared > maxRequestBytes) {
            metrics.error(route.protocol(), route.verb(), "too_large");
            return BodyRead.refused(closing(ex, WireReply.text(413, name + ": request body of " + declared
                    + " bytes is over the limit of " + maxRequestBytes + " bytes")));
        }
        RequestBodyBudget.Lease lease = acquire(declared >= 0 ? declared : RequestBodyBudget.CHUNK);
        if (lease == null) {
            return BodyRead.refused(busy(ex, route, name));
        }
        boolean handedOver = false;
        try {
            BodyRead read = declared >= 0 ? readDeclared(ex, in, (int) declared, route, name, lease)
                    : readChunked(ex, in, route, name, lease);
            handedOver = read.refusal() == null;
            return read;
        } finally {
            if (!handedOver) {
                lease.close();
            }
        }
    }

    private BodyRead readDeclared(HttpExchange ex, InputStream in, int declared, Route route, String name,
                                  RequestBodyBudget.Lease lease) throws IOException {
        byte[] body = new byte[declared];
        int n = in.readNBytes(body, 0, declared);
        if (n < declared) {
            metrics.error(route.protocol(), route.verb(), "truncated_body");
            return BodyRead.refused(closing(ex, WireReply.text(400, name + ": request body ended after " + n
                    + " of " + declared + " bytes")));
        }
        in.read(); // reaches the end of the fixed-length body (-1), so the connection may be kept alive
        return new BodyRead(body, lease, null);
    }

    private BodyRead readChunked(HttpExchange ex, InputStream in, Route route, String name,
                                 RequestBodyBudget.Lease lease) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
        byte[] buf = new byte[16384];
        long total = 0;
        int n;
        while ((n = in.read(buf)) > 0) {
            total += n;
            if (total > maxRequestBytes) {
                metrics.error(route.protocol(), route.verb(), "too_large");
                return BodyRead.refused(closing(ex, WireReply.text(413, name + ": request body is over the limit of "
                        + maxRequestBytes + " bytes")));
            }
            if (total > lease.bytes() && !grow(lease)) {
                return BodyRead.refused(busy(ex, route, name));
            }
            out.write(buf, 0, n);
        }
        return new BodyRead(out.toByteArray(), lease, null);
    }

    private RequestBodyBudget.Lease acquire(long bytes) throws IOException {
        try {
            return bodyBudget.tryAcquire(bytes).orElse(null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for the request-body budget", e);
        }
    }

    private boolean grow(RequestBodyBudget.Lease lease) throws IOException {
        try {
            return lease.grow(RequestBodyBudget.CHUNK);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for the request-body budget", e);
        }
    }

    /** 429: the request-body budget stayed short for the whole wait. */
    private WireReply busy(HttpExchange ex, Route route, String name) {
        metrics.error(route.protocol(), route.verb(), "busy");
        LOG.warn("{}: 429, request bodies in flight fill the budget of {} bytes", name, bodyBudget.bytes());
        ex.getResponseHeaders().set("Retry-After", "1");
        return closing(ex, WireReply.text(429, name + ": server busy: request bodies in flight fill the budget of "
                + bodyBudget.bytes() + " bytes (serve --request-bytes-in-flight); retry later"));
    }

    /**
     * The client certificates verified against the client CA (or why they were refused) and the bearer token of
     * the request; a listener without a client CA reports no certificate.
     */
    private Caller caller(HttpExchange ex) {
        ClientCertificateVerifier.Verdict verdict = verifier != null && ex instanceof HttpsExchange hx
                ? verifier.verify(hx.getSSLSession()) : ClientCertificateVerifier.Verdict.NONE;
        String auth = ex.getRequestHeaders().getFirst("Authorization");
        Optional<String> token = auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)
                && auth.length() > 7 ? Optional.of(auth.substring(7).strip()) : Optional.empty();
        InetSocketAddress remote = ex.getRemoteAddress();
        return new Caller(verdict.chain(), token, remote == null ? "unknown" : url("tcp", remote.getHostString(),
                remote.getPort()).substring(6), Optional.ofNullable(verdict.refusal()));
    }

    /** Reads up to {@link #KEEP_ALIVE_DRAIN} bytes of a body nobody needs, to its end if it is that short. */
    private static void drain(InputStream in) throws IOException {
        long left = KEEP_ALIVE_DRAIN;
        long n;
        while (left > 0 && (n = in.skip(left)) > 0) {
            left -= n;
        }
    }

    private static WireReply closing(HttpExchange ex, WireReply reply) {
        ex.getResponseHeaders().set("Connection", "close");
        return reply;
    }

    private static void send(HttpExchange ex, WireReply reply) throws IOException {
        ex.getResponseHeaders().set("Content-Type", reply.contentType());
        boolean head = "HEAD".equals(ex.getRequestMethod());
        byte[] body = reply.body();
        ex.sendResponseHeaders(reply.status(), head || body.length == 0 ? -1 : body.length);
        if (!head && body.length > 0) {
            try (OutputStream os = ex.getResponseBody()) {
                os.write(body);
            }
        }
    }

    private static String oneLine(String s) {
        if (s == null) {
            return "";
        }
        String r = LogText.escape(s.replaceAll("[\\r\\n\\t]+", " "));
        return r.length() > 400 ? r.substring(0, 400) + "..." : r;
    }
}
