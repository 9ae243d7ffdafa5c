package dev.railyard.scheduler.server;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Connection hygiene of the extender's HTTP listeners: how long a request may take to arrive, how long an idle
 * keep-alive connection is kept, and how many idle connections are kept at most.
 *
 * <p>The JDK server ({@code com.sun.net.httpserver}, module {@code jdk.httpserver}) reads these from system
 * properties once, when its implementation class {@code sun.net.httpserver.ServerImpl} initialises, i.e. when the
 * first {@code HttpServer} of the JVM is created; they then hold for every listener of the process (the extender
 * port and the webhook port alike). {@link #applyToJdkServer()} sets them; {@link ExtenderServer#start} calls it
 * before creating its server. As read from JDK 25.0.3's {@code sun/net/httpserver/ServerConfig.java} and
 * {@code ServerImpl.java} (the module's Javadoc says milliseconds for {@code maxReqTime}, but the code multiplies
 * the value by 1000, so it is seconds):
 * <ul>
 *   <li>{@code sun.net.httpserver.maxReqTime} (seconds): from the first byte of a request until its body has been
 *       read to the end; past it the connection is closed (the handler, if running, gets an {@code IOException}).
 *       A connection that sends nothing at all is closed after the lesser of this and the idle timeout. Checked
 *       every {@code sun.net.httpserver.timerMillis} ms.</li>
 *   <li>{@code sun.net.httpserver.idleInterval} (seconds): a keep-alive connection between requests is closed
 *       after this; checked every {@code sun.net.httpserver.clockTick} ms (JDK default 10 s, so a connection
 *       could live up to 10 s longer; this class sets a quarter of the shorter timeout, 100 ms to 10 s).</li>
 *   <li>{@code sun.net.httpserver.maxIdleConnections}: past this many idle connections, a connection is closed
 *       after its response instead of being kept.</li>
 * </ul>
 * Both timeouts therefore have a resolution of one second.
 *
 * @param requestRead        longest time from a request's first byte to the end of its body; whole seconds, &gt;= 1 s
 * @param idle               longest time a keep-alive connection waits for its next request; whole seconds, &gt;= 1 s
 * @param maxIdleConnections idle keep-alive connections kept at most, &gt;= 0 (0: close every connection after its
 *                           response)
 */
public record ConnectionTimeouts(Duration requestRead, Duration idle, int maxIdleConnections) {

    /**
     * 15 s to read a request (three times kube-scheduler's default extender {@code httpTimeout} of 5 s, fifteen
     * times Volcano's 1 s: no live request is cut, a half-sent one is dropped); 120 s idle (longer than the 90 s
     * {@code IdleConnTimeout} of Go's default transport, which Volcano's and kube-scheduler's extender clients
     * use, so the client closes an idle connection first and never sends a POST on a connection the server is
     * closing); 200 idle connections (the JDK's default).
     */
    public static final ConnectionTimeouts DEFAULTS =
            new ConnectionTimeouts(Duration.ofSeconds(15), Duration.ofSeconds(120), 200);

    static final String MAX_REQ_TIME = "sun.net.httpserver.maxReqTime";
    static final String IDLE_INTERVAL = "sun.net.httpserver.idleInterval";
    static final String MAX_IDLE_CONNECTIONS = "sun.net.httpserver.maxIdleConnections";
    static final String CLOCK_TICK = "sun.net.httpserver.clockTick";
    static final String TIMER_MILLIS = "sun.net.httpserver.timerMillis";

    /** What the JDK server of this JVM was given, once the first listener started. */
    private static final AtomicReference<ConnectionTimeouts> APPLIED = new AtomicReference<>();

    /**
     * @throws IllegalArgumentException when a timeout is not a whole number of seconds of at least 1 s, or the
     *                                  idle-connection count is negative
     */
    public ConnectionTimeouts {
        Objects.requireNonNull(requestRead, "requestRead");
        Objects.requireNonNull(idle, "idle");
        checkSeconds("request read timeout", requestRead);
        checkSeconds("idle timeout", idle);
        if (maxIdleConnections < 0) {
            throw new IllegalArgumentException("max idle connections must be >= 0, got " + maxIdleConnections);
        }
    }

    private static void checkSeconds(String what, Duration d) {
        if (d.compareTo(Duration.ofSeconds(1)) < 0 || d.toNanos() % 1_000_000_000L != 0
                || d.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException(what + " must be whole seconds from 1s to 24h (the JDK HTTP server "
                    + "counts in seconds), got " + d.toMillis() + " ms");
        }
    }

    /** The system properties this sets, name to value. */
    Map<String, String> jdkProperties() {
        long tick = Math.clamp(Math.min(requestRead.toMillis(), idle.toMillis()) / 4, 100, 10_000);
        Map<String, String> p = new LinkedHashMap<>();
        p.put(MAX_REQ_TIME, Long.toString(requestRead.toSeconds()));
        p.put(IDLE_INTERVAL, Long.toString(idle.toSeconds()));
        p.put(MAX_IDLE_CONNECTIONS, Integer.toString(maxIdleConnections));
        p.put(CLOCK_TICK, Long.toString(tick));
        p.put(TIMER_MILLIS, Long.toString(Math.min(tick, 1000)));
        return p;
    }

    /**
     * Sets the JDK server's system properties, the first time in this JVM; later calls with the same values do
     * nothing. Values set with {@code -D} are overwritten.
     *
     * @throws IllegalStateException when a listener of this JVM already started with other values: the JDK server
     *                               reads them once per process, so they cannot differ between listeners
     */
    void applyToJdkServer() {
        synchronized (APPLIED) {
            ConnectionTimeouts before = APPLIED.get();
            if (before == null) {
                jdkProperties().forEach(System::setProperty);
                APPLIED.set(this);
            } else if (!before.equals(this)) {
                throw new IllegalStateException("HTTP connection timeouts are per process in the JDK server and were "
                        + "already set to " + before.describe() + "; cannot use " + describe() + " for another listener");
            }
        }
    }

    /** One line for the log: {@code request read 15s, idle 120s, 200 idle connections at most}. */
    public String describe() {
        return "request read " + requestRead.toSeconds() + "s, idle " + idle.toSeconds() + "s, "
                + maxIdleConnections + " idle connections at most";
    }
}
