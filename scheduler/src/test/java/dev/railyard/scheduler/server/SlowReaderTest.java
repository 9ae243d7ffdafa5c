package dev.railyard.scheduler.server;

import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.WireReply;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

/**
 * Clients that do not take their replies (docs/hostile-input.md, "HTTP framing"): a reply the client does not read
 * within the request-read timeout of being sent is given up and the connection closed, so a caller that never reads
 * cannot hold a connection, its reply and the reply's buffers for ever.
 */
class SlowReaderTest {
    /** Larger than any socket buffer on the path (loopback autotunes a send buffer to at most 4 MiB, tcp_wmem). */
    private static final int BIG_REPLY = 32 << 20;
    private ExtenderServer server;
    private PrometheusMeterRegistry registry;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** Request-read timeout 1 s, idle 60 s (so only the reply's deadline can close a connection in these tests). */
    private void start() throws Exception {
        start(Duration.ofSeconds(1), RequestBodyBudget.fromHeap());
    }

    private void start(Duration requestRead, RequestBodyBudget budget) throws Exception {
        registry = TestServers.registry();
        Map<String, VerbHandler> routes = new LinkedHashMap<>();
        byte[] big = new byte[BIG_REPLY];
        java.util.Arrays.fill(big, (byte) 'x');
        routes.put("/t/big", VerbHandler.onIoThread(body -> new WireReply(200, "text/plain", big)));
        routes.put("/t/bigOffLoop", body -> new WireReply(200, "text/plain", big));
        routes.put("/t/echo", VerbHandler.onIoThread(body -> WireReply.text(200, "got " + body.length)));
        server = ExtenderServer.start(new ServerSettings(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                1 << 20, null, new ConnectionTimeouts(requestRead, Duration.ofSeconds(60), 10), null, budget),
                routes, ReadinessProbe.always(), registry);
    }

    private Socket connect(boolean smallWindow) throws IOException {
        Socket s = new Socket();
        if (smallWindow) {
            s.setReceiveBufferSize(4096); // before connect, so the window stays small
        }
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()));
        return s;
    }

    /** Reads until the server ends the stream; fails if it stays open with nothing to read for 10 s. */
    private static long drain(Socket s) throws IOException {
        s.setSoTimeout(10_000);
        InputStream in = s.getInputStream();
        byte[] buf = new byte[1 << 16];
        long total = 0;
        try {
            int n;
            while ((n = in.read(buf)) >= 0) {
                total += n;
            }
        } catch (SocketTimeoutException e) {
            fail("the server kept the connection open with nothing to send after " + total + " bytes");
        } catch (SocketException e) {
            assertThat(e.getMessage()).containsIgnoringCase("reset");
        }
        return total;
    }

    @Test
    void aReplyTheClientNeverReadsIsGivenUpAndTheConnectionClosed() throws Exception {
        start();
        for (String path : new String[]{"/t/big", "/t/bigOffLoop"}) {
            try (Socket s = connect(true)) {
                s.getOutputStream().write(("POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
                        .getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                Thread.sleep(3000); // three times the 1 s deadline, reading nothing
                long got = drain(s);
                // before the deadline existed: the whole reply (32 MiB + head) arrived once the client read, and the
                // connection stayed open for the next request
                assertThat(got).as(path).isGreaterThan(0).isLessThan(BIG_REPLY);
            }
        }
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(registry.scrape()).contains(
                "railyard_extender_errors_total{kind=\"slow_reader\",protocol=\"t\",verb=\"big\"} 1.0",
                "railyard_extender_errors_total{kind=\"slow_reader\",protocol=\"t\",verb=\"bigOffLoop\"} 1.0"));
    }

    @Test
    void aClientThatReadsItsLargeReplyGetsItWholeAndKeepsTheConnection() throws Exception {
        start();
        try (Socket s = connect(false)) {
            s.setSoTimeout(10_000);
            for (int i = 0; i < 2; i++) {
                // 32 MiB at loopback speed takes well under the 1 s deadline: the deadline is for a reply not
                // taken, not for a large one
                var r = TestServers.exchange(s, "POST", "/t/big", "{}".getBytes(StandardCharsets.US_ASCII), 2);
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).hasSize(BIG_REPLY);
            }
            assertThat(TestServers.exchange(s, "GET", "/healthz", null, -1).body()).isEqualTo("ok\n");
        }
    }

    @Test
    void aReplyNotTakenCountsAgainstTheBodyBudgetUntilItIsGivenUp() throws Exception {
        // 16 MiB of budget; a 32 MiB reply the client does not read is charged the whole budget (a charge is capped
        // at the budget, as a body's share is), so a request needing any share waits its 0.5 s and gets the 429
        // until the reply is given up 3 s after it was sent
        RequestBodyBudget budget = new RequestBodyBudget(16 << 20, RequestBodyBudget.DEFAULT_WAIT);
        start(Duration.ofSeconds(3), budget);
        byte[] two = "{}".getBytes(StandardCharsets.US_ASCII);
        try (Socket stalled = connect(true); Socket other = connect(false)) {
            other.setSoTimeout(10_000);
            stalled.getOutputStream().write("POST /t/big HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
                    .getBytes(StandardCharsets.US_ASCII));
            stalled.getOutputStream().flush();
            await().atMost(Duration.ofSeconds(2)).until(() -> budget.bytesInFlight() == 16L << 20);
            var busy = TestServers.exchange(other, "POST", "/t/echo", two, 2);
            // before unwritten replies were charged: 200 "got 2", with 32 MiB held outside any bound
            assertThat(busy.status()).isEqualTo(429);
            assertThat(busy.header("Retry-After")).isEqualTo("1");
            // given up 3 s after it was sent, still unread: the charge is returned and the reply cut
            await().atMost(Duration.ofSeconds(10)).until(() -> budget.bytesInFlight() == 0);
            assertThat(drain(stalled)).isLessThan(BIG_REPLY);
        }
        try (Socket s = connect(false)) {
            s.setSoTimeout(10_000);
            assertThat(TestServers.exchange(s, "POST", "/t/echo", two, 2).body()).isEqualTo("got 2\n");
        }
    }
}
