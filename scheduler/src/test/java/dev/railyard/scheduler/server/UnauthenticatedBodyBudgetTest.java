package dev.railyard.scheduler.server;

import dev.railyard.scheduler.access.ClientCertificateRequired;
import dev.railyard.scheduler.access.ExplainAccess;
import dev.railyard.scheduler.access.KubernetesAccess;
import dev.railyard.scheduler.explain.Explainer;
import dev.railyard.scheduler.hints.delivery.BindingHintWebhook;
import dev.railyard.scheduler.hints.delivery.HintLookup;
import dev.railyard.scheduler.protocol.NeutralPlacementDecisions;
import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.WireResources;
import dev.railyard.scheduler.protocol.kube.Binder;
import dev.railyard.scheduler.protocol.kube.KubeExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoSettings;
import dev.railyard.scheduler.service.ExplainEndpoint;
import dev.railyard.scheduler.cluster.ClusterObjects;
import dev.railyard.scheduler.cluster.SnapshotDirectory;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLContext;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Routes whose caller is not authenticated before the body is read (the admission webhook, {@code /explain}) take
 * their bodies' shares from a small budget of their own, so that whoever reaches their ports cannot starve the
 * schedulers' verbs (the attack this guards against: twelve TLS connections to the webhook port, each declaring
 * {@code Content-Length: 31326208} and sending one byte, made every Volcano predicate answer 429 for 15 s).
 *
 * <p>Listeners as {@code serve} wires them, on real sockets: a plain main port (Volcano verbs), an HTTPS secure
 * port with client certificates (kube verbs, {@code /explain} with a bearer token), an HTTPS webhook port. The
 * schedulers' budget is 32 MiB, so each unauthenticated route gets 2 MiB (a sixteenth) and bodies of at most 1 MiB.
 */
class UnauthenticatedBodyBudgetTest {
    static final long SCHEDULERS_BUDGET = 32L << 20;
    static final long ROUTE_BUDGET = 2L << 20;
    static final long ROUTE_MAX_BODY = 1L << 20;
    static final int ATTACKERS = 12;
    static final String GOOD_TOKEN = "good-token";

    @TempDir
    static Path dir;
    static TestPki pki;
    static final PrometheusMeterRegistry registry = TestServers.registry();
    static RequestBodyBudget budget;
    static ExtenderServer main;
    static ExtenderServer secure;
    static ExtenderServer webhook;
    final List<Socket> attackers = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        pki = TestPki.create(dir.resolve("pki"), "railyard-test");
        budget = new RequestBodyBudget(SCHEDULERS_BUDGET, RequestBodyBudget.DEFAULT_WAIT);
        InetAddress lo = InetAddress.getLoopbackAddress();
        var decisions = new NeutralPlacementDecisions(50, "test");
        main = ExtenderServer.start(new ServerSettings(new InetSocketAddress(lo, 0), 64L << 20, null,
                ConnectionTimeouts.DEFAULTS, null, budget), ExtenderServer.mount(VolcanoExtender.PREFIX,
                new VolcanoExtender(decisions, VolcanoSettings.DEFAULTS, registry).verbs()),
                ReadinessProbe.always(), registry);
        ClusterObjects demo = SnapshotDirectory.read(Path.of("src/test/resources/snapshots/demo")).objects();
        var explain = new ExplainAccess(new ExplainEndpoint(() -> demo, new Explainer()), new KubernetesAccess() {
                    @Override
                    public Optional<User> authenticate(String token) {
                        return GOOD_TOKEN.equals(token) ? Optional.of(new User("alice", "u-1", List.of())) : Optional.empty();
                    }

                    @Override
                    public Decision authorize(User user, ResourceAttributes what) {
                        return new Decision(true, "test");
                    }
                });
        Map<String, VerbHandler> secureRoutes = new java.util.LinkedHashMap<>(ExtenderServer.mount(KubeExtender.PREFIX,
                ClientCertificateRequired.wrap("kube", new KubeExtender(decisions, Binder.unwired(), 50, registry).verbs())));
        secureRoutes.put(ExplainEndpoint.PATH, explain);
        TlsSettings tls = new TlsSettings.Pem(pki.serverCert(), pki.serverKey());
        secure = ExtenderServer.start(new ServerSettings(new InetSocketAddress(lo, 0), 64L << 20, tls,
                ConnectionTimeouts.DEFAULTS, new ClientCertificateAuthority(pki.caFile()), budget), secureRoutes,
                ReadinessProbe.always(), registry);
        var hints = new BindingHintWebhook((pod, node) -> new HintLookup.NotApplicable("test"), null, Duration.ofSeconds(2),
                registry);
        webhook = ExtenderServer.start(new ServerSettings(new InetSocketAddress(lo, 0), 64L << 20, tls,
                ConnectionTimeouts.DEFAULTS, null, budget), hints.routes(), ReadinessProbe.always(), registry);
    }

    @AfterAll
    static void stop() {
        for (ExtenderServer s : new ExtenderServer[]{webhook, secure, main}) {
            if (s != null) {
                s.close();
            }
        }
    }

    @AfterEach
    void closeAttackers() throws Exception {
        for (Socket s : attackers) {
            s.close();
        }
        attackers.clear();
        // the server gives the shares back as it sees the connections close
        awaitInFlight("pods-binding", 0);
        awaitInFlight("explain", 0);
    }

    /**
     * (a) Twelve stalled 1 MiB webhook bodies and twelve stalled 1 MiB {@code /explain} bodies (any bearer token)
     * fill their routes' 2 MiB budgets; the schedulers' budget stays empty, a Volcano predicate on the main port and
     * a kube filter from a client certificate on the secure port get 200 at once, and a 24 MiB Volcano prioritize
     * (three quarters of the schedulers' budget) is admitted too. Before the split the predicate got 429 after 0.5 s.
     * (b) Of each route's twelve, two hold its budget and ten get 429 after the 0.5 s wait.
     */
    @Test
    void stalledUnauthenticatedBodiesLeaveTheSchedulersTheirBudget() throws Exception {
        for (int i = 0; i < ATTACKERS; i++) {
            attackers.add(stall(webhook, BindingHintWebhook.PATH, ROUTE_MAX_BODY, ""));
            attackers.add(stall(secure, ExplainEndpoint.PATH, ROUTE_MAX_BODY, "Authorization: Bearer x\r\n"));
        }
        awaitInFlight("pods-binding", ROUTE_BUDGET);
        awaitInFlight("explain", ROUTE_BUDGET);
        assertThat(budget.bytesInFlight()).as("schedulers' budget while the unauthenticated routes are full").isZero();

        long t0 = System.nanoTime();
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), main.port())) {
            byte[] predicate = WireResources.load("volcano/predicate-v1.15.json");
            TestServers.Response r = TestServers.exchange(s, "POST", "/volcano/predicate", predicate, predicate.length);
            assertThat(r.status()).as(r.body()).isEqualTo(200);
        }
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("predicate answered without waiting for a share")
                .isLessThan(RequestBodyBudget.DEFAULT_WAIT);
        try (Socket s = tls(secure, TestPki.clientContext(pki, pki))) {
            byte[] filter = WireResources.load("kube/filter-nodenames.json");
            TestServers.Response r = TestServers.exchange(s, "POST", "/kube/filter", filter, filter.length);
            assertThat(r.status()).as(r.body()).isEqualTo(200);
        }
        try (Socket big = new Socket(InetAddress.getLoopbackAddress(), main.port())) {
            big.getOutputStream().write(("POST /volcano/prioritize HTTP/1.1\r\nHost: x\r\nContent-Length: " + (24 << 20)
                    + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            big.getOutputStream().flush();
            long until = System.nanoTime() + 5_000_000_000L;
            while (budget.bytesInFlight() != 24L << 20 && System.nanoTime() < until) {
                Thread.sleep(10);
            }
            assertThat(budget.bytesInFlight()).as("a 24 MiB prioritize holds its share").isEqualTo(24L << 20);
        }

        List<Integer> statuses = statuses(attackers);
        assertThat(statuses.stream().filter(s -> s == 429).count()).as("429s of %s", statuses)
                .isEqualTo(2L * (ATTACKERS - 2));
        assertThat(statuses.stream().filter(s -> s == 0).count()).as("shares still held (no answer yet) of %s", statuses)
                .isEqualTo(4L);
    }

    /** (b) The 429 of a full unauthenticated route names its own budget, not the schedulers' flag. */
    @Test
    void aFullUnauthenticatedRouteAnswers429WithItsOwnBudget() throws Exception {
        attackers.add(stall(webhook, BindingHintWebhook.PATH, ROUTE_MAX_BODY, ""));
        attackers.add(stall(webhook, BindingHintWebhook.PATH, ROUTE_MAX_BODY, ""));
        awaitInFlight("pods-binding", ROUTE_BUDGET);
        try (Socket s = tls(webhook, TestPki.clientContext(pki, null))) {
            s.setSoTimeout(10_000);
            byte[] review = admissionReview();
            long t0 = System.nanoTime();
            TestServers.Response r = TestServers.exchange(s, "POST", BindingHintWebhook.PATH, review, review.length);
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(RequestBodyBudget.DEFAULT_WAIT);
            assertThat(r.status()).isEqualTo(429);
            assertThat(r.header("Retry-After")).isEqualTo("1");
            assertThat(r.body().strip()).isEqualTo("admission pods-binding: server busy: request bodies in flight fill "
                    + "this route's budget of " + ROUTE_BUDGET + " bytes (its callers are not authenticated before the "
                    + "body is read, so it has a small budget of its own); retry later");
        }
        // the other unauthenticated route has a budget of its own too: /explain answers meanwhile
        try (Socket s = tls(secure, TestPki.clientContext(pki, null))) {
            byte[] body = "{\"command\":\"pools\"}".getBytes(StandardCharsets.UTF_8);
            s.getOutputStream().write(("POST /explain HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + GOOD_TOKEN
                    + "\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().write(body);
            s.getOutputStream().flush();
            TestServers.Response r = TestServers.read(s.getInputStream());
            assertThat(r.status()).as(r.body()).isEqualTo(200);
        }
    }

    /**
     * The reported attack's own numbers: a webhook or {@code /explain} body declared at 31,326,208 bytes is over
     * these routes' 1 MiB limit: 413 at once, no share taken; a real AdmissionReview still gets 200 afterwards.
     */
    @Test
    void theReportedDeclaredLengthIsRefused413AtOnce() throws Exception {
        for (var target : List.of(Map.entry(webhook, BindingHintWebhook.PATH), Map.entry(secure, ExplainEndpoint.PATH))) {
            try (Socket s = tls(target.getKey(), TestPki.clientContext(pki, null))) {
                s.setSoTimeout(10_000);
                long t0 = System.nanoTime();
                s.getOutputStream().write(("POST " + target.getValue() + " HTTP/1.1\r\nHost: x\r\nAuthorization: "
                        + "Bearer x\r\nContent-Length: 31326208\r\n\r\n{").getBytes(StandardCharsets.ISO_8859_1));
                s.getOutputStream().flush();
                TestServers.Response r = TestServers.read(s.getInputStream());
                assertThat(r.status()).as(target.getValue()).isEqualTo(413);
                assertThat(r.body()).contains("request body of 31326208 bytes is over the limit of " + ROUTE_MAX_BODY
                        + " bytes (this route's: its callers are not authenticated before the body is read)");
                assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
            }
        }
        try (Socket s = tls(webhook, TestPki.clientContext(pki, null))) {
            byte[] review = admissionReview();
            TestServers.Response r = TestServers.exchange(s, "POST", BindingHintWebhook.PATH, review, review.length);
            assertThat(r.status()).as(r.body()).isEqualTo(200);
        }
        assertThat(registry.get("railyard.extender.unauthenticated.body.budget").tag("verb", "pods-binding").gauge()
                .value()).isEqualTo((double) ROUTE_BUDGET);
    }

    private static byte[] admissionReview() throws Exception {
        try (InputStream in = UnauthenticatedBodyBudgetTest.class.getResourceAsStream(
                "/admission/pods-binding-kube-scheduler.json")) {
            return in.readAllBytes();
        }
    }

    private static Socket tls(ExtenderServer server, SSLContext ctx) throws Exception {
        Socket s = ctx.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(), server.port());
        s.setSoTimeout(10_000);
        return s;
    }

    /** A TLS connection that sends a head declaring {@code length} bytes and one body byte, then stalls. */
    private static Socket stall(ExtenderServer server, String path, long length, String headers) throws Exception {
        Socket s = tls(server, TestPki.clientContext(pki, null));
        OutputStream out = s.getOutputStream();
        out.write(("POST " + path + " HTTP/1.1\r\nHost: x\r\n" + headers + "Content-Length: " + length + "\r\n\r\n{")
                .getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        return s;
    }

    /** Each connection's status, or 0 when none came within 3 s (its share is still held). */
    private static List<Integer> statuses(List<Socket> sockets) throws Exception {
        List<Integer> out = new ArrayList<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Integer>> fs = new ArrayList<>();
            for (Socket s : sockets) {
                fs.add(pool.submit(() -> {
                    s.setSoTimeout(3_000);
                    try {
                        return TestServers.read(s.getInputStream()).status();
                    } catch (SocketTimeoutException held) {
                        return 0;
                    }
                }));
            }
            for (Future<Integer> f : fs) {
                out.add(f.get(30, TimeUnit.SECONDS));
            }
        }
        return out;
    }

    private static void awaitInFlight(String verb, long bytes) throws InterruptedException {
        Gauge g = registry.get("railyard.extender.unauthenticated.body.in.flight").tag("verb", verb).gauge();
        long until = System.nanoTime() + 10_000_000_000L;
        while (g.value() != bytes && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        assertThat(g.value()).as("%s bytes in flight", verb).isEqualTo((double) bytes);
    }
}
