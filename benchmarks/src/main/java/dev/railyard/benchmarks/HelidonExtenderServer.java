package dev.railyard.benchmarks;

import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.WireFormatException;
import dev.railyard.scheduler.protocol.WireReply;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;

import java.net.InetAddress;
import java.util.Map;

/**
 * The same verb handlers on Helidon SE 4 WebServer (virtual threads, Helidon's own HTTP/1.1 stack), for the HTTP
 * server comparison in docs/adr/0003-http-server.md. Serves POST only, with the same request-size limit and the
 * same 400 one-line answer for bad input; no TLS, health or metrics (not needed to compare the verb path).
 */
public final class HelidonExtenderServer implements AutoCloseable {
    private final WebServer server;

    /**
     * @param routes full path ({@code /volcano/predicate}) to handler
     */
    public HelidonExtenderServer(InetAddress address, int port, long maxRequestBytes, Map<String, VerbHandler> routes) {
        HttpRouting.Builder routing = HttpRouting.builder();
        routes.forEach((path, handler) -> routing.post(path, (req, res) -> {
            byte[] body = handler.readsBody() ? req.content().as(byte[].class) : drain(req);
            WireReply reply;
            try {
                reply = handler.handle(body);
            } catch (WireFormatException e) {
                reply = WireReply.text(400, e.getMessage());
            }
            res.status(reply.status());
            res.header("Content-Type", reply.contentType());
            res.send(reply.body());
        }));
        this.server = WebServer.builder()
                .address(address)
                .port(port)
                .backlog(1024)
                .maxPayloadSize(maxRequestBytes)
                // same as the JDK server (sun.net.httpserver.nodelay): otherwise replies wait on delayed ACKs
                .connectionOptions(o -> o.tcpNoDelay(true))
                .routing(routing)
                .build()
                .start();
    }

    private static byte[] drain(io.helidon.webserver.http.ServerRequest req) {
        try (var in = req.content().inputStream()) {
            in.transferTo(java.io.OutputStream.nullOutputStream());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return new byte[0];
    }

    public int port() {
        return server.port();
    }

    @Override
    public void close() {
        server.stop();
    }
}
