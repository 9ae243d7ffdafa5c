package dev.railyard.scheduler.server;

import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.WireResources;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.ByteArrayInputStream;
import java.io.FileInputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ExtenderServerTest {
    @Test
    void listenUrlsBracketIpv6Literals() {
        // was: "railyard extender listening on http://0:0:0:0:0:0:0:1:8888" (RFC 3986 §3.2.2 brackets IPv6 hosts)
        assertThat(ExtenderServer.url("http", "127.0.0.1", 8888)).isEqualTo("http://127.0.0.1:8888");
        assertThat(ExtenderServer.url("http", "0:0:0:0:0:0:0:1", 8888)).isEqualTo("http://[0:0:0:0:0:0:0:1]:8888");
        assertThat(ExtenderServer.url("https", "::", 8443)).isEqualTo("https://[::]:8443");
        assertThat(ExtenderServer.url("https", "railyard.railyard-system.svc", 8888))
                .isEqualTo("https://railyard.railyard-system.svc:8888");
    }

    final PrometheusMeterRegistry registry = TestServers.registry();
    final AtomicReference<String> notReady = new AtomicReference<>("informers not synced");
    ExtenderServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    ExtenderServer start(long limit, Map<String, VerbHandler> extra, TlsSettings tls) throws Exception {
        server = TestServers.start(limit, () -> Optional.ofNullable(notReady.get()), registry, extra, tls);
        return server;
    }

    Socket connect() throws Exception {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port());
        s.setSoTimeout(5000);
        return s;
    }

    @Test
    void servesVerbsOnOneKeptAliveConnection() throws Exception {
        start(1 << 20, Map.of(), null);
        byte[] predicate = WireResources.load("volcano/predicate-v1.15.json");
        byte[] filter = WireResources.load("kube/filter-nodenames.json");
        try (Socket s = connect()) {
            var r1 = TestServers.exchange(s, "POST", "/volcano/predicate", predicate, predicate.length);
            var r2 = TestServers.exchange(s, "POST", "/kube/filter", filter, filter.length);
            var r3 = TestServers.exchange(s, "POST", "/volcano/onSessionOpen", predicate, predicate.length);
            assertThat(r1.status()).isEqualTo(200);
            assertThat(r1.header("Content-Type")).isEqualTo("application/json");
            assertThat(r1.body()).isEqualTo("{\"status\":\"\",\"code\":0}");
            assertThat(r2.body()).startsWith("{\"Nodes\":null,\"NodeNames\":[\"gpu-a-017\",\"gpu-a-018\",\"gpu-b-003\"]");
            assertThat(r3.body()).isEqualTo("{}");
        }
    }

    @Test
    void bodyOverTheLimitGets413BeforeItIsSent() throws Exception {
        start(1024, Map.of(), null);
        try (Socket s = connect()) {
            // declare 10 MB, send none of it: the answer must come without the body
            var r = TestServers.exchange(s, "POST", "/volcano/predicate", null, 10_000_000);
            assertThat(r.status()).isEqualTo(413);
            assertThat(r.body()).isEqualTo("volcano predicate: request body of 10000000 bytes is over the limit of 1024 bytes\n");
            assertThat(r.header("Connection")).isEqualTo("close");
        }
        assertThat(registry.get("railyard.extender.errors").tag("kind", "too_large").counter().count()).isEqualTo(1.0);
    }

    @Test
    void chunkedBodyOverTheLimitGets413() throws Exception {
        start(1024, Map.of(), null);
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        byte[] big = new byte[4096];
        java.util.Arrays.fill(big, (byte) ' ');
        // ofInputStream has no known length, so the client sends it chunked
        var req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/kube/filter"))
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big))).build();
        var resp = client.send(req, HttpResponse.BodyHandlers.ofString());
        assertThat(resp.statusCode()).isEqualTo(413);
        assertThat(resp.body()).isEqualTo("kube filter: request body is over the limit of 1024 bytes\n");
    }

    @Test
    void sessionOpenIsExemptFromTheLimitAndDrained() throws Exception {
        start(1024, Map.of(), null);
        byte[] open = WireResources.load("volcano/onSessionOpen-v1.15.json");
        assertThat(open.length).isGreaterThan(1024);
        byte[] predicate = "{\"task\":null}".getBytes(StandardCharsets.UTF_8);
        try (Socket s = connect()) {
            assertThat(TestServers.exchange(s, "POST", "/volcano/onSessionOpen", open, open.length).body()).isEqualTo("{}");
            // the same connection still parses the next request correctly, so the body was drained
            var r = TestServers.exchange(s, "POST", "/volcano/predicate", predicate, predicate.length);
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.body()).isEqualTo("volcano predicate: \"task\" is null\n");
        }
    }

    @Test
    void healthReadinessAndMetrics() throws Exception {
        start(1 << 20, Map.of(), null);
        try (Socket s = connect()) {
            assertThat(TestServers.exchange(s, "GET", "/healthz", null, -1).body()).isEqualTo("ok\n");
            var notYet = TestServers.exchange(s, "GET", "/readyz", null, -1);
            assertThat(notYet.status()).isEqualTo(503);
            assertThat(notYet.body()).isEqualTo("not ready: informers not synced\n");
            notReady.set(null);
            var ready = TestServers.exchange(s, "GET", "/readyz", null, -1);
            assertThat(ready.status()).isEqualTo(200);
            assertThat(ready.body()).isEqualTo("ready\n");

            byte[] predicate = WireResources.load("volcano/predicate-v1.15.json");
            TestServers.exchange(s, "POST", "/volcano/predicate", predicate, predicate.length);
            TestServers.exchange(s, "POST", "/volcano/predicate", new byte[0], 0);
            // The latency timer stops once the reply is written, which can be just after the client has read it:
            // poll /metrics until both calls are recorded instead of reading it once.
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                    .pollInterval(java.time.Duration.ofMillis(20)).untilAsserted(() -> {
                        var metrics = TestServers.exchange(s, "GET", "/metrics", null, -1);
                        assertThat(metrics.status()).isEqualTo(200);
                        assertThat(metrics.body())
                                .contains("railyard_extender_request_seconds_bucket{protocol=\"volcano\",status=\"200\",verb=\"predicate\",le=\"0.001\"}")
                                .contains("railyard_extender_request_seconds_count{protocol=\"volcano\",status=\"200\",verb=\"predicate\"} 1")
                                .contains("railyard_extender_request_seconds_count{protocol=\"volcano\",status=\"400\",verb=\"predicate\"} 1")
                                .contains("railyard_decisions_total{outcome=\"neutral\",protocol=\"volcano\",verb=\"predicate\"} 1.0")
                                .contains("railyard_extender_errors_total{kind=\"empty_body\",protocol=\"volcano\",verb=\"predicate\"} 1.0");
                    });
        }
    }

    @Test
    void wrongMethodAndUnknownPathAreOneLine4xx() throws Exception {
        start(1 << 20, Map.of(), null);
        try (Socket s = connect()) {
            var get = TestServers.exchange(s, "GET", "/volcano/predicate", null, -1);
            assertThat(get.status()).isEqualTo(405);
            assertThat(get.header("Allow")).isEqualTo("POST");
            assertThat(get.body()).isEqualTo("GET /volcano/predicate: method not allowed, use POST\n");
            var unknown = TestServers.exchange(s, "POST", "/volcano/bind", new byte[0], 0);
            assertThat(unknown.status()).isEqualTo(404);
            assertThat(unknown.body()).isEqualTo("no endpoint /volcano/bind: Volcano verbs are under /volcano/, kube-scheduler verbs under /kube/\n");
        }
    }

    @Test
    void aHandlerBugIs500AndTheServerKeepsServing() throws Exception {
        VerbHandler broken = body -> {
            throw new IllegalStateException("engine bug\nsecond line");
        };
        start(1 << 20, Map.of("/volcano/broken", broken), null);
        try (Socket s = connect()) {
            var r = TestServers.exchange(s, "POST", "/volcano/broken", "{}".getBytes(StandardCharsets.UTF_8), 2);
            assertThat(r.status()).isEqualTo(500);
            assertThat(r.body()).isEqualTo("volcano broken: internal error: java.lang.IllegalStateException: engine bug second line\n");
        }
        try (Socket s = connect()) {
            assertThat(TestServers.exchange(s, "GET", "/healthz", null, -1).status()).isEqualTo(200);
        }
    }

    @Test
    void servesTlsFromPkcs12AndFromPem(@TempDir Path dir) throws Exception {
        Path p12 = dir.resolve("server.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "railyard", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=railyard-test",
                "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore", p12.toString(),
                "-storepass", "changeit", "-keypass", "changeit").redirectErrorStream(true).start();
        assertThat(keytool.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(keytool.exitValue()).as(new String(keytool.getInputStream().readAllBytes())).isZero();

        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (var in = new FileInputStream(p12.toFile())) {
            ks.load(in, "changeit".toCharArray());
        }
        Certificate cert = ks.getCertificate("railyard");
        PrivateKey key = (PrivateKey) ks.getKey("railyard", "changeit".toCharArray());
        Path crt = dir.resolve("tls.crt");
        Path pem = dir.resolve("tls.key");
        Files.writeString(crt, pem("CERTIFICATE", cert.getEncoded()));
        Files.writeString(pem, pem("PRIVATE KEY", key.getEncoded()));

        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("railyard", cert);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext clientTls = SSLContext.getInstance("TLS");
        clientTls.init(null, tmf.getTrustManagers(), null);
        HttpClient client = HttpClient.newBuilder().sslContext(clientTls).version(HttpClient.Version.HTTP_1_1).build();
        byte[] filter = WireResources.load("kube/filter-nodenames.json");

        for (TlsSettings tls : new TlsSettings[]{new TlsSettings.Pkcs12(p12, "changeit".toCharArray()), new TlsSettings.Pem(crt, pem)}) {
            start(1 << 20, Map.of(), tls);
            var resp = client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.port() + "/kube/filter"))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(filter)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(resp.statusCode()).as(tls.getClass().getSimpleName()).isEqualTo(200);
            assertThat(resp.body()).contains("\"NodeNames\":[\"gpu-a-017\",\"gpu-a-018\",\"gpu-b-003\"]");
            server.close();
            server = null;
        }
    }

    @Test
    void unusableTlsMaterialIsAOneLineError(@TempDir Path dir) throws Exception {
        Path crt = dir.resolve("tls.crt");
        Path key = dir.resolve("tls.key");
        Files.writeString(crt, "not a certificate");
        Files.writeString(key, "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n");
        assertThatThrownBy(() -> new TlsSettings.Pem(crt, key).sslContext())
                .isInstanceOf(TlsSettings.TlsException.class)
                .hasMessageStartingWith("cannot read certificate chain " + crt);
        assertThatThrownBy(() -> new TlsSettings.Pkcs12(dir.resolve("missing.p12"), new char[0]).sslContext())
                .isInstanceOf(TlsSettings.TlsException.class)
                .hasMessageStartingWith("cannot load PKCS#12 keystore " + dir.resolve("missing.p12"));
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

}
