package dev.railyard.scheduler.server;

import java.time.Duration;
import java.util.Objects;

/**
 * Connection hygiene of an extender HTTP listener: how long a request may take to arrive, how long an idle
 * keep-alive connection is kept, and how many idle connections are kept at most. Each listener has its own
 * ({@link HttpConnection} enforces them with event-loop timers, to the millisecond):
 * <ul>
 *   <li>{@code requestRead}: from the first byte of a request until its body has been read to the end; past it
 *       the connection is closed (a verb's request cut this way counts as {@code client_gone}). A new connection
 *       that sends nothing at all is closed after the lesser of this and the idle timeout. Also the longest time a
 *       reply may take to be written out once sent: a client that does not read it is closed
 *       ({@code slow_reader}).</li>
 *   <li>{@code idle}: a keep-alive connection between requests is closed after this.</li>
 *   <li>{@code maxIdleConnections}: with this many connections of the listener idle already, a connection is
 *       closed after its response instead of being kept.</li>
 * </ul>
 *
 * @param requestRead        longest time from a request's first byte to the end of its body, and from a reply's
 *                           sending to its last byte written, 100 ms to 24 h
 * @param idle               longest time a keep-alive connection waits for its next request, 100 ms to 24 h
 * @param maxIdleConnections idle keep-alive connections kept at most, &gt;= 0 (0: close every connection after its
 *                           response)
 */
public record ConnectionTimeouts(Duration requestRead, Duration idle, int maxIdleConnections) {

    /**
     * 15 s to read a request (three times kube-scheduler's default extender {@code httpTimeout} of 5 s, fifteen
     * times Volcano's 1 s: no live request is cut, a half-sent one is dropped); 120 s idle (longer than the 90 s
     * {@code IdleConnTimeout} of Go's default transport, which Volcano's and kube-scheduler's extender clients
     * use, so the client closes an idle connection first and never sends a POST on a connection the server is
     * closing); 200 idle connections.
     */
    public static final ConnectionTimeouts DEFAULTS =
            new ConnectionTimeouts(Duration.ofSeconds(15), Duration.ofSeconds(120), 200);

    /**
     * @throws IllegalArgumentException when a timeout is outside 100 ms..24 h, or the idle-connection count is
     *                                  negative
     */
    public ConnectionTimeouts {
        Objects.requireNonNull(requestRead, "requestRead");
        Objects.requireNonNull(idle, "idle");
        checkRange("request read timeout", requestRead);
        checkRange("idle timeout", idle);
        if (maxIdleConnections < 0) {
            throw new IllegalArgumentException("max idle connections must be >= 0, got " + maxIdleConnections);
        }
    }

    private static void checkRange(String what, Duration d) {
        if (d.compareTo(Duration.ofMillis(100)) < 0 || d.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException(what + " must be from 100ms to 24h, got " + d.toMillis() + " ms");
        }
    }

    /** One line for the log: {@code request read 15s, idle 120s, 200 idle connections at most}. */
    public String describe() {
        return "request read " + seconds(requestRead) + ", idle " + seconds(idle) + ", "
                + maxIdleConnections + " idle connections at most";
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }
}
