package dev.railyard.scheduler.server;

import dev.railyard.scheduler.input.RateLimitedLog;
import dev.railyard.scheduler.input.RecordedLogLines;
import dev.railyard.scheduler.protocol.Caller;
import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.WireFormatException;
import dev.railyard.scheduler.protocol.WireReply;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server's warnings a caller can cause (bad request, refused, internal error) are written at most once per kind
 * and route per window, with the count of the others in the next line; the answers and error counters stay per
 * request ({@link RateLimitedLog}, docs/adr/0019-rate-limited-request-warnings.md). The clock is injected: it starts
 * below zero, as {@link System#nanoTime} may.
 */
class RequestWarningsTest extends RecordedLogLines {
    /** A verb that refuses callers without a token (401) and cannot parse any body (400), or throws (500). */
    private static VerbHandler verb(boolean buggy) {
        return new VerbHandler() {
            @Override
            public WireReply handle(byte[] body) throws WireFormatException {
                if (buggy) {
                    throw new IllegalStateException("engine bug");
                }
                throw new WireFormatException(WireFormatException.Kind.MALFORMED_JSON,
                        "volcano predicate: not JSON at line 1, column 1");
            }

            @Override
            public Optional<WireReply> refuse(Caller caller) {
                return caller.bearerToken().isPresent() ? Optional.empty()
                        : Optional.of(WireReply.text(401, "no bearer token"));
            }
        };
    }

    private Endpoints endpoints(PrometheusMeterRegistry registry) {
        ServerSettings settings = new ServerSettings(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                1 << 20, null);
        return new Endpoints(Map.of("/volcano/predicate", verb(false), "/volcano/broken", verb(true)), settings,
                Optional::empty, registry, log);
    }

    @Test
    void aThousandBadRequestsInAWindowAreOneLineAndTheNextWindowCountsThem() {
        PrometheusMeterRegistry registry = TestServers.registry();
        Endpoints endpoints = endpoints(registry);
        Endpoints.Route predicate = endpoints.route("/volcano/predicate");
        Caller withToken = new Caller(List.of(), Optional.of("t"), "10.0.0.9:4242");
        byte[] body = "{".getBytes();

        // 1,000 bad bodies, one every 5 ms: 1,000 x 5 ms = 5 s, all within the 10 s window of the first
        for (int i = 0; i < 1000; i++) {
            Answer a = endpoints.handle(predicate, body, withToken, null);
            assertThat(a.status()).isEqualTo(400);
            assertThat(a.reply().bodyText()).isEqualTo("volcano predicate: not JSON at line 1, column 1\n");
            clock.addAndGet(5_000_000L);
        }
        // one line, the first; the answers and the counter are per request: 1,000
        assertThat(texts()).containsExactly("bad request: volcano predicate: not JSON at line 1, column 1");
        assertThat(registry.get(ServerMetrics.ERRORS).tag("kind", "malformed_json").counter().count()).isEqualTo(1000.0);

        // another kind at the same verb has its own window: a refused caller is written at once
        Endpoints.Admission refused = endpoints.admitNow(predicate, Caller.ANONYMOUS, 1);
        assertThat(refused.refusal().status()).isEqualTo(401);
        assertThat(texts()).last().isEqualTo("volcano predicate: refused 401 from unknown: no bearer token");

        // the loop left the clock at first + 1,000 x 5 ms = first + 5 s; 5 s more is first + 10 s, the window's end:
        // the next bad body is written, with the other 1,000 - 1 = 999 counted
        clock.addAndGet(5 * SECOND);
        endpoints.handle(predicate, body, withToken, null);
        assertThat(texts()).hasSize(3).last().isEqualTo("bad request: volcano predicate: not JSON at line 1, column 1"
                + " (and 999 more like it in the 10 s after the previous one)");

        // a new window after one with nothing held back: written again, with no count
        clock.addAndGet(10 * SECOND);
        endpoints.handle(predicate, body, withToken, null);
        assertThat(texts()).hasSize(4).last().isEqualTo("bad request: volcano predicate: not JSON at line 1, column 1");
    }

    @Test
    void internalErrorsAreThrottledTooAndTheFirstOfEachWindowKeepsItsStackTrace() {
        PrometheusMeterRegistry registry = TestServers.registry();
        Endpoints endpoints = endpoints(registry);
        Endpoints.Route broken = endpoints.route("/volcano/broken");
        Caller withToken = new Caller(List.of(), Optional.of("t"), "10.0.0.9:4242");
        for (int i = 0; i < 3; i++) {
            Answer a = endpoints.handle(broken, new byte[0], withToken, null);
            assertThat(a.reply().bodyText()).isEqualTo("volcano broken: internal error: java.lang.IllegalStateException: engine bug\n");
        }
        clock.addAndGet(10 * SECOND);
        endpoints.handle(broken, new byte[0], withToken, null);
        // 3 in the first window: 1 written, 3 - 1 = 2 counted in the second's line
        assertThat(texts()).containsExactly(
                "volcano broken: internal error: java.lang.IllegalStateException: engine bug",
                "volcano broken: internal error: java.lang.IllegalStateException: engine bug"
                        + " (and 2 more like it in the 10 s after the previous one)");
        assertThat(lines).allSatisfy(l -> assertThat(l.thrown()).isInstanceOf(IllegalStateException.class)
                .hasMessage("engine bug"));
        assertThat(registry.get(ServerMetrics.ERRORS).tag("kind", "internal").counter().count()).isEqualTo(4.0);
        assertThat(lines).extracting(Line::level).containsOnly(Level.WARN);
    }
}
