package dev.railyard.scheduler.server;

import dev.railyard.scheduler.protocol.Caller;
import dev.railyard.scheduler.protocol.VerbHandler;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The extender's HTTP/1.1 server: Netty's HTTP codec on NIO event loops. A verb that declares it never blocks
 * ({@link VerbHandler.Threading#IO_THREAD}) is answered on the connection's event loop when its body is small;
 * every other verb, and a large body, on a virtual thread of its own ({@link HttpConnection};
 * docs/adr/0017-netty-transport.md for the design and its measurements; it replaced the JDK's
 * {@code com.sun.net.httpserver}, docs/adr/0003-http-server.md).
 *
 * <p>Endpoints:
 * <ul>
 *   <li>{@code POST <prefix><verb>}: the protocol verbs mounted with {@link #mount} (Volcano under
 *       {@code /volcano/}, kube-scheduler under {@code /kube/});</li>
 *   <li>{@code GET /healthz}: 200 {@code ok} while the process serves;</li>
 *   <li>{@code GET /readyz}: 200 {@code ready}, or 503 with the {@link ReadinessProbe}'s reason;</li>
 *   <li>{@code GET /metrics}: Prometheus text format.</li>
 * </ul>
 * The last three are not served by a listener started with {@link #startRoutesOnly} (404 there).
 *
 * <p>Keep-alive is HTTP/1.1's default; TCP_NODELAY is on, else small replies wait on delayed ACKs. A request that
 * has not arrived completely within {@link ConnectionTimeouts#requestRead()} of its first byte (a client that sends
 * half a request and stalls) and a keep-alive connection idle for {@link ConnectionTimeouts#idle()} are closed by
 * the server (see {@link HttpConnection}). A body larger than {@link ServerSettings#maxRequestBytes()} is answered
 * 413 and the connection closed at once, without reading the body when its Content-Length says so. Bodies held in
 * memory at once are bounded by the {@link RequestBodyBudget} ({@link ServerSettings#bodyBudget()}): a request that
 * cannot get its share within a short wait is answered 429 with {@code Retry-After: 1} and the connection closed; a
 * route whose caller is not authenticated before the body takes its shares from a small budget of its own and
 * bodies of at most {@link RequestBodyBudget#UNAUTHENTICATED_MAX_BODY}, so its callers cannot starve the others.
 * Bad input, framing included, gets a 4xx with a one-line text reason; a handler bug gets a 500 with a one-line
 * reason and a warning in the log; the server keeps serving in every case.
 *
 * <p>Callers: with a client CA ({@link ServerSettings#clientCa()}) the TLS listener asks every client for a
 * certificate and verifies it per request ({@link ClientCertificateVerifier}); before reading a body it asks the
 * route's {@link VerbHandler#refuse} whether this {@link Caller} (its verified certificates or why they were
 * refused, its bearer token) may call, and answers 401/403 with the reason and closes the connection if not
 * (docs/adr/0010-authenticated-callers.md).
 */
public final class ExtenderServer implements AutoCloseable {
    /**
     * Event-loop threads per listener: {@value #EVENT_LOOPS_PROPERTY} if set, else one per processor, 1 to 8. The
     * loops make the answers of the verbs that never block (Volcano predicate and prioritize, kube filter and
     * prioritize), so they do most of the CPU work: with fewer loops than cores a burst of predicate calls could
     * not use every core (the blocking verbs' virtual threads share the same cores). The comparison of 1 and 2
     * loops on 2 cores is in docs/adr/0017-netty-transport.md.
     */
    static final String EVENT_LOOPS_PROPERTY = "railyard.http.eventLoops";
    private static final Logger LOG = LoggerFactory.getLogger(ExtenderServer.class);
    private static final int BACKLOG = 1024;

    private final Channel server;
    private final EventLoopGroup loops;
    private final ChannelGroup channels;
    private final ExecutorService decisions;
    private final Listener listener;

    private ExtenderServer(Channel server, EventLoopGroup loops, ChannelGroup channels, ExecutorService decisions,
                           Listener listener) {
        this.server = server;
        this.loops = loops;
        this.channels = channels;
        this.decisions = decisions;
        this.listener = listener;
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
     * @throws IOException              when the address cannot be bound
     * @throws TlsSettings.TlsException when TLS is configured and its material cannot be used
     */
    public static ExtenderServer start(ServerSettings settings, Map<String, VerbHandler> routes,
                                       ReadinessProbe readiness, PrometheusMeterRegistry registry)
            throws IOException, TlsSettings.TlsException {
        return start(settings, routes, Objects.requireNonNull(readiness, "readiness"), registry, true);
    }

    /**
     * Binds and starts a listener of {@code routes} only: {@code /healthz}, {@code /readyz} and {@code /metrics}
     * answer 404 like any unknown path (the secure and webhook ports of {@code serve}: the probes and the scraper
     * use the main port, docs/serve.md). Its verbs' meters are still kept in {@code registry}.
     *
     * @throws IOException              when the address cannot be bound
     * @throws TlsSettings.TlsException when TLS is configured and its material cannot be used
     */
    public static ExtenderServer startRoutesOnly(ServerSettings settings, Map<String, VerbHandler> routes,
                                                 PrometheusMeterRegistry registry)
            throws IOException, TlsSettings.TlsException {
        return start(settings, routes, null, registry, false);
    }

    private static ExtenderServer start(ServerSettings settings, Map<String, VerbHandler> routes,
                                        ReadinessProbe readiness, PrometheusMeterRegistry registry, boolean builtIns)
            throws IOException, TlsSettings.TlsException {
        Objects.requireNonNull(registry, "registry");
        Endpoints endpoints = new Endpoints(routes, settings, builtIns ? readiness : null, registry);
        ClientCertificateVerifier verifier = null;
        SSLContext tls = null;
        if (settings.tls() != null) {
            verifier = settings.clientCa() == null ? null : new ClientCertificateVerifier(settings.clientCa());
            tls = settings.tls().sslContext(verifier == null ? null : verifier.handshakeTrustManagers());
        }
        EventLoopGroup loops = new MultiThreadIoEventLoopGroup(eventLoops(),
                new DefaultThreadFactory("railyard-http"), NioIoHandler.newFactory());
        ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
        ExecutorService decisions = Executors.newVirtualThreadPerTaskExecutor();
        Listener listener = new Listener(endpoints, decisions, settings.connections(), tls, verifier, channels);
        Channel server;
        try {
            server = new ServerBootstrap().group(loops).channel(NioServerSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, BACKLOG)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.AUTO_READ, false)
                    .childHandler(listener)
                    .bind(settings.address()).sync().channel();
        } catch (Exception e) { // bind() rethrows the cause as is, checked or not
            loops.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            decisions.close();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw e instanceof IOException io ? io : new IOException("cannot listen on " + settings.address() + ": " + e, e);
        }
        ExtenderServer s = new ExtenderServer(server, loops, channels, decisions, listener);
        String port = Integer.toString(s.port());
        io.micrometer.core.instrument.FunctionCounter.builder("railyard_extender_connections_refused_total",
                        listener.connections, ConnectionCaps::refused)
                .description("connections closed on accept: over the per-peer or total connection cap")
                .tag("port", port).register(registry);
        io.micrometer.core.instrument.Gauge.builder("railyard_extender_connections_open", listener.connections,
                        ConnectionCaps::open)
                .description("connections open on the listener").tag("port", port).register(registry);
        LOG.info("railyard extender listening on {} ({} verbs, request limit {} bytes, {} bytes of bodies in flight "
                        + "at most{}; {})",
                url(settings.tls() != null ? "https" : "http", settings.address().getHostString(), s.port()),
                endpoints.size(), settings.maxRequestBytes(), settings.bodyBudget().bytes(), endpoints.ownBudgets(),
                settings.connections().describe() + ", " + listener.connections.describe());
        return s;
    }

    private static int eventLoops() {
        Integer set = Integer.getInteger(EVENT_LOOPS_PROPERTY);
        return set != null && set > 0 ? set : Math.clamp(Runtime.getRuntime().availableProcessors(), 1, 8);
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
        return address().getPort();
    }

    /** The bound address. */
    public InetSocketAddress address() {
        return (InetSocketAddress) server.localAddress();
    }

    /**
     * Stops accepting connections, waits up to {@code graceSeconds} for requests in flight to be answered, then
     * closes every connection and waits for running decisions to end.
     */
    public void stop(int graceSeconds) {
        server.close().awaitUninterruptibly();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Math.max(graceSeconds, 0));
        while (listener.inFlight.get() > 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        channels.close().awaitUninterruptibly();
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        decisions.close();
    }

    /** Stops at once ({@link #stop(int) stop(0)}). */
    @Override
    public void close() {
        stop(0);
    }
}
