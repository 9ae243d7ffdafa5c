package dev.railyard.scheduler.server;

import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * RFC 9112 §3.2: 400 for an HTTP/1.1 request without Host, for more than one Host, and for a Host value that is not
 * RFC 3986's {@code uri-host [":" port]} (an empty value is allowed: a URI without an authority).
 */
class HostHeaderTest {
    private static HttpRequest request(HttpVersion version, String... hosts) {
        HttpRequest r = new DefaultHttpRequest(version, HttpMethod.POST, "/volcano/predicate");
        for (String h : hosts) {
            r.headers().add("Host", h);
        }
        return r;
    }

    @Test
    void hostsASchedulerSendsAreServed() {
        // Go's net/http writes the URL's host[:port]: an IP, a service DNS name, a bracketed IPv6 literal
        for (String h : new String[]{"127.0.0.1", "127.0.0.1:8888", "railyard.railyard-system.svc:8888", "[::1]:8443",
                "[fe80::1%25eth0]", "localhost:", ""}) {
            assertThat(HttpFraming.hostProblem(request(HttpVersion.HTTP_1_1, h))).as(h).isNull();
        }
        assertThat(HttpFraming.hostProblem(request(HttpVersion.HTTP_1_0))).isNull();
    }

    @Test
    void missingDoubledAndInvalidHostsAreRefused() {
        assertThat(HttpFraming.hostProblem(request(HttpVersion.HTTP_1_1)))
                .isEqualTo("no Host header: an HTTP/1.1 request must have one (RFC 9112 section 3.2)");
        assertThat(HttpFraming.hostProblem(request(HttpVersion.HTTP_1_0, "a", "b")))
                .isEqualTo("2 Host headers: send exactly one (RFC 9112 section 3.2)");
        for (String h : new String[]{"a b", "a, b", "x/y", "host:80a", "[::1", "\"q\"", "a@b"}) {
            assertThat(HttpFraming.hostProblem(request(HttpVersion.HTTP_1_1, h))).as(h)
                    .isEqualTo("Host header \"" + h + "\" is not a host[:port] (RFC 9112 section 3.2)");
        }
    }
}
