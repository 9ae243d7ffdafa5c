package dev.railyard.scheduler.server;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A reply that closes the connection before the request's body is read to its end (413 on a chunked body over the
 * limit) must reach a client that is still writing (RFC 9112 §9.6): the server half-closes and drops what follows
 * for at most {@link LingeringClose#TIME} and {@link LingeringClose#BYTES}. Before, the server closed at once, and a
 * client's next write got "broken pipe" (seen as a flake of the JDK HttpClient test in ExtenderServerTest).
 */
class LingeringCloseTest {
    private static final String HEAD = "POST /kube/filter HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
    private final PrometheusMeterRegistry registry = TestServers.registry();
    private ExtenderServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private Socket startAndSendOverTheLimit() throws Exception {
        server = TestServers.start(1024, () -> Optional.empty(), registry, Map.of(), null);
        Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port());
        s.setSoTimeout(10_000);
        OutputStream out = s.getOutputStream();
        out.write(HEAD.getBytes(StandardCharsets.US_ASCII));
        out.write(chunk(2048));
        out.flush();
        TestServers.Response r = TestServers.read(s.getInputStream());
        assertThat(r.status()).isEqualTo(413);
        assertThat(r.header("Connection")).isEqualTo("close");
        assertThat(r.body()).isEqualTo("kube filter: request body is over the limit of 1024 bytes\n");
        return s;
    }

    @Test
    void aClientStillWritingItsBodyAfterThe413IsNotReset() throws Exception {
        try (Socket s = startAndSendOverTheLimit()) {
            OutputStream out = s.getOutputStream();
            // without the lingering close the first write after the server's close draws a TCP reset and the
            // second one fails with "broken pipe"
            for (int i = 0; i < 3; i++) {
                Thread.sleep(150);
                out.write(chunk(2048));
                out.flush();
            }
            out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            // the server half-closed after its reply: end of stream, not a reset
            assertThat(s.getInputStream().read()).isEqualTo(-1);
        }
    }

    @Test
    void aClientThatNeverStopsIsClosedAfterTheLingerTime() throws Exception {
        try (Socket s = startAndSendOverTheLimit()) {
            long start = System.nanoTime();
            OutputStream out = s.getOutputStream();
            assertThatThrownBy(() -> {
                while (System.nanoTime() - start < 10_000_000_000L) {
                    out.write(chunk(16));
                    out.flush();
                    Thread.sleep(50);
                }
            }).isInstanceOf(IOException.class);
            double seconds = (System.nanoTime() - start) / 1e9;
            // closed by the 2 s linger time (timer armed when the reply was written, just before it was read here),
            // not earlier, and not at the 10 s this loop would run
            assertThat(seconds).isBetween(LingeringClose.TIME.toMillis() / 1000.0 - 0.5, 8.0);
        }
    }

    @Test
    void aClientSendingMoreThanTheLingerBytesIsClosedAtOnce() throws Exception {
        try (Socket s = startAndSendOverTheLimit()) {
            long start = System.nanoTime();
            OutputStream out = s.getOutputStream();
            byte[] piece = chunk(64 * 1024);
            assertThatThrownBy(() -> {
                for (long sent = 0; sent < 8 * LingeringClose.BYTES; sent += piece.length) {
                    out.write(piece);
                    out.flush();
                }
                Thread.sleep(LingeringClose.TIME.toMillis() * 3);
                out.write(piece);
            }).isInstanceOf(IOException.class);
            // closed by the byte cap, well before the linger time would have closed it
            assertThat((System.nanoTime() - start) / 1e9).isLessThan(LingeringClose.TIME.toMillis() / 1000.0);
        }
    }

    /** One HTTP chunk of {@code size} spaces (RFC 9112 §7.1: hex size, CRLF, data, CRLF). */
    private static byte[] chunk(int size) {
        return (Integer.toHexString(size) + "\r\n" + " ".repeat(size) + "\r\n").getBytes(StandardCharsets.US_ASCII);
    }
}
