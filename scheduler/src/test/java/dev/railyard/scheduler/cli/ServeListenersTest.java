package dev.railyard.scheduler.cli;

import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.WireReply;
import dev.railyard.scheduler.server.ReadinessProbe;
import dev.railyard.scheduler.server.ServerSettings;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code serve}'s listeners: the main port serves {@code /healthz}, {@code /readyz} and {@code /metrics}; a port
 * started without a readiness probe (the secure and webhook ports, as {@link ServeCommand} starts them) answers 404.
 */
class ServeListenersTest {
    @Test
    void onlyTheMainPortServesTheProbesAndMetrics() throws Exception {
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ServerSettings main = ServeCommandTest.parse("--port=0").resolve().server();
        Map<String, VerbHandler> routes = Map.of("/admission/pods-binding", body -> WireReply.text(200, "{}"));
        try (ServeListeners listeners = new ServeListeners(); HttpClient http = HttpClient.newHttpClient()) {
            int other = listeners.start("webhook port", ServeListeners.beside(main, 0, null, null), routes, null,
                    registry).port();
            int mainPort = listeners.start("main port", main, Map.of(), ReadinessProbe.always(), registry).port();
            for (String path : new String[]{"/healthz", "/readyz", "/metrics"}) {
                assertThat(get(http, mainPort, path).statusCode()).as("main port %s", path).isEqualTo(200);
                assertThat(get(http, other, path).statusCode()).as("other port %s", path).isEqualTo(404);
            }
        }
    }

    private static HttpResponse<String> get(HttpClient http, int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
