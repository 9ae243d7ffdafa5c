package dev.railyard.scheduler.server;

import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The listener's connection caps: found by an attacker review, where 350 silent connections under
 * {@code prlimit --nofile=300} used up the descriptors, {@code /healthz} could not be reached and Netty logged
 * "Too many open files" every second.
 */
class ConnectionCapsTest {
    private static InetAddress ip(String s) throws Exception {
        return InetAddress.getByName(s);
    }

    @Test
    void eachPeerAndAllTogetherAreCappedAndAClosedConnectionFreesItsPlace() throws Exception {
        ConnectionCaps caps = new ConnectionCaps(2, 3);
        InetAddress a = ip("10.0.0.1");
        InetAddress b = ip("10.0.0.2");

        assertThat(caps.take(a)).isTrue();
        assertThat(caps.take(a)).isTrue();
        assertThat(caps.take(a)).as("a third from one peer").isFalse();
        assertThat(caps.take(b)).isTrue();
        assertThat(caps.take(ip("10.0.0.3"))).as("a fourth in all").isFalse();
        assertThat(caps.open()).isEqualTo(3);

        caps.release(a);
        assertThat(caps.take(ip("10.0.0.3"))).isTrue();
        assertThat(caps.take(a)).as("a still has 1 of 2, but all 3 places are taken").isFalse();
        caps.release(b);
        assertThat(caps.take(a)).isTrue();
        assertThat(caps.open()).isEqualTo(3);
        assertThat(caps.describe()).isEqualTo("2 connections per peer address and 3 in all at most");
        assertThatThrownBy(() -> new ConnectionCaps(0, 3)).hasMessage("connection caps must be > 0, got 0 and 3");
    }

    @Test
    void theDefaultsFollowTheDescriptorLimit() {
        ConnectionCaps caps = ConnectionCaps.fromProcessLimits();
        // at most 256 per peer and 16,384 in all; never more than three quarters of the descriptors (this JVM's
        // limit is at least 1,024 on any machine that builds the project)
        assertThat(caps.describe()).matches("\\d+ connections per peer address and \\d+ in all at most");
        assertThat(caps.describe()).startsWith(ConnectionCaps.DEFAULT_PER_PEER + " connections per peer");
    }

    @Test
    void aServerClosesTheConnectionBeyondThePerPeerCapAndServesAgainOnceOneCloses() throws Exception {
        var registry = TestServers.registry();
        try (ExtenderServer server = TestServers.start(1 << 20, ReadinessProbe.always(), registry, Map.of(), null)) {
            List<Socket> held = new ArrayList<>();
            try {
                for (int i = 0; i < ConnectionCaps.DEFAULT_PER_PEER; i++) {
                    held.add(new Socket(InetAddress.getLoopbackAddress(), server.port()));
                }
                // the 257th from 127.0.0.1: accepted by the kernel, closed by the server before it reads a byte
                try (Socket over = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
                    over.setSoTimeout(5000);
                    InputStream in = over.getInputStream();
                    assertThat(in.read()).isEqualTo(-1);
                }
                held.removeFirst().close();
                try (Socket again = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
                    again.setSoTimeout(5000);
                    // the closed one's place is given back when its close is seen: retry briefly
                    long deadline = System.nanoTime() + 5_000_000_000L;
                    int status = -1;
                    Socket s = again;
                    while (status != 200 && System.nanoTime() < deadline) {
                        try {
                            status = TestServers.exchange(s, "GET", "/healthz", null, -1).status();
                        } catch (java.io.IOException | AssertionError e) {
                            Thread.sleep(50);
                            s = new Socket(InetAddress.getLoopbackAddress(), server.port());
                            s.setSoTimeout(5000);
                            held.add(s); // closed with the others
                        }
                    }
                    assertThat(status).isEqualTo(200);
                }
                assertThat(registry.scrape()).contains("railyard_extender_connections_refused_total{port=\""
                        + server.port() + "\"}");
            } finally {
                for (Socket s : held) {
                    s.close();
                }
            }
        }
    }
}
