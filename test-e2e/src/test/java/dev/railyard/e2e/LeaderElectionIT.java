package dev.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two {@code railyard serve} replicas with leader election against a real kube-apiserver (etcd, kube-apiserver and
 * the CRDs only; no scheduler): the {@code coordination.k8s.io/v1} Lease names one holder; with readiness routing
 * only it answers {@code /readyz} 200; a standby refuses the deciding verbs with 503; a SIGKILLed leader is replaced
 * once its lease has run out; a SIGTERMed leader releases the Lease; label routing moves the
 * {@code railyard.dev/leader} pod label; a leader whose Lease is taken exits with code 1.
 *
 * <p>Short lease timing through the flags kube-scheduler also has: lease 4 s, renew deadline 3 s, retry 0.5 s.
 */
class LeaderElectionIT {

    @RegisterExtension
    static final ControlPlaneExtension CLUSTER =
            new ControlPlaneExtension(ControlPlane.Options.apiOnly(List.of("gpu-node-1")));

    static final String NAMESPACE = "railyard-system";
    static final Duration LEASE = Duration.ofSeconds(4);
    static final Duration RETRY = Duration.ofMillis(500);
    /** Failover bound: the lease runs out, the standby's next attempt (retry × up to 1.2 jitter), then slack for
     * a loaded 2-core machine (JVM safepoints, the readiness poll). */
    static final Duration FAILOVER = LEASE.plus(RETRY.multipliedBy(3)).plusSeconds(6);
    static final String LEADER_LABEL = "railyard.dev/leader";

    private KubernetesClient client;
    private final List<RailyardProcess> replicas = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @BeforeEach
    void namespace() {
        client = CLUSTER.controlPlane().client();
        CLUSTER.controlPlane().ensureNamespace(NAMESPACE);
    }

    @AfterEach
    void stopReplicas() {
        replicas.forEach(RailyardProcess::stop);
        replicas.clear();
    }

    private RailyardProcess replica(String identity, String lease, String... more) {
        List<String> args = new ArrayList<>(List.of("--leader-elect", "--leader-elect-lease-name=" + lease,
                "--leader-elect-lease-namespace=" + NAMESPACE,
                "--leader-elect-lease-duration=" + LEASE.toSeconds() + "s", "--leader-elect-renew-deadline=3s",
                "--leader-elect-retry-period=" + RETRY.toMillis() + "ms", "--log-level=info"));
        args.addAll(List.of(more));
        RailyardProcess p = new RailyardProcess(CLUSTER.controlPlane(), identity, args, Map.of("POD_NAME", identity));
        replicas.add(p);
        return p;
    }

    private Lease lease(String name) {
        return client.leases().inNamespace(NAMESPACE).withName(name).get();
    }

    private String holder(String lease) {
        Lease l = lease(lease);
        return l == null || l.getSpec() == null ? null : l.getSpec().getHolderIdentity();
    }

    private HttpResponse<String> get(RailyardProcess p, String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(p.url().resolve(path)).timeout(Duration.ofSeconds(5)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(RailyardProcess p, String path, String body)
            throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(p.url().resolve(path)).timeout(Duration.ofSeconds(5))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private void awaitReadyz(RailyardProcess p, int status, String body) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .ignoreExceptionsInstanceOf(IOException.class).untilAsserted(() -> {
                    HttpResponse<String> r = get(p, "/readyz");
                    assertThat(r.statusCode() + " " + r.body().strip()).isEqualTo(status + " " + body);
                });
    }

    /** kube-scheduler filter in nodeCacheCapable form: a bare pod and one node name (docs/formats/kube-extender.md §1). */
    private static final String FILTER = """
            {"Pod":{"metadata":{"name":"probe","namespace":"default","uid":"0f0f0f0f-0000-4000-8000-000000000001"},\
            "spec":{"containers":[{"name":"c","image":"busybox"}]}},"Nodes":null,"NodeNames":["gpu-node-1"]}""";

    @Test
    void onlyTheLeaderIsReadyAndAKilledLeaderIsReplacedOnceItsLeaseRunsOut() throws Exception {
        String lease = "railyard-readiness";
        RailyardProcess a = replica("railyard-a", lease);
        a.startServing();
        await().atMost(Duration.ofSeconds(60)).until(() -> "railyard-a".equals(holder(lease)));
        awaitReadyz(a, 200, "ready");

        RailyardProcess b = replica("railyard-b", lease);
        b.startServing();
        // readiness routing (no --leader-label): the standby is synced but not ready, and says who leads
        awaitReadyz(b, 503, "not ready: railyard-b is a standby: the leader is railyard-a (Lease " + NAMESPACE + "/"
                + lease + ")");
        Lease held = lease(lease);
        assertThat(held.getSpec().getLeaseDurationSeconds()).isEqualTo(4);
        assertThat(held.getSpec().getLeaseTransitions()).isZero();
        assertThat(get(a, "/readyz").statusCode()).isEqualTo(200);
        assertThat(get(a, "/metrics").body()).contains("railyard_leader 1.0");
        assertThat(get(b, "/metrics").body()).contains("railyard_leader 0.0");

        // the standby refuses deciding verbs, keeps the harmless ones; the leader decides (neutral: no NodeTopology)
        HttpResponse<String> refused = post(b, "/kube/filter", FILTER);
        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.body().strip()).isEqualTo("kube filter: railyard-b is a standby: the leader is railyard-a "
                + "(Lease " + NAMESPACE + "/" + lease + "); only the leader decides");
        assertThat(post(b, "/volcano/onSessionOpen", "{}").body()).isEqualTo("{}");
        HttpResponse<String> decided = post(a, "/kube/filter", FILTER);
        assertThat(decided.statusCode()).isEqualTo(200);
        assertThat(decided.body()).contains("\"NodeNames\":[\"gpu-node-1\"]");

        // crash: no release. The standby must wait for the lease to run out, then take it and turn ready.
        long killed = System.nanoTime();
        a.kill();
        assertThat(holder(lease)).as("right after the crash the dead leader still holds the Lease").isEqualTo("railyard-a");
        await().atMost(FAILOVER).pollInterval(Duration.ofMillis(100)).until(() -> "railyard-b".equals(holder(lease)));
        Duration takeover = Duration.ofNanos(System.nanoTime() - killed);
        awaitReadyz(b, 200, "ready");
        assertThat(lease(lease).getSpec().getLeaseTransitions()).isEqualTo(1);
        System.out.println("[e2e] leader SIGKILLed; standby took the Lease after " + takeover.toMillis()
                + " ms (lease " + LEASE.toMillis() + " ms, retry " + RETRY.toMillis() + " ms)");

        // the old leader comes back (same pod name after a container restart) as a standby
        a.startServing();
        awaitReadyz(a, 503, "not ready: railyard-a is a standby: the leader is railyard-b (Lease " + NAMESPACE + "/"
                + lease + ")");

        // graceful stop (SIGTERM): the Lease is released, so the standby need not wait for the lease to run out
        b.stop();
        Lease released = lease(lease);
        assertThat(released.getSpec().getHolderIdentity()).as("released or already taken by the standby")
                .isNotEqualTo("railyard-b");
        if (released.getSpec().getHolderIdentity() == null) {
            assertThat(released.getSpec().getLeaseDurationSeconds()).isEqualTo(1);
        }
        assertThat(Files.readString(CLUSTER.controlPlane().runDir().resolve("railyard-b-1.log")))
                .contains("railyard-b released Lease " + NAMESPACE + "/" + lease);
        await().atMost(FAILOVER).until(() -> "railyard-a".equals(holder(lease)));
        awaitReadyz(a, 200, "ready");
        assertThat(lease(lease).getSpec().getLeaseTransitions()).isEqualTo(2);
    }

    @Test
    void labelRoutingKeepsEveryReplicaReadyAndMovesTheLeaderLabel() throws Exception {
        String lease = "railyard-label";
        // the pods the replicas would run in (no scheduler runs here, so they stay Pending); the leader labels its own
        for (String name : List.of("railyard-la", "railyard-lb")) {
            Pod pod = new PodBuilder().withNewMetadata().withName(name).withNamespace(NAMESPACE).endMetadata()
                    .withNewSpec().addNewContainer().withName("extender").withImage("railyard").endContainer()
                    .endSpec().build();
            client.pods().inNamespace(NAMESPACE).resource(pod).create();
        }
        RailyardProcess a = replica("railyard-la", lease, "--leader-label=" + LEADER_LABEL);
        a.startServing();
        await().atMost(Duration.ofSeconds(60)).until(() -> "true".equals(label("railyard-la")));
        assertThat(holder(lease)).isEqualTo("railyard-la");
        RailyardProcess b = replica("railyard-lb", lease, "--leader-label=" + LEADER_LABEL);
        b.startServing();
        // label routing: every synced replica is ready; the Service selects the label
        awaitReadyz(a, 200, "ready");
        awaitReadyz(b, 200, "ready");
        assertThat(label("railyard-lb")).isNull();
        assertThat(post(b, "/kube/filter", FILTER).statusCode()).isEqualTo(503);

        a.kill();
        // the new leader labels itself and takes the label off the dead leader's pod
        await().atMost(FAILOVER).until(() -> "true".equals(label("railyard-lb")) && label("railyard-la") == null);
        assertThat(holder(lease)).isEqualTo("railyard-lb");
        assertThat(post(b, "/kube/filter", FILTER).statusCode()).isEqualTo(200);

        // graceful stop: label removed from its own pod, Lease released
        b.stop();
        assertThat(label("railyard-lb")).isNull();
        assertThat(holder(lease)).isNull();
    }

    @Test
    void leaderWhoseLeaseIsTakenExitsWithCode1() throws Exception {
        String lease = "railyard-taken";
        RailyardProcess a = replica("railyard-t", lease);
        a.startServing();
        await().atMost(Duration.ofSeconds(60)).until(() -> "railyard-t".equals(holder(lease)));

        // another holder writes the Lease (the leader renews every 0.5 s: retry on a conflict)
        await().atMost(Duration.ofSeconds(20)).ignoreExceptionsInstanceOf(KubernetesClientException.class).until(() -> {
            Lease l = lease(lease);
            l.getSpec().setHolderIdentity("intruder");
            l.getSpec().setRenewTime(ZonedDateTime.now());
            l.getSpec().setLeaseDurationSeconds(60);
            client.resource(l).update();
            return true;
        });

        ComponentProcess p = a.process();
        await().atMost(Duration.ofSeconds(30)).until(() -> !p.alive());
        assertThat(p.exitCode()).contains(1);
        assertThat(Files.readString(p.log()))
                .contains("railyard-t lost Lease " + NAMESPACE + "/" + lease)
                .contains("leadership lost: exiting so that a restart rebuilds plans and reservations from the cluster");
        // a replica that no longer holds the Lease does not release it
        assertThat(holder(lease)).isEqualTo("intruder");
    }

    private String label(String pod) {
        Pod p = client.pods().inNamespace(NAMESPACE).withName(pod).get();
        Map<String, String> labels = p.getMetadata().getLabels();
        return labels == null ? null : labels.get(LEADER_LABEL);
    }
}
