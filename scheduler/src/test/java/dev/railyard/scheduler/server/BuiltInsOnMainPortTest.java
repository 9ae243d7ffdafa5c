package dev.railyard.scheduler.server;

import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.WireReply;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /healthz}, {@code /readyz} and {@code /metrics} are the main port's: a listener started with
 * {@link ExtenderServer#startRoutesOnly} (the secure and webhook ports of {@code serve}) answers them 404, over
 * plain HTTP and TLS, while its routes answer as usual; the main port still serves all three.
 */
class BuiltInsOnMainPortTest {
    static final List<String> BUILT_INS = List.of("/healthz", "/readyz", "/metrics");

    @TempDir
    Path dir;

    @Test
    void aRoutesOnlyListenerAnswers404ToTheProbesAndMetricsTheMainPortServesThem() throws Exception {
        PrometheusMeterRegistry registry = TestServers.registry();
        TestPki pki = TestPki.create(dir.resolve("pki"), "railyard-test");
        Map<String, VerbHandler> routes = Map.of("/test/echo", body -> WireReply.text(200, "echo"));
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        try (ExtenderServer main = ExtenderServer.start(new ServerSettings(any, 1 << 20, null), routes,
                ReadinessProbe.always(), registry);
             ExtenderServer plain = ExtenderServer.startRoutesOnly(new ServerSettings(any, 1 << 20, null), routes,
                     registry);
             ExtenderServer tls = ExtenderServer.startRoutesOnly(new ServerSettings(any, 1 << 20,
                     new TlsSettings.Pem(pki.serverCert(), pki.serverKey())), routes, registry)) {
            for (String path : BUILT_INS) {
                try (Socket s = new Socket(InetAddress.getLoopbackAddress(), main.port())) {
                    assertThat(TestServers.exchange(s, "GET", path, null, -1).status()).as("main %s", path)
                            .isEqualTo(200);
                }
                for (Socket s : List.of(new Socket(InetAddress.getLoopbackAddress(), plain.port()),
                        TestPki.clientContext(pki, null).getSocketFactory().createSocket(
                                InetAddress.getLoopbackAddress(), tls.port()))) {
                    try (s) {
                        s.setSoTimeout(10_000);
                        TestServers.Response r = TestServers.exchange(s, "GET", path, null, -1);
                        assertThat(r.status()).as("routes only %s", path).isEqualTo(404);
                        assertThat(r.body().strip()).isEqualTo("no endpoint " + path + " on this port: /healthz, "
                                + "/readyz and /metrics are served on the main port only");
                        // the connection is kept: the route answers on it
                        TestServers.Response echo = TestServers.exchange(s, "POST", "/test/echo", new byte[]{'x'}, 1);
                        assertThat(echo.status()).isEqualTo(200);
                        assertThat(echo.body().strip()).isEqualTo("echo");
                    }
                }
            }
            // the routes-only listeners' requests are still counted in the registry the main port serves
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), main.port())) {
                assertThat(TestServers.exchange(s, "GET", "/metrics", null, -1).body())
                        .contains("railyard_extender_errors_total{kind=\"not_found\",protocol=\"http\",verb=\"unknown\"} 6.0");
            }
        }
    }
}
