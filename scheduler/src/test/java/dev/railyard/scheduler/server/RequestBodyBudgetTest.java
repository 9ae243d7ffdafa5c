package dev.railyard.scheduler.server;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The request-body budget: many bodies under the per-request limit at once must not fill the heap.
 *
 * <p>The race runs against a real server in a child JVM of {@value #HEAP_MIB} MiB heap that exits on
 * {@code OutOfMemoryError}, with a 64 MiB request limit and the default budget (a quarter of the heap, 40 MiB).
 * {@value #CLIENTS} clients each send all but the last KiB of a {@value #BODY_MIB} MiB body, then wait for each other:
 * without the budget the server holds 8 x 24 MiB = 192 MiB of bodies at once and dies (checked: it does on main
 * before this change). With it, one body gets its share, every other request waits 0.5 s and is answered 429 (or its
 * connection is closed mid-send, the client seeing the reset first), the admitted body finishes with 200, and the
 * server answers /healthz afterwards.
 */
class RequestBodyBudgetTest {
    static final int HEAP_MIB = 160;
    static final int CLIENTS = 8;
    static final int BODY_MIB = 24;
    static ChildServer child;
    static int port;
    static Path log;

    @BeforeAll
    static void start() throws Exception {
        child = ChildServer.start("body-budget-server", List.of("-Xmx" + HEAP_MIB + "m", "-XX:+ExitOnOutOfMemoryError",
                "-XX:TieredStopAtLevel=1"), TimeoutServerMain.class, "15", "30", Long.toString(64L << 20));
        port = child.port();
        log = child.log();
    }

    @AfterAll
    static void stop() throws Exception {
        if (child != null) {
            child.close();
        }
    }

    @Test
    void concurrentBigBodiesGet200Or429AndTheServerLives() throws Exception {
        int size = BODY_MIB << 20;
        long busyBefore = busyCount(metrics());
        CyclicBarrier allSent = new CyclicBarrier(CLIENTS);
        List<Future<Integer>> outcomes = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(CLIENTS)) {
            for (int i = 0; i < CLIENTS; i++) {
                outcomes.add(pool.submit(() -> bigRequest(size, allSent)));
            }
            List<Integer> statuses = new ArrayList<>();
            for (Future<Integer> f : outcomes) {
                statuses.add(f.get(120, TimeUnit.SECONDS));
            }
            assertThat(child.process().isAlive()).as("server alive (log: %s)", log).isTrue();
            // one share fits in the 40 MiB budget; it is held until all clients got past their send
            assertThat(statuses).as("statuses (-1: connection closed mid-send)").isSubsetOf(200, 429, -1);
            assertThat(statuses.stream().filter(s -> s == 200).count()).isEqualTo(1);
        }
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            assertThat(TestServers.exchange(s, "GET", "/healthz", null, -1).status()).isEqualTo(200);
        }
        String metrics = metrics();
        assertThat(busyCount(metrics) - busyBefore).as("429s counted in railyard_extender_errors_total{kind=busy}")
                .isEqualTo(CLIENTS - 1);
        assertThat(metrics).contains("railyard_extender_request_body_budget_bytes " + (double) ((HEAP_MIB << 20) / 4));
    }

    private static String metrics() throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return TestServers.exchange(s, "GET", "/metrics", null, -1).body();
        }
    }

    /** A 429 is read whole, with Retry-After and a one-line reason naming the flag. */
    @Test
    void refusalCarriesRetryAfterAndOneLineReason() throws Exception {
        // hold a share of 40 MiB (the whole budget) by declaring 60 MiB and sending nothing, then ask again
        try (Socket holder = new Socket(InetAddress.getLoopbackAddress(), port);
             Socket second = new Socket(InetAddress.getLoopbackAddress(), port)) {
            holder.getOutputStream().write(head(60 << 20));
            holder.getOutputStream().flush();
            // the holder must hold its share before the second asks: with one event loop per core the two
            // connections may be served by different loops, so the order of arrival alone does not say it
            long until = System.nanoTime() + 10_000_000_000L;
            String held = "railyard_extender_request_body_in_flight_bytes " + (double) ((HEAP_MIB << 20) / 4);
            while (!metrics().contains(held) && System.nanoTime() < until) {
                Thread.sleep(20);
            }
            second.setSoTimeout(10_000);
            second.getOutputStream().write(head(1 << 20));
            second.getOutputStream().flush();
            String reply = new String(second.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            // header names are case-insensitive (RFC 9110 §5.1); the JDK server wrote "Retry-after", Netty as given
            assertThat(reply).startsWith("HTTP/1.1 429 ").containsIgnoringCase("\r\nRetry-After: 1\r\n");
            String body = reply.substring(reply.indexOf("\r\n\r\n") + 4).stripTrailing();
            assertThat(body).startsWith("volcano prioritize: server busy: request bodies in flight fill the budget of "
                    + ((HEAP_MIB << 20) / 4) + " bytes (serve --request-bytes-in-flight)").doesNotContain("\n");
        }
    }

    /** A declared length over the limit with no body: 413 and the connection closed at once, not at the read timeout. */
    @Test
    void declaredLengthOverTheLimitIsRefusedAtOnce() throws Exception {
        for (String declared : List.of("99999999999", Long.toString(1L << 30))) {
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                s.setSoTimeout(10_000);
                long t0 = System.nanoTime();
                s.getOutputStream().write(("POST /volcano/prioritize HTTP/1.1\r\nHost: x\r\nContent-Length: " + declared
                        + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                String reply = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
                Duration took = Duration.ofNanos(System.nanoTime() - t0);
                assertThat(reply).startsWith("HTTP/1.1 413 ").contains("request body of " + declared + " bytes");
                // the child's request-read timeout is 15 s: closed well before it
                assertThat(took).as("413 and close for Content-Length %s", declared).isLessThan(Duration.ofSeconds(5));
            }
        }
    }

    @Test
    void budgetRejectsNonsense() {
        assertThatThrownBy(() -> new RequestBodyBudget(10, Duration.ZERO)).hasMessageContaining("1Ki..2Ti");
        assertThat(RequestBodyBudget.defaultBytes(400L << 20)).isEqualTo(100L << 20);
        assertThat(RequestBodyBudget.defaultBytes(32L << 20)).isEqualTo(16L << 20);
    }

    private static byte[] head(long length) {
        return ("POST /volcano/prioritize HTTP/1.1\r\nHost: x\r\nContent-Length: " + length + "\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1);
    }

    /**
     * Sends all but the captured prioritize body, waits for every client, sends it; the status, or -1 if the server
     * closed the connection.
     */
    private static int bigRequest(int size, CyclicBarrier allSent) throws Exception {
        byte[] tail = Files.readAllBytes(Path.of("src/test/resources/wire/captured/volcano/prioritize-v1.14.1.json"));
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(60_000);
            OutputStream out = s.getOutputStream();
            boolean sent = true;
            try {
                out.write(head(size));
                // whitespace before a JSON value is valid JSON (RFC 8259 §2): a valid prioritize body of 24 MiB
                byte[] chunk = new byte[1 << 20];
                Arrays.fill(chunk, (byte) ' ');
                for (int left = size - tail.length; left > 0; left -= chunk.length) {
                    out.write(chunk, 0, Math.min(left, chunk.length));
                }
            } catch (IOException e) {
                sent = false; // the server answered 429 and closed while we were sending
            }
            allSent.await(60, TimeUnit.SECONDS);
            try {
                if (sent) {
                    out.write(tail);
                    out.flush();
                }
                return status(s.getInputStream());
            } catch (IOException e) {
                return -1;
            }
        }
    }

    private static int status(InputStream in) throws IOException {
        byte[] head = in.readNBytes(12);
        if (head.length < 12) {
            return -1;
        }
        return Integer.parseInt(new String(head, 9, 3, StandardCharsets.ISO_8859_1));
    }

    private static long busyCount(String metrics) {
        Matcher m = Pattern.compile("(?m)^railyard_extender_errors_total\\{[^}]*kind=\"busy\"[^}]*} ([0-9.]+)$")
                .matcher(metrics);
        double sum = 0;
        while (m.find()) {
            sum += Double.parseDouble(m.group(1));
        }
        return (long) sum;
    }
}
