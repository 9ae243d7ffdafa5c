package dev.railyard.scheduler.server;

import dev.railyard.scheduler.access.ExplainAccess;
import dev.railyard.scheduler.access.KubernetesAccess;
import dev.railyard.scheduler.cluster.ClusterObjects;
import dev.railyard.scheduler.cluster.SnapshotDirectory;
import dev.railyard.scheduler.explain.Explainer;
import dev.railyard.scheduler.hints.delivery.BindingHintWebhook;
import dev.railyard.scheduler.hints.delivery.HintLookup;
import dev.railyard.scheduler.protocol.NeutralPlacementDecisions;
import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.service.ExplainEndpoint;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The real extender server with every endpoint mounted, in a JVM of its own, for {@link HostileCorpusTest}: a 4 s
 * request-read timeout and a 1 MiB request limit, so slow clients and
 * endless bodies end quickly. Volcano and kube-scheduler verbs answer neutrally; {@code /explain} serves the demo
 * snapshot to the bearer token {@value #GOOD_TOKEN} only; the admission webhook has no hints to add.
 *
 * <p>Prints {@code PORT <n>} on stdout once listening, logs (slf4j-simple, level debug) to stderr, and exits when
 * stdin closes.
 */
public final class HostileServerMain {
    /** The one bearer token the fake API server accepts, for user {@code alice}, allowed everything. */
    public static final String GOOD_TOKEN = "good-token";
    /** Request-size limit of the child's server. */
    public static final long LIMIT = 1 << 20;
    /** Request-read timeout: long enough for 1 MiB bodies on a loaded 2-core machine, short for slow clients. */
    public static final int REQUEST_READ_SECONDS = 4;

    private HostileServerMain() {
    }

    public static void main(String[] args) throws Exception {
        ConnectionTimeouts timeouts = new ConnectionTimeouts(Duration.ofSeconds(REQUEST_READ_SECONDS), Duration.ofSeconds(5), 200);
        var registry = TestServers.registry();
        Map<String, VerbHandler> routes = new LinkedHashMap<>(
                TestServers.routes(new NeutralPlacementDecisions(50, "hostile corpus"), registry));
        ClusterObjects demo = SnapshotDirectory.read(Path.of("src/test/resources/snapshots/demo")).objects();
        routes.put(ExplainEndpoint.PATH, new ExplainAccess(new ExplainEndpoint(() -> demo, new Explainer()),
                new KubernetesAccess() {
                    @Override
                    public Optional<User> authenticate(String token) {
                        return GOOD_TOKEN.equals(token) ? Optional.of(new User("alice", "u-1", List.of("ml"))) : Optional.empty();
                    }

                    @Override
                    public Decision authorize(User user, ResourceAttributes what) {
                        return new Decision(true, "test");
                    }
                }));
        routes.putAll(new BindingHintWebhook((pod, node) -> new HintLookup.NotApplicable("no hints in this test"),
                null, Duration.ofMillis(500), registry).routes());
        ServerSettings settings = new ServerSettings(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), LIMIT,
                null, timeouts);
        try (ExtenderServer server = ExtenderServer.start(settings, routes, ReadinessProbe.always(), registry)) {
            System.out.println("PORT " + server.port());
            System.out.flush();
            System.in.transferTo(java.io.OutputStream.nullOutputStream());
        }
        System.exit(0);
    }
}
