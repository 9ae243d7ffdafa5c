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
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLPeerUnverifiedException;

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
 * closed, without reading the body when its Content-Length says so. Bad input gets a 4xx with a one-line
 * text reason; a handler bug gets a 500 with a one-line reason and a warning in the log; the server keeps
 * serving in every case.
 *
 * <p>Callers: with a client CA ({@link ServerSettings#clientCa()}) the HTTPS listener asks every client for a
 * certificate and ends the handshake on one that does not verify; before reading a body it asks the route's
 * {@link VerbHandler#refuse} whether this {@link Caller} (its verified certificates, its bearer token) may call,
 * and answers 401/403 with the reason and closes the connection if not (docs/adr/0010-authenticated-callers.md).
 */
public final class ExtenderServer implements AutoCloseable {
    static {
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(ExtenderServer.class);
    private static final byte[] NO_BODY = new byte[0];
    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    private static final int BACKLOG = 1024;

    private record Route(String protocol, String verb, VerbHandler handler) {
    }

    private final HttpServer server;
    private final ExecutorService executor;
    private final Map<String, Route> routes;
    private final long maxRequestBytes;
    private final ReadinessProbe readiness;
    private final PrometheusMeterRegistry registry;
    private final ServerMetrics metrics;

    private ExtenderServer(HttpServer server, ExecutorService executor, Map<String, Route> routes,
                           long maxRequestBytes, ReadinessProbe readiness, PrometheusMeterRegistry registry) {
        this.server = server;
        this.executor = executor;
        this.routes = routes;
        this.maxRequestBytes = maxRequestBytes;
        this.readiness = readiness;
        this.registry = registry;
        this.metrics = new ServerMetrics(registry);
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
        if (settings.tls() != null) {
            ClientCertificateAuthority clientCa = settings.clientCa();
            var ctx = settings.tls().sslContext(clientCa == null ? null : clientCa.trustManagers());
            HttpsServer https = HttpsServer.create(settings.address(), BACKLOG);
            https.setHttpsConfigurator(clientCa == null ? new HttpsConfigurator(ctx) : wantClientCertificates(ctx));
            http = https;
        } else {
            http = HttpServer.create(settings.address(), BACKLOG);
        }
        ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
        ExtenderServer s = new ExtenderServer(http, executor, Map.copyOf(table), settings.maxRequestBytes(),
                readiness, registry);
        http.createContext("/", s::handle);
        http.setExecutor(executor);
        http.start();
        LOG.info("railyard extender listening on {} ({} verbs, request limit {} bytes; {})",
                url(settings.tls() != null ? "https" : "http", settings.address().getHostString(), s.port()),
                table.size(), settings.maxRequestBytes(), settings.connections().describe());
        return s;
    }

    /**
     * Asks every client for a certificate ("want", not "need"): a certificate that does not verify against the
     * client CA ends the handshake (the JDK's trust manager throws), while a client without one gets through the
     * handshake so that each route can answer 401 with a reason ({@link VerbHandler#refuse}).
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
        byte[] body;
        InputStream in = ex.getRequestBody();
        if (!route.handler().readsBody()) {
            in.transferTo(OutputStream.nullOutputStream());
            body = NO_BODY;
        } else {
            long declared;
            String cl = ex.getRequestHeaders().getFirst("Content-Length");
            try {
                declared = cl == null ? -1 : Long.parseLong(cl.trim());
            } catch (NumberFormatException e) {
                metrics.error(route.protocol(), route.verb(), "malformed_request");
                return closing(ex, WireReply.text(400, name + ": bad Content-Length: " + oneLine(cl)));
            }
            if (declared > maxRequestBytes) {
                metrics.error(route.protocol(), route.verb(), "too_large");
                return closing(ex, WireReply.text(413, name + ": request body of " + declared
                        + " bytes is over the limit of " + maxRequestBytes + " bytes"));
            }
            if (declared >= 0) {
                body = in.readNBytes((int) declared);
                if (body.length < declared) {
                    metrics.error(route.protocol(), route.verb(), "truncated_body");
                    return closing(ex, WireReply.text(400, name + ": request body ended after " + body.length
                            + " of " + declared + " bytes"));
                }
            } else {
                body = readBounded(in, maxRequestBytes);
                if (body == null) {
                    metrics.error(route.protocol(), route.verb(), "too_large");
                    return closing(ex, WireReply.text(413, name + ": request body is over the limit of "
                            + maxRequestBytes + " bytes"));
                }
            }
        }
        try {
            return route.handler().handle(body, caller);
        } catch (WireFormatException e) {
            metrics.error(route.protocol(), route.verb(), e.kind().tag());
            LOG.warn("bad request: {}", e.getMessage());
            return WireReply.text(400, oneLine(e.getMessage()));
        }
    }

    /** The verified client certificates (HTTPS with a client CA) and the bearer token of the request. */
    private static Caller caller(HttpExchange ex) {
        List<X509Certificate> certs = new ArrayList<>();
        if (ex instanceof HttpsExchange hx && hx.getSSLSession() != null) {
            try {
                for (Certificate c : hx.getSSLSession().getPeerCertificates()) {
                    if (c instanceof X509Certificate x) {
                        certs.add(x);
                    }
                }
            } catch (SSLPeerUnverifiedException e) {
                // no client certificate: left to the route
            }
        }
        String auth = ex.getRequestHeaders().getFirst("Authorization");
        Optional<String> token = auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)
                && auth.length() > 7 ? Optional.of(auth.substring(7).strip()) : Optional.empty();
        InetSocketAddress remote = ex.getRemoteAddress();
        return new Caller(certs, token, remote == null ? "unknown" : url("tcp", remote.getHostString(),
                remote.getPort()).substring(6));
    }

    /** Reads a body of unknown length (chunked); null once it exceeds {@code limit} bytes. */
    private static byte[] readBounded(InputStream in, long limit) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
        byte[] buf = new byte[16384];
        long total = 0;
        int n;
        while ((n = in.read(buf)) > 0) {
            total += n;
            if (total > limit) {
                return null;
            }
            out.write(buf, 0, n);
        }
        return out.toByteArray();
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
