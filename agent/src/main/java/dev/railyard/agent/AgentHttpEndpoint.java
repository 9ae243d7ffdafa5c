package dev.railyard.agent;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The agent's small HTTP server (JDK {@link HttpServer}, one virtual thread per request):
 * <ul>
 *   <li>{@code GET /healthz}: 200 while the refresh loop is live, 503 when it has stopped refreshing; the JSON body
 *       also says whether the published status is stale and why. Staleness alone does not fail the probe, so an API
 *       server or kubelet outage does not restart every agent.</li>
 *   <li>{@code GET /metrics}: Prometheus text format from the Micrometer registry.</li>
 * </ul>
 */
public final class AgentHttpEndpoint implements AutoCloseable {
    private final HttpServer server;

    /**
     * Binds and starts the server.
     *
     * @param address  where to listen ({@code 0.0.0.0:8080}; port 0 picks a free one)
     * @param health   current health
     * @param registry metrics to expose
     * @throws IOException when the address cannot be bound
     */
    public AgentHttpEndpoint(InetSocketAddress address, Supplier<AgentHealth> health,
                             PrometheusMeterRegistry registry) throws IOException {
        server = HttpServer.create(address, 16);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/healthz", exchange -> {
            AgentHealth h = health.get();
            String body = "{\"live\":" + h.live() + ",\"stale\":" + h.stale()
                    + ",\"lastRefresh\":" + quote(h.lastRefresh()) + ",\"lastPublish\":" + quote(h.lastPublish())
                    + ",\"lastProblem\":" + quote(h.lastProblem()) + "}\n";
            send(exchange, h.live() ? 200 : 503, "application/json", body);
        });
        server.createContext("/metrics", exchange ->
                send(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
        server.start();
    }

    /** @return the bound address (the real port when 0 was asked for) */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    private static void send(HttpExchange exchange, int code, String type, String body) throws IOException {
        try (exchange) {
            if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", type);
            exchange.sendResponseHeaders(code, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    private static String quote(Object value) {
        if (value == null) {
            return "null";
        }
        String s = value.toString().replace("\\", "\\\\").replace("\"", "\\\"");
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            out.append(c < 0x20 ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        return out.append('"').toString();
    }

    /** Stops the server at once. */
    @Override
    public void close() {
        server.stop(0);
    }
}
