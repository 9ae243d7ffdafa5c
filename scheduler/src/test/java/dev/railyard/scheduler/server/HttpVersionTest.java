package dev.railyard.scheduler.server;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The request line's version as RFC 9112 §2.3 writes it ({@code HTTP-name "/" DIGIT "." DIGIT}, HTTP-name
 * {@code %x48.54.54.50}, case-sensitive), which Netty's {@code HttpVersion.valueOf} does not check: 400 for a token
 * outside the grammar, 505 for a major version other than 1 (RFC 9110 §15.6.6), one line and the connection
 * closed; HTTP/1.0, HTTP/1.1 and another minor version of 1 (RFC 9110 §2.5) served.
 */
class HttpVersionTest {
    /** HttpFraming.versionRefusal's 400 reason for a token that is not HTTP/DIGIT.DIGIT. */
    private static String notTheGrammar(String version) {
        return "malformed request: HTTP version \"" + version + "\" is not HTTP/<digit>.<digit>"
                + " (RFC 9112 section 2.3: the version is case-sensitive)";
    }

    @Test
    void versionTokensAreCheckedAsSent() {
        for (String served : new String[]{"HTTP/1.1", "HTTP/1.0", "HTTP/1.2", "HTTP/1.9"}) {
            assertThat(HttpFraming.versionRefusal(served)).as(served).isNull();
        }
        // Netty's HttpVersion.valueOf upper-cases and takes any name and digits: it serves each of these as HTTP/1.x
        for (String bad : new String[]{"http/1.1", "Http/1.0", "HTTP/1.1x", "HTTP/1.01", "HTTP/10.1", "FOO/1.1",
                "HTTP/1", "HTTP/1.", "HTTP/.1", "HTTP/1,1", "HTTP 1.1", "HTTP/a.b", "HTTP/1.1 ", "HTTP/\u0661.1"}) {
            HttpFraming.VersionRefused r = HttpFraming.versionRefusal(bad);
            assertThat(r).as(bad).isNotNull();
            assertThat(r.status).as(bad).isEqualTo(400);
            assertThat(r.getMessage()).as(bad).isEqualTo(notTheGrammar(bad));
        }
        assertThat(HttpFraming.versionRefusal("").getMessage())
                .isEqualTo("malformed request: the request line has no HTTP version (HTTP/0.9 is not served)");
        for (String unsupported : new String[]{"HTTP/2.0", "HTTP/3.0", "HTTP/0.9"}) {
            HttpFraming.VersionRefused r = HttpFraming.versionRefusal(unsupported);
            assertThat(r.status).as(unsupported).isEqualTo(505);
            assertThat(r.getMessage()).as(unsupported)
                    .isEqualTo(unsupported + " is not supported: send HTTP/1.1 (RFC 9110 section 15.6.6)");
        }
        // control characters in the token are escaped, never copied into the one-line reason
        assertThat(HttpFraming.versionRefusal("HTTP/1\u001b1").getMessage()).isEqualTo(notTheGrammar("HTTP/1\\u001b1"));
    }

    final PrometheusMeterRegistry registry = TestServers.registry();
    ExtenderServer server;

    @BeforeEach
    void start() throws Exception {
        server = TestServers.start(1 << 20, Optional::empty, registry, Map.of(), null);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    /** Sends the bytes on a new connection; reads one response and then whether the server closed. */
    private Outcome send(String request) throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            s.setSoTimeout(5000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            TestServers.Response r = TestServers.read(in);
            return new Outcome(r, in.read() < 0);
        }
    }

    record Outcome(TestServers.Response response, boolean closed) {
    }

    @Test
    void aVersionOutsideTheGrammarIs400AndClosed() throws Exception {
        for (String version : new String[]{"http/1.1", "HTTP/1.1x", "Http/1.0", "HTTP/1.01"}) {
            Outcome o = send("GET /healthz " + version + "\r\nHost: 127.0.0.1\r\n\r\n");
            assertThat(o.response().status()).as(version).isEqualTo(400);
            assertThat(o.response().body()).as(version).isEqualTo(notTheGrammar(version) + "\n");
            assertThat(o.response().header("Connection")).as(version).isEqualTo("close");
            assertThat(o.closed()).as(version).isTrue();
        }
        // 4 refused, each counted once
        assertThat(registry.get(ServerMetrics.ERRORS).tag("kind", "malformed_request").counter().count()).isEqualTo(4.0);
    }

    @Test
    void anotherMajorVersionIs505AndClosed() throws Exception {
        Outcome h2 = send("POST /volcano/predicate HTTP/2.0\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}");
        assertThat(h2.response().status()).isEqualTo(505);
        assertThat(h2.response().body()).isEqualTo("HTTP/2.0 is not supported: send HTTP/1.1 (RFC 9110 section 15.6.6)\n");
        assertThat(h2.response().header("Connection")).isEqualTo("close");
        assertThat(h2.closed()).isTrue();
        // an HTTP/2 client with prior knowledge opens with this preface (RFC 9113 §3.4)
        Outcome preface = send("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
        assertThat(preface.response().status()).isEqualTo(505);
        assertThat(preface.response().body()).isEqualTo("HTTP/2.0 is not supported: send HTTP/1.1 (RFC 9110 section 15.6.6)\n");
        assertThat(preface.closed()).isTrue();
        // 2 refused, each counted once
        assertThat(registry.get(ServerMetrics.ERRORS).tag("kind", "unsupported_version").counter().count())
                .isEqualTo(2.0);
    }

    @Test
    void http10And11AndAHigherMinorVersionAreServed() throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            s.setSoTimeout(5000);
            // kept alive: HTTP/1.1, then HTTP/1.2 (served as 1.1, RFC 9110 §2.5) on the same connection
            for (String version : new String[]{"HTTP/1.1", "HTTP/1.2"}) {
                s.getOutputStream().write(("GET /healthz " + version + "\r\nHost: 127.0.0.1\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                TestServers.Response r = TestServers.read(s.getInputStream());
                assertThat(r.status()).as(version).isEqualTo(200);
                assertThat(r.body()).as(version).isEqualTo("ok\n");
            }
        }
        // HTTP/1.0 needs no Host (RFC 9112 §3.2)
        Outcome old = send("GET /healthz HTTP/1.0\r\n\r\n");
        assertThat(old.response().status()).isEqualTo(200);
        assertThat(old.response().body()).isEqualTo("ok\n");
    }
}
