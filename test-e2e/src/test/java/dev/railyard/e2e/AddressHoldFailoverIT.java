package dev.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 15's race across a leader failover: two {@code railyard serve} replicas with leader election (readiness
 * routing, lease 4 s, renew deadline 3 s, retry 0.5 s, as {@link LeaderElectionIT}); the schedulers' calls go to
 * whichever replica is ready, as the Service would route them. Each round Volcano holds some addresses and kube binds
 * race for the rest; the leader is SIGKILLed mid-round, the standby takes over, more pods come, vc-scheduler's binds
 * of the pods it was granted land after the failover, and the killed replica comes back as the standby. Every round
 * counts the pool's holders from the API server: at most K = 10.
 */
class AddressHoldFailoverIT {
    @RegisterExtension
    static final ControlPlaneExtension CLUSTER = new ControlPlaneExtension(ControlPlane.Options.apiOnly(
            AddressRaces.NODES));

    static final String NAMESPACE = "railyard-system";
    static final String LEASE = "railyard-race";
    private static final List<RailyardProcess> REPLICAS = new ArrayList<>();
    private static final AtomicReference<URI> READY = new AtomicReference<>();
    private static ScheduledExecutorService router;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

    @BeforeAll
    static void start() throws IOException {
        CLUSTER.controlPlane().ensureNamespace(NAMESPACE);
        CLUSTER.controlPlane().ensureNamespace(AddressRound.NAMESPACE);
        for (String id : List.of("railyard-a", "railyard-b")) {
            RailyardProcess p = new RailyardProcess(CLUSTER.controlPlane(), id, List.of("--leader-elect",
                    "--leader-elect-lease-name=" + LEASE, "--leader-elect-lease-namespace=" + NAMESPACE,
                    "--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline=3s",
                    "--leader-elect-retry-period=500ms", "--log-level=info",
                    "--kube-deadline=" + AddressHoldRaceIT.KUBE_DEADLINE.toMillis() + "ms",
                    "--volcano-deadline=" + AddressHoldRaceIT.VOLCANO_DEADLINE.toMillis() + "ms"), Map.of("POD_NAME", id));
            REPLICAS.add(p);
            p.startServing();
        }
        // the Service's endpoints: the ready replica (readiness routing: only the leader is ready)
        router = Executors.newSingleThreadScheduledExecutor();
        router.scheduleWithFixedDelay(AddressHoldFailoverIT::route, 0, 100, TimeUnit.MILLISECONDS);
        await().atMost(Duration.ofSeconds(90)).until(() -> READY.get() != null);
    }

    private static void route() {
        for (RailyardProcess p : REPLICAS) {
            try {
                if (p.running() && HTTP.send(HttpRequest.newBuilder(p.url().resolve("/readyz"))
                        .timeout(Duration.ofMillis(500)).GET().build(), HttpResponse.BodyHandlers.discarding())
                        .statusCode() == 200) {
                    READY.set(p.url());
                    return;
                }
            } catch (IOException e) {
                // not listening: not an endpoint
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @AfterAll
    static void stop() {
        if (router != null) {
            router.shutdownNow();
        }
        REPLICAS.forEach(RailyardProcess::stop);
    }

    private static RailyardProcess leader() {
        Lease l = CLUSTER.controlPlane().client().leases().inNamespace(NAMESPACE).withName(LEASE).get();
        String holder = l == null || l.getSpec() == null ? null : l.getSpec().getHolderIdentity();
        return REPLICAS.stream().filter(p -> p.process() != null && holder != null
                && p.process().name().startsWith(holder)).findFirst().orElseThrow(() ->
                new AssertionError("no replica holds Lease " + LEASE + " (holder " + holder + ")"));
    }

    @Test
    void leaderFailoverMidRoundNeverGivesMoreThanK() throws Exception {
        ExtenderCalls calls = new ExtenderCalls(READY::get, CLUSTER.controlPlane().client());
        AddressRaces races = new AddressRaces(calls, CLUSTER.controlPlane().client());
        java.util.concurrent.CompletableFuture<Void> restarting = java.util.concurrent.CompletableFuture
                .completedFuture(null);
        for (int n = 1; n <= AddressHoldRaceIT.ROUNDS; n++) {
            java.util.concurrent.CompletableFuture<Void> standby = restarting;
            AddressRound round = new AddressRound(CLUSTER.controlPlane().client(), "failover-" + n, 100 + n);
            round.createNetwork();
            List<Pod> kube = round.createPods(0, 100, "default-scheduler");
            List<Pod> volcano = round.createPods(100, 110, "volcano");
            races.awaitRound(round, volcano.get(volcano.size() - 1), AddressRound.K);
            List<AddressRaces.Allocated> granted = new ArrayList<>(races.allocateInSessions(volcano.subList(0, 3)));
            RailyardProcess[] killed = new RailyardProcess[1];
            int said = races.pacing(kube, 3 + n % 5, () -> {
                standby.join(); // the replica killed last round is back as the standby
                killed[0] = leader();
                URI old = killed[0].url();
                killed[0].kill();
                // the standby takes the Lease once it has run out, then reports ready
                await().atMost(Duration.ofSeconds(30)).until(() -> READY.get() != null && !READY.get().equals(old));
            });
            List<Pod> after = round.createPods(110, 210, "default-scheduler");
            said += races.pacing(after, -1, null);
            granted.addAll(races.allocateConcurrently(volcano.subList(3, volcano.size())));
            int volcanoBound = races.bindAsVolcano(granted);
            AddressRound.Count c = round.count();
            System.out.println("[race] leader failover round " + n + ": " + c.bound() + " bound + " + c.held()
                    + " held = " + c.total() + " of K = " + AddressRound.K + " (N = 210; " + said
                    + " kube binds answered OK, " + volcanoBound + " Volcano binds after the failover)");
            assertThat(c.total()).as("holders of pool %s: %s", round.pool, c.holders())
                    .isLessThanOrEqualTo(AddressRound.K);
            assertThat(c.total()).isPositive();
            round.delete();
            RailyardProcess back = killed[0];
            // back as the standby for the next round, starting while the next round is set up
            restarting = java.util.concurrent.CompletableFuture.runAsync(() -> {
                try {
                    back.startServing();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        }
        restarting.join();
    }
}
