package dev.railyard.scheduler.server;

import dev.railyard.scheduler.access.ClientCertificateRequired;
import dev.railyard.scheduler.protocol.NeutralPlacementDecisions;
import dev.railyard.scheduler.protocol.WireResources;
import dev.railyard.scheduler.protocol.kube.Binder;
import dev.railyard.scheduler.protocol.kube.KubeExtender;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The secure listener of the kube-scheduler verbs: HTTPS whose clients must present a certificate from the client
 * CA. With one, the verbs answer as usual; without one, or with one from another CA, expired, or not for client
 * authentication, 401 with a reason before the body is read (the handshake itself accepts any chain, as
 * kube-apiserver's does); plain HTTP gets no answer.
 */
class SecureListenerTest {
    @TempDir
    static Path dir;
    static TestPki pki;
    static TestPki stranger;
    static ExtenderServer server;
    static final io.micrometer.prometheusmetrics.PrometheusMeterRegistry registry = TestServers.registry();

    @BeforeAll
    static void start() throws Exception {
        pki = TestPki.create(dir.resolve("pki"), "railyard-test");
        stranger = TestPki.create(dir.resolve("other"), "someone-else");
        var kube = new KubeExtender(new NeutralPlacementDecisions(50, "test"), Binder.unwired(), 50,
                TestServers.registry()).verbs();
        ServerSettings s = new ServerSettings(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1 << 20,
                new TlsSettings.Pem(pki.serverCert(), pki.serverKey()), ConnectionTimeouts.DEFAULTS,
                new ClientCertificateAuthority(pki.caFile()));
        server = ExtenderServer.start(s, ExtenderServer.mount(KubeExtender.PREFIX,
                ClientCertificateRequired.wrap("kube", kube)), java.util.Optional::empty, registry);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static HttpResponse<String> post(SSLContext ctx, String path, byte[] body) throws Exception {
        try (HttpClient http = HttpClient.newBuilder().sslContext(ctx).connectTimeout(Duration.ofSeconds(5)).build()) {
            return http.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.port() + path))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    @Test
    void aClientCertificateFromTheClientCaIsServed() throws Exception {
        var r = post(TestPki.clientContext(pki, pki), "/kube/filter", WireResources.load("kube/filter-nodenames.json"));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"NodeNames\":[");
    }

    @Test
    void noClientCertificateIsRefusedWith401AndAReason() throws Exception {
        for (String verb : new String[]{"filter", "prioritize", "bind"}) {
            var r = post(TestPki.clientContext(pki, null), "/kube/" + verb, WireResources.load("kube/bind.json"));
            assertThat(r.statusCode()).as(verb).isEqualTo(401);
            assertThat(r.body().strip()).isEqualTo("kube " + verb + ": a client certificate signed by the client CA is "
                    + "required (kube-scheduler extender tlsConfig certFile/keyFile; docs/serve.md)");
        }
    }

    @Test
    void aCertificateFromAnotherCaIsRefusedWith401AndAReason() throws Exception {
        // a well-behaved client (JDK, Go) sends no certificate the server's CA list does not name: 401, none sent
        var r = post(TestPki.clientContext(pki, stranger), "/kube/bind", WireResources.load("kube/bind.json"));
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.body()).contains("a client certificate signed by the client CA is required");
        // one that sends it anyway gets through the handshake (it proves it holds the key) and is refused per
        // request, as kube-apiserver's x509 authenticator does, on every deciding verb
        double before = unauthenticated();
        for (String verb : new String[]{"filter", "prioritize", "bind"}) {
            var forced = post(TestPki.clientContext(pki, stranger, true), "/kube/" + verb,
                    WireResources.load("kube/bind.json"));
            assertThat(forced.statusCode()).as(verb).isEqualTo(401);
            assertThat(forced.headers().firstValue("Connection")).as(verb).contains("close");
            assertThat(forced.body().strip()).as(verb).isEqualTo("kube " + verb + ": client certificate "
                    + "\"CN=kube-scheduler\" does not verify against the client CA: its issuer \"CN=someone-else-ca\" "
                    + "is not a CA of the bundle (kube-scheduler extender tlsConfig certFile/keyFile; docs/serve.md)");
        }
        assertThat(unauthenticated() - before).isEqualTo(3.0);
    }

    @Test
    void anExpiredCertificateFromTheClientCaIsRefusedWith401() throws Exception {
        Instant notAfter = Instant.now().minus(Duration.ofDays(1)).truncatedTo(ChronoUnit.SECONDS);
        var expired = pki.issueClient("CN=kube-scheduler", notAfter.minus(Duration.ofDays(30)), notAfter,
                KeyPurposeId.id_kp_clientAuth);
        var r = post(TestPki.clientContext(pki, expired, false), "/kube/filter",
                WireResources.load("kube/filter-nodenames.json"));
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.body().strip()).isEqualTo("kube filter: client certificate \"CN=kube-scheduler\" does not verify "
                + "against the client CA: it expired at " + notAfter
                + " (kube-scheduler extender tlsConfig certFile/keyFile; docs/serve.md)");
    }

    @Test
    void aServingCertificateFromTheClientCaIsNoClientCertificate() throws Exception {
        // SunJSSE's PKIX checks for a TLS client (sun/security/validator/EndEntityChecker.java, checkTLSClient):
        // the extended key usage must include clientAuth
        var serverOnly = pki.issueClient("CN=kube-scheduler", Instant.now().minus(Duration.ofMinutes(5)),
                Instant.now().plus(Duration.ofDays(1)), KeyPurposeId.id_kp_serverAuth);
        var r = post(TestPki.clientContext(pki, serverOnly, false), "/kube/bind", WireResources.load("kube/bind.json"));
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.body()).startsWith("kube bind: client certificate \"CN=kube-scheduler\" does not verify against "
                + "the client CA: ").contains("Extended key usage does not permit use for TLS client authentication");
    }

    @Test
    void oneConnectionCarriesManyVerifiedRequests() throws Exception {
        try (HttpClient http = HttpClient.newBuilder().sslContext(TestPki.clientContext(pki, pki)).build()) {
            for (int i = 0; i < 5; i++) {
                var r = http.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.port()
                        + "/kube/filter")).POST(HttpRequest.BodyPublishers.ofByteArray(
                        WireResources.load("kube/filter-nodenames.json"))).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isEqualTo(200);
            }
        }
    }

    private static double unauthenticated() {
        return registry.find(ServerMetrics.ERRORS).tag("kind", "unauthenticated").counters().stream()
                .mapToDouble(io.micrometer.core.instrument.Counter::count).sum();
    }

    @Test
    void plainHttpGetsNoAnswer() {
        assertThatThrownBy(() -> {
            try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
                http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/kube/bind"))
                        .timeout(Duration.ofSeconds(5)).POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                        HttpResponse.BodyHandlers.ofString());
            }
        }).isInstanceOf(IOException.class);
    }

    @Test
    void aClientsCloseNotifyEndsTheConnectionAtOnce() throws Exception {
        try (java.net.Socket raw = new java.net.Socket(InetAddress.getLoopbackAddress(), server.port());
             javax.net.ssl.SSLSocket s = (javax.net.ssl.SSLSocket) TestPki.clientContext(pki, pki).getSocketFactory()
                     .createSocket(raw, "127.0.0.1", server.port(), false)) {
            s.startHandshake();
            s.shutdownOutput(); // TLS close_notify, no request sent
            long start = System.nanoTime();
            // then bytes that are no TLS record of this session: before, the server's TLS handler, its inbound side
            // closed, kept buffering them (off the heap) until the first-request timer closed the connection (15 s)
            byte[] garbage = new byte[16 * 1024 + 5];
            garbage[0] = 0x17;
            garbage[1] = 0x03;
            garbage[2] = 0x03;
            garbage[3] = 0x40;
            assertThatThrownBy(() -> {
                while (System.nanoTime() - start < 10_000_000_000L) {
                    raw.getOutputStream().write(garbage);
                }
            }).isInstanceOf(IOException.class);
            assertThat((System.nanoTime() - start) / 1e9).isLessThan(3.0);
        }
    }
}
