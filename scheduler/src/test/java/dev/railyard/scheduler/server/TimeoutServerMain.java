package dev.railyard.scheduler.server;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * Runs the extender server with small connection timeouts in a JVM of its own, for {@link ConnectionTimeoutsTest}
 * and {@link RequestBodyBudgetTest} (a small heap of its own, away from the test JVM's other servers).
 *
 * <p>Arguments: request-read timeout and idle timeout in seconds, optionally the request-size limit in bytes
 * (default 1 MiB; the request-body budget is a quarter of this JVM's heap). Prints {@code PORT <n>} on stdout once
 * listening, and exits when stdin closes.
 */
public final class TimeoutServerMain {
    private TimeoutServerMain() {
    }

    public static void main(String[] args) throws Exception {
        ConnectionTimeouts timeouts = new ConnectionTimeouts(Duration.ofSeconds(Long.parseLong(args[0])),
                Duration.ofSeconds(Long.parseLong(args[1])), 200);
        var registry = TestServers.registry();
        ServerSettings settings = new ServerSettings(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                args.length > 2 ? Long.parseLong(args[2]) : 1 << 20, null, timeouts);
        try (ExtenderServer server = ExtenderServer.start(settings,
                TestServers.routes(new dev.railyard.scheduler.protocol.NeutralPlacementDecisions(50, "test"), registry),
                ReadinessProbe.always(), registry)) {
            System.out.println("PORT " + server.port());
            System.out.flush();
            System.in.transferTo(java.io.OutputStream.nullOutputStream());
        }
        System.exit(0);
    }
}
