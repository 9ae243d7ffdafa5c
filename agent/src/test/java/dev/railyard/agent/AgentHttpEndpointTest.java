package dev.railyard.agent;

import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class AgentHttpEndpointTest {
    private static HttpResponse<String> get(InetSocketAddress at, String path) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + at.getPort() + path)).build(),
                    HttpResponse.BodyHandlers.ofString());
        }
    }

    @Test
    void healthzFollowsLivenessNotStalenessAndMetricsArePrometheusText() throws Exception {
        AtomicReference<AgentHealth> health = new AtomicReference<>(new AgentHealth(true, true,
                Instant.parse("2026-11-30T07:00:05Z"), null, "kubelet PodResources unix:///x.sock List: UNAVAILABLE"));
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Counter.builder("railyard.agent.publish").tag("decision", "FIRST").register(registry).increment();
        try (AgentHttpEndpoint endpoint = new AgentHttpEndpoint(new InetSocketAddress("127.0.0.1", 0), health::get,
                registry)) {
            HttpResponse<String> stale = get(endpoint.address(), "/healthz");
            // Stale but live: 200, so an API server or kubelet outage does not get every agent restarted.
            assertThat(stale.statusCode()).isEqualTo(200);
            assertThat(stale.body()).isEqualTo("{\"live\":true,\"stale\":true,\"lastRefresh\":\"2026-11-30T07:00:05Z\","
                    + "\"lastPublish\":null,\"lastProblem\":\"kubelet PodResources unix:///x.sock List: UNAVAILABLE\"}\n");

            health.set(new AgentHealth(false, true, null, null, null));
            assertThat(get(endpoint.address(), "/healthz").statusCode()).isEqualTo(503);

            HttpResponse<String> metrics = get(endpoint.address(), "/metrics");
            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.body()).contains("railyard_agent_publish_total{decision=\"FIRST\"} 1.0");
        }
    }
}
