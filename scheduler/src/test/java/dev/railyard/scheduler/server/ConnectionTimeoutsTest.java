package dev.railyard.scheduler.server;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

/**
 * Request-read and idle timeouts on the real server. The server runs in a JVM of its own
 * ({@link TimeoutServerMain}) with a 1 s request-read timeout and a 2 s idle timeout, away from the test JVM's
 * other servers.
 *
 * <p>The checks are about behaviour, with wide margins: a connection is still open well before its timeout, and
 * closed by the server well after it.
 */
class ConnectionTimeoutsTest {
    /** Well before either timeout: the connection must still be open. */
    private static final int STILL_OPEN_MS = 300;
    /** Far past either timeout plus the timer ticks: the connection must be closed by then. */
    private static final int CLOSED_WITHIN_MS = 10_000;

    static Process child;
    static int port;
    static Path childLog;

    @BeforeAll
    static void startServerInItsOwnJvm() throws Exception {
        childLog = Files.createTempFile("railyard-timeout-server", ".log");
        String java = ProcessHandle.current().info().command().orElse("java");
        child = new ProcessBuilder(List.of(java, "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), TimeoutServerMain.class.getName(), "1", "2"))
                .redirectError(childLog.toFile()).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        String line = CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (IOException e) {
                return null;
            }
        }).get(60, TimeUnit.SECONDS);
        if (line == null || !line.startsWith("PORT ")) {
            fail("timeout server did not start; its log:\n" + Files.readString(childLog));
        }
        port = Integer.parseInt(line.substring(5).trim());
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (child != null) {
            child.getOutputStream().close();
            if (!child.waitFor(10, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        }
        Files.deleteIfExists(childLog);
    }

    static Socket connect() throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
        s.setSoTimeout(5000);
        return s;
    }

    static void send(Socket s, String text) throws IOException {
        s.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
    }

    static void assertStillOpen(Socket s) throws IOException {
        s.setSoTimeout(STILL_OPEN_MS);
        assertThatThrownBy(() -> s.getInputStream().read())
                .as("the server must not have closed the connection yet")
                .isInstanceOf(SocketTimeoutException.class);
    }

    /** The server closed the connection: end of stream, or a reset. */
    static void assertClosedByServer(Socket s) throws IOException {
        s.setSoTimeout(CLOSED_WITHIN_MS);
        try {
            int b = s.getInputStream().read();
            assertThat(b).as("end of stream, nothing sent").isEqualTo(-1);
        } catch (SocketTimeoutException e) {
            fail("the server kept the connection open for " + CLOSED_WITHIN_MS + " ms");
        } catch (SocketException e) {
            assertThat(e.getMessage()).containsIgnoringCase("reset");
        }
    }

    @Test
    void halfSentRequestIsClosedWhileAKeepAliveClientKeepsWorking() throws Exception {
        try (Socket loris = connect(); Socket client = connect()) {
            send(loris, "POST /volcano/predicate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le");
            assertStillOpen(loris);
            // Four exchanges 600 ms apart on one connection: 1.8 s in all, longer than the 1 s request-read
            // timeout (which counts per request), each pause shorter than the 2 s idle timeout.
            for (int i = 0; i < 4; i++) {
                var r = TestServers.exchange(client, "GET", "/healthz", null, -1);
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).isEqualTo("ok\n");
                Thread.sleep(600);
            }
            assertClosedByServer(loris);
            client.setSoTimeout(5000);
            var last = TestServers.exchange(client, "POST", "/volcano/onSessionClose", "{}".getBytes(StandardCharsets.UTF_8), 2);
            assertThat(last.status()).isEqualTo(200);
            assertThat(last.body()).isEqualTo("{}");
        }
    }

    @Test
    void stalledBodyIsClosedAndCountedAsClientGone() throws Exception {
        try (Socket stalled = connect()) {
            // complete headers, 10 of the 1,000 declared body bytes, then nothing
            send(stalled, "POST /volcano/predicate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 1000\r\n\r\n{\"task\":{\"");
            assertStillOpen(stalled);
            assertClosedByServer(stalled);
        }
        // ExtenderServer.handle: an IOException while reading the body is counted as kind client_gone; the handler's
        // virtual thread may record it just after the client saw the close
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            try (Socket s = connect()) {
                assertThat(TestServers.exchange(s, "GET", "/metrics", null, -1).body()).contains(
                        "railyard_extender_errors_total{kind=\"client_gone\",protocol=\"volcano\",verb=\"predicate\"} 1.0");
            }
        });
    }

    @Test
    void connectionThatSendsNothingIsClosed() throws Exception {
        try (Socket silent = connect()) {
            assertStillOpen(silent);
            assertClosedByServer(silent);
        }
    }

    @Test
    void idleKeepAliveConnectionIsClosedAfterTheIdleTimeoutNotTheRequestTimeout() throws Exception {
        try (Socket s = connect()) {
            assertThat(TestServers.exchange(s, "GET", "/healthz", null, -1).status()).isEqualTo(200);
            // 1.2 s idle: past the 1 s request-read timeout, short of the 2 s idle timeout
            Thread.sleep(900);
            assertStillOpen(s);
            assertClosedByServer(s);
        }
    }

    @Test
    void outOfRangeOrNegativeValuesAreRefused() {
        assertThatThrownBy(() -> new ConnectionTimeouts(Duration.ofMillis(50), Duration.ofSeconds(2), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("request read timeout must be from 100ms to 24h, got 50 ms");
        assertThatThrownBy(() -> new ConnectionTimeouts(Duration.ofSeconds(1), Duration.ofDays(2), 1))
                .hasMessageStartingWith("idle timeout must be from 100ms to 24h");
        // milliseconds are fine now (the JDK server counted whole seconds)
        assertThat(new ConnectionTimeouts(Duration.ofMillis(1500), Duration.ofMillis(100), 1).describe())
                .isEqualTo("request read 1500ms, idle 100ms, 1 idle connections at most");
        assertThatThrownBy(() -> new ConnectionTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(1), -1))
                .hasMessage("max idle connections must be >= 0, got -1");
    }

    @Test
    void twoListenersOfOneProcessKeepTheirOwnTimeouts() throws Exception {
        // The JDK server read its timeouts once per process (a second listener with other values was refused); each
        // Netty listener has its own timers: 500 ms idle here, 5 s there, in this test JVM.
        var registry = TestServers.registry();
        var routes = TestServers.routes(new dev.railyard.scheduler.protocol.NeutralPlacementDecisions(50, "test"), registry);
        var lo = new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        try (ExtenderServer quick = ExtenderServer.start(new ServerSettings(lo, 1 << 20, null,
                new ConnectionTimeouts(Duration.ofSeconds(2), Duration.ofMillis(500), 10)), routes, ReadinessProbe.always(), registry);
             ExtenderServer patient = ExtenderServer.start(new ServerSettings(lo, 1 << 20, null,
                     new ConnectionTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(5), 10)), routes, ReadinessProbe.always(),
                     TestServers.registry());
             Socket a = new Socket(InetAddress.getLoopbackAddress(), quick.port());
             Socket b = new Socket(InetAddress.getLoopbackAddress(), patient.port())) {
            a.setSoTimeout(5000);
            b.setSoTimeout(5000);
            assertThat(TestServers.exchange(a, "GET", "/healthz", null, -1).status()).isEqualTo(200);
            assertThat(TestServers.exchange(b, "GET", "/healthz", null, -1).status()).isEqualTo(200);
            long t0 = System.nanoTime();
            assertClosedByServer(a); // idle 500 ms: closed well before the other listener's 5 s
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(4));
            assertStillOpen(b);
            assertThat(TestServers.exchange(b, "GET", "/healthz", null, -1).status()).isEqualTo(200);
        }
    }
}
