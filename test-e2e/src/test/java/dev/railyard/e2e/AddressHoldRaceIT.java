package dev.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 15's race on the real control plane (etcd, kube-apiserver; the schedulers' calls made by the test as
 * {@link AddressRaces} paces them): a pool with K = 10 free addresses ({@link AddressRound}), N = 200 pending pods
 * that each need one. Every round counts, from the API server, the pods that hold one of the pool's addresses (bound
 * pods, and pods with a live {@code railyard.dev/address-hold}), prints the counts, and asserts at most K; where
 * Railyard stays up, exactly K (it refuses none it could serve).
 *
 * <p>Rounds per scenario: {@code -Drailyard.e2e.race.rounds} (default 10). Railyard runs with the deciding verbs'
 * deadlines set to 1.5 s (kube) and 1 s (Volcano) and {@code --max-watch-outage=3s}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AddressHoldRaceIT {
    @RegisterExtension
    static final ControlPlaneExtension CLUSTER = new ControlPlaneExtension(ControlPlane.Options.apiOnly(
            AddressRaces.NODES));

    static final int ROUNDS = Integer.getInteger("railyard.e2e.race.rounds", 10);
    static final int N = 200;
    static final Duration KUBE_DEADLINE = Duration.ofMillis(1500);
    static final Duration VOLCANO_DEADLINE = Duration.ofMillis(1000);
    /** HTTP and JVM slack on a loaded 2-core machine, beyond the deadline. */
    static final Duration SLACK = Duration.ofMillis(700);

    private static RailyardProcess railyard;
    private static ExtenderCalls calls;
    private static AddressRaces races;
    private static int index;

    @BeforeAll
    static void start() throws IOException {
        CLUSTER.controlPlane().ensureNamespace(AddressRound.NAMESPACE);
        railyard = new RailyardProcess(CLUSTER.controlPlane(), "railyard", List.of("--log-level=info",
                "--kube-deadline=" + KUBE_DEADLINE.toMillis() + "ms",
                "--volcano-deadline=" + VOLCANO_DEADLINE.toMillis() + "ms", "--max-watch-outage=3s"), Map.of());
        railyard.start();
        calls = new ExtenderCalls(railyard::url, CLUSTER.controlPlane().client());
        races = new AddressRaces(calls, CLUSTER.controlPlane().client());
    }

    @AfterAll
    static void stop() {
        if (railyard != null) {
            railyard.stop();
        }
    }

    /** A fresh round: its network and pool, {@code N} pods of {@code scheduler}; waits until Railyard sees them. */
    private static Round round(String scenario, String scheduler, int pods) throws Exception {
        AddressRound r = new AddressRound(CLUSTER.controlPlane().client(), scenario + "-" + index, index);
        index++;
        r.createNetwork();
        List<Pod> created = r.createPods(0, pods, scheduler);
        races.awaitRound(r, created.get(created.size() - 1), AddressRound.K);
        return new Round(r, created);
    }

    private record Round(AddressRound net, List<Pod> pods) {
    }

    /** Counts, prints and checks one round; then deletes it. */
    private static AddressRound.Count finish(String scenario, int n, Round r, String calledBound, boolean exact) {
        AddressRound.Count c = r.net().count();
        System.out.println("[race] " + scenario + " round " + n + ": " + c.bound() + " bound + " + c.held()
                + " held = " + c.total() + " of K = " + AddressRound.K + " (N = " + r.pods().size() + "; "
                + calledBound + ")");
        assertThat(c.total()).as("pods holding an address of pool %s: %s", r.net().pool, c.holders())
                .isLessThanOrEqualTo(AddressRound.K);
        if (exact) {
            assertThat(c.total()).as("Railyard refused pods it could have served: %s", c.holders())
                    .isEqualTo(AddressRound.K);
        } else {
            assertThat(c.total()).as("nothing bound at all").isPositive();
        }
        r.net().delete();
        return c;
    }

    @Test
    @Order(1)
    void concurrentFilterThenBindBindsExactlyK() throws Exception {
        for (int n = 1; n <= ROUNDS; n++) {
            Round r = round("concurrent", "default-scheduler", N);
            int said = races.concurrentFilterBind(r.pods());
            int retried = races.retryRefused();
            finish("concurrent filter->bind", n, r, said + " binds answered OK, " + retried + " on retry", true);
        }
    }

    @Test
    @Order(2)
    void kubeSchedulerPacingBindsExactlyK() throws Exception {
        for (int n = 1; n <= ROUNDS; n++) {
            Round r = round("pacing", "default-scheduler", N);
            int said = races.pacing(r.pods(), -1, null);
            int retried = races.retryRefused();
            finish("kube pacing", n, r, said + " binds answered OK, " + retried + " on retry", true);
        }
    }

    @Test
    @Order(3)
    void serialBindsExactlyK() throws Exception {
        for (int n = 1; n <= ROUNDS; n++) {
            Round r = round("serial", "default-scheduler", N);
            int said = races.serial(r.pods());
            int retried = races.retryRefused();
            finish("serial", n, r, said + " binds answered OK, " + retried + " on retry", true);
        }
    }

    @Test
    @Order(4)
    void volcanoConcurrentAllocateFuncHoldsExactlyKAndTheHoldsAreOnThePods() throws Exception {
        for (int n = 1; n <= ROUNDS; n++) {
            Round r = round("allocate", "volcano", N);
            List<AddressRaces.Allocated> accepted = races.allocateInSessions(r.pods());
            // Railyard's own view: ten holds, each naming its pod, since and until
            var line = calls.poolLine(r.net().pool);
            assertThat(line.path("inFlight").asLong()).isEqualTo(AddressRound.K);
            assertThat(line.path("holds")).hasSize(AddressRound.K)
                    .allSatisfy(h -> assertThat(h.path("by").asText()).isEqualTo("volcano allocateFunc"));
            AddressRound.Count held = finishWithoutDelete(r);
            assertThat(held.held()).isEqualTo(accepted.size());
            // vc-scheduler binds what its session committed
            races.bindAsVolcano(accepted);
            finish("volcano allocateFunc x" + N, n, r, accepted.size() + " accepted", true);
        }
    }

    private static AddressRound.Count finishWithoutDelete(Round r) {
        return r.net().count();
    }

    /**
     * kill -9 mid-round: Volcano holds some addresses and kube binds race for the rest; Railyard is SIGKILLed while
     * binds are in flight, restarted, more pods are created, scheduling goes on, and vc-scheduler's binds of the
     * pods it was granted land after the restart.
     */
    @Test
    @Order(5)
    void killMinus9MidRoundNeverGivesMoreThanK() throws Exception {
        for (int n = 1; n <= ROUNDS; n++) {
            Round r = round("kill", "default-scheduler", 100);
            List<Pod> volcano = r.net().createPods(100, 110, "volcano");
            races.awaitRound(r.net(), volcano.get(volcano.size() - 1), AddressRound.K);
            List<AddressRaces.Allocated> granted = new ArrayList<>(races.allocateInSessions(volcano.subList(0, 3)));
            int said = races.pacing(r.pods(), 4 + n % 5, () -> {
                railyard.kill();
                railyard.start();
            });
            List<Pod> after = r.net().createPods(110, 210, "default-scheduler");
            List<Pod> pending = unbound(r.net(), after);
            said += races.pacing(pending, -1, null);
            granted.addAll(races.allocateConcurrently(volcano.subList(3, volcano.size())));
            int volcanoBound = races.bindAsVolcano(granted);
            finish("kill -9 mid-round", n, new Round(r.net(), concat(r.pods(), volcano, after)), said
                    + " kube binds answered OK, " + volcanoBound + " Volcano binds after the restart", false);
        }
    }

    /**
     * The API server stopped mid-round (SIGKILL in odd rounds, SIGSTOP in even ones) for 4 s: every deciding verb
     * answers within its deadline, {@code /readyz} turns not ready after the 3 s bound and ready again once the API
     * server is back; scheduling goes on and the pool is never over-committed.
     */
    @Test
    @Order(6)
    void apiServerStoppedMidRoundAnswersWithinTheDeadlineAndNeverGivesMoreThanK() throws Exception {
        ApiServerOutage outage = new ApiServerOutage(CLUSTER.controlPlane());
        for (int n = 1; n <= ROUNDS; n++) {
            boolean pause = n % 2 == 0;
            Round r = round("apiserver", "default-scheduler", N);
            List<Pod> volcano = r.net().createPods(N, N + 10, "volcano");
            races.awaitRound(r.net(), volcano.get(volcano.size() - 1), AddressRound.K);
            calls.resetSlowest();
            List<AddressRaces.Allocated> granted = new ArrayList<>();
            AtomicInteger said = new AtomicInteger();
            said.addAndGet(races.pacing(r.pods().subList(0, 100), 3 + n % 4, () -> {
                if (pause) {
                    outage.pause();
                } else {
                    outage.stop();
                }
                long down = System.nanoTime();
                granted.addAll(races.allocateConcurrently(volcano.subList(0, 5)));
                awaitReadyz(503);
                long notReadyAfter = (System.nanoTime() - down) / 1_000_000;
                System.out.println("[race] /readyz not ready " + notReadyAfter + " ms after the API server "
                        + (pause ? "paused" : "stopped"));
                if (pause) {
                    outage.resume();
                } else {
                    outage.start();
                }
                awaitReadyz(200);
            }));
            long slowest = calls.slowestMillis();
            said.addAndGet(races.pacing(unbound(r.net(), r.pods().subList(100, N)), -1, null));
            granted.addAll(races.allocateConcurrently(volcano.subList(5, 10)));
            int volcanoBound = races.bindAsVolcano(granted);
            System.out.println("[race] API server " + (pause ? "paused" : "stopped") + ", round " + n
                    + ": slowest answer " + slowest + " ms (kube deadline " + KUBE_DEADLINE.toMillis()
                    + " ms, Volcano " + VOLCANO_DEADLINE.toMillis() + " ms)");
            assertThat(slowest).as("slowest answer while the API server was away")
                    .isLessThanOrEqualTo(KUBE_DEADLINE.plus(SLACK).toMillis());
            finish("API server " + (pause ? "paused" : "stopped"), n, new Round(r.net(), concat(r.pods(), volcano)),
                    said.get() + " kube binds answered OK, " + volcanoBound + " Volcano binds", false);
        }
    }

    /**
     * Issue 16 item 2 on the real API server: {@code bind} and {@code allocateFunc} act only on a pod that exists,
     * has the UID the request names, is not bound and names a scheduler Railyard serves (default-scheduler, volcano);
     * otherwise they refuse with one line, the pod is left as it was (checked from the API server: no node, no hold,
     * same resourceVersion) and {@code railyard_refused_binds_total{verb,why}} counts the refusal.
     */
    @Test
    @Order(7)
    void bindAndAllocateRefuseWhatIsNotBeingScheduledAndLeaveThePodUntouched() throws Exception {
        AddressRound r = new AddressRound(CLUSTER.controlPlane().client(), "refuse", index++);
        r.createNetwork();
        Pod foreign = r.createPods(0, 1, "other-scheduler").get(0);
        List<Pod> ours = r.createPods(1, 3, "default-scheduler");
        races.awaitRound(r, ours.get(1), AddressRound.K);
        await().atMost(Duration.ofSeconds(30)).until(() -> calls.knows(foreign));
        var client = CLUSTER.controlPlane().client();

        double before = refused("bind", "other_scheduler");
        assertRefused(calls.bindReply(foreign, AddressRaces.NODES.get(0)), "its schedulerName is other-scheduler");
        assertThat(calls.allocate(foreign, AddressRaces.NODES.get(0))).contains("its schedulerName is other-scheduler");
        assertUntouched(client, foreign);
        assertThat(refused("bind", "other_scheduler")).isEqualTo(before + 1);
        assertThat(refused("allocateFunc", "other_scheduler")).isPositive();

        Pod wrongUid = new io.fabric8.kubernetes.api.model.PodBuilder(ours.get(0)).editMetadata()
                .withUid("00000000-0000-4000-8000-000000000000").endMetadata().build();
        before = refused("bind", "uid_mismatch");
        assertRefused(calls.bindReply(wrongUid, AddressRaces.NODES.get(0)), "not 00000000-0000-4000-8000-000000000000");
        assertUntouched(client, ours.get(0));
        assertThat(refused("bind", "uid_mismatch")).isEqualTo(before + 1);

        Pod bound = ours.get(1);
        assertThat(calls.bind(bound, AddressRaces.NODES.get(0))).isTrue();
        double boundBefore = refused("bind", "already_bound");
        // Railyard's cache learns of the Binding within moments; until then the API server refuses the second one
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).until(() -> {
            ExtenderCalls.Reply again = calls.bindReply(bound, AddressRaces.NODES.get(1));
            assertThat(ExtenderCalls.bindError(again)).isNotEmpty();
            return refused("bind", "already_bound") > boundBefore;
        });
        // still where the first bind put it (its hints may have been patched on since: not a bind)
        Pod now = client.pods().inNamespace(AddressRound.NAMESPACE).withName(bound.getMetadata().getName()).get();
        assertThat(now.getSpec().getNodeName()).isEqualTo(AddressRaces.NODES.get(0));
        System.out.println("[race] refusals: bind other_scheduler " + refused("bind", "other_scheduler")
                + ", uid_mismatch " + refused("bind", "uid_mismatch") + ", already_bound "
                + refused("bind", "already_bound") + "; allocateFunc other_scheduler "
                + refused("allocateFunc", "other_scheduler"));
        r.delete();
    }

    private static void assertRefused(ExtenderCalls.Reply reply, String says) {
        assertThat(reply.status()).isEqualTo(200);
        assertThat(ExtenderCalls.bindError(reply)).contains("refused").contains(says);
    }

    /** The pod as the API server has it: unchanged since it was created (not bound, no hold written). */
    private static void assertUntouched(io.fabric8.kubernetes.client.KubernetesClient client, Pod created) {
        Pod now = client.pods().inNamespace(created.getMetadata().getNamespace())
                .withName(created.getMetadata().getName()).get();
        assertThat(now.getSpec().getNodeName()).isNull();
        assertThat(now.getMetadata().getAnnotations()).doesNotContainKey(AddressRound.HOLD);
        assertThat(now.getMetadata().getResourceVersion()).isEqualTo(created.getMetadata().getResourceVersion());
    }

    /** @return {@code railyard_refused_binds_total{verb,why}} from Railyard's /metrics (0 when not counted yet) */
    private static double refused(String verb, String why) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        String text = http.send(HttpRequest.newBuilder(railyard.url().resolve("/metrics")).GET().build(),
                HttpResponse.BodyHandlers.ofString()).body();
        for (String line : text.split("\n")) {
            if (line.startsWith("railyard_refused_binds_total{") && line.contains("verb=\"" + verb + "\"")
                    && line.contains("why=\"" + why + "\"")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return 0;
    }

    private static void awaitReadyz(int status) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                .until(() -> http.send(HttpRequest.newBuilder(railyard.url().resolve("/readyz"))
                        .timeout(Duration.ofSeconds(2)).GET().build(), HttpResponse.BodyHandlers.discarding())
                        .statusCode() == status);
    }

    private static List<Pod> unbound(AddressRound round, List<Pod> among) {
        java.util.Set<String> names = new java.util.HashSet<>();
        for (Pod p : round.pods()) {
            if (p.getSpec().getNodeName() == null) {
                names.add(p.getMetadata().getName());
            }
        }
        return among.stream().filter(p -> names.contains(p.getMetadata().getName())).toList();
    }

    @SafeVarargs
    private static List<Pod> concat(List<Pod>... lists) {
        List<Pod> out = new ArrayList<>();
        for (List<Pod> l : lists) {
            out.addAll(l);
        }
        return out;
    }
}
