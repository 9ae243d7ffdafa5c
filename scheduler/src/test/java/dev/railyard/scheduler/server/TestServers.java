package dev.railyard.scheduler.server;

import dev.railyard.scheduler.protocol.NeutralPlacementDecisions;
import dev.railyard.scheduler.protocol.PlacementDecisions;
import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.kube.Binder;
import dev.railyard.scheduler.protocol.kube.KubeExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoSettings;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** Starts the real server on a loopback port with both adapters mounted; raw HTTP/1.1 for exact control. */
final class TestServers {
    private TestServers() {
    }

    static Map<String, VerbHandler> routes(PlacementDecisions decisions, PrometheusMeterRegistry registry) {
        Map<String, VerbHandler> routes = new LinkedHashMap<>();
        routes.putAll(ExtenderServer.mount(VolcanoExtender.PREFIX,
                new VolcanoExtender(decisions, VolcanoSettings.DEFAULTS, registry).verbs()));
        routes.putAll(ExtenderServer.mount(KubeExtender.PREFIX,
                new KubeExtender(decisions, Binder.unwired(), 50, registry).verbs()));
        return routes;
    }

    static ExtenderServer start(long maxRequestBytes, ReadinessProbe readiness, PrometheusMeterRegistry registry,
                                Map<String, VerbHandler> extraRoutes, TlsSettings tls) throws Exception {
        Map<String, VerbHandler> routes = routes(new NeutralPlacementDecisions(50, "engine not wired (test)"), registry);
        routes.putAll(extraRoutes);
        ServerSettings s = new ServerSettings(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), maxRequestBytes, tls);
        return ExtenderServer.start(s, routes, readiness, registry);
    }

    static PrometheusMeterRegistry registry() {
        return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    }

    /** A parsed HTTP/1.1 response. */
    record Response(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name.toLowerCase(java.util.Locale.ROOT));
        }
    }

    /** Writes one request on the socket (Content-Length set to {@code declaredLength}) and reads one response. */
    static Response exchange(Socket s, String method, String path, byte[] body, long declaredLength) throws IOException {
        OutputStream out = s.getOutputStream();
        String head = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + (declaredLength >= 0 ? "Content-Length: " + declaredLength + "\r\n" : "") + "\r\n";
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        if (body != null) {
            out.write(body);
        }
        out.flush();
        return read(s.getInputStream());
    }

    static Response read(InputStream in) throws IOException {
        String status = line(in);
        if (status == null) {
            throw new IOException("connection closed before a response");
        }
        int code = Integer.parseInt(status.split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        String l;
        while ((l = line(in)) != null && !l.isEmpty()) {
            int c = l.indexOf(':');
            headers.put(l.substring(0, c).trim().toLowerCase(java.util.Locale.ROOT), l.substring(c + 1).trim());
        }
        int len = Integer.parseInt(headers.getOrDefault("content-length", "0"));
        byte[] b = in.readNBytes(len);
        return new Response(code, headers, new String(b, StandardCharsets.UTF_8));
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                int n = sb.length();
                return n > 0 && sb.charAt(n - 1) == '\r' ? sb.substring(0, n - 1) : sb.toString();
            }
            sb.append((char) c);
        }
        return sb.isEmpty() ? null : sb.toString();
    }
}
