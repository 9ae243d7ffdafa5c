package dev.railyard.scheduler.server;

import dev.railyard.scheduler.access.ClientCertificateRequired;
import dev.railyard.scheduler.protocol.NeutralPlacementDecisions;
import dev.railyard.scheduler.protocol.WireResources;
import dev.railyard.scheduler.protocol.kube.Binder;
import dev.railyard.scheduler.protocol.kube.KubeExtender;
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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The secure listener of the kube-scheduler verbs: HTTPS whose clients must present a certificate from the client
 * CA. With one, the verbs answer as usual; without one, 401 with a reason before the body is read; with one from
 * another CA, the TLS handshake fails; plain HTTP gets no answer.
 */
class SecureListenerTest {
    @TempDir
    static Path dir;
    static TestPki pki;
    static TestPki stranger;
    static ExtenderServer server;

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
                ClientCertificateRequired.wrap("kube", kube)), java.util.Optional::empty, TestServers.registry());
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
    void aCertificateFromAnotherCaEndsTheHandshakeOrIsNotSent() throws Exception {
        // a well-behaved client (JDK, Go) sends no certificate the server's CA list does not name: 401
        var r = post(TestPki.clientContext(pki, stranger), "/kube/bind", WireResources.load("kube/bind.json"));
        assertThat(r.statusCode()).isEqualTo(401);
        // one that sends it anyway fails the handshake: the listener's trust manager rejects the chain
        assertThatThrownBy(() -> post(TestPki.clientContext(pki, stranger, true), "/kube/bind",
                WireResources.load("kube/bind.json"))).isInstanceOf(IOException.class);
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
}
