package dev.railyard.scheduler.service;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Leader election among the extender's replicas with fabric8's {@code LeaderElector} on a
 * {@code coordination.k8s.io/v1} Lease ({@link Timing}: 15 s lease, 10 s renew deadline, 2 s retry by default, as
 * kube-scheduler's defaults).
 *
 * <p>Two ways to route the schedulers to the one leader ("one brain"):
 * <ul>
 *   <li>readiness (no {@code leaderLabel}): only the leader reports ready, so the Service's endpoints hold only it;</li>
 *   <li>label ({@code leaderLabel} set): every synced replica is ready, and the leader labels its own pod
 *       {@code <leaderLabel>=true} (removing the label from any other pod in its namespace), which the Service
 *       selects. Rolling updates and PodDisruptionBudgets then work normally.</li>
 * </ul>
 *
 * <p>Life cycle. A replica campaigns from construction on: every {@code retryPeriod} (with up to 120 % jitter) it
 * tries to create or take over the Lease, which it may once the holder has not renewed it for
 * {@code leaseDuration}. The leader renews every {@code retryPeriod}; when it cannot renew for
 * {@code renewDeadline}, or finds another holder in the Lease, it has lost leadership: it removes its pod label
 * (label routing) and runs {@code onLost} on a new thread. fabric8's elector does not campaign again after that,
 * and the replica's in-memory plans may be stale by then, so {@code railyard serve} exits (like kube-scheduler,
 * which exits on "leaderelection lost") and the restarted container rebuilds its state from the cluster.
 * {@link #close()} instead releases the Lease (holder cleared and a 1 s lease, as client-go's
 * {@code ReleaseOnCancel}, so a standby takes over at its next retry rather than after {@code leaseDuration}) and does
 * not run {@code onLost}.
 *
 * <p>Exposes the gauge {@code railyard_leader} (1 leader, 0 not). Thread-safe.
 */
public final class LeaderElection implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);
    /** Kubernetes {@code MicroTime} as the API server writes it (RFC 3339, microseconds, UTC). */
    private static final java.time.format.DateTimeFormatter MICRO_TIME =
            java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'");
    /** A plain mapper: writes the explicit null that removes the holder in a merge patch (RFC 7386). */
    private static final com.fasterxml.jackson.databind.ObjectMapper PLAIN_JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();

    /**
     * Lease timing, with the meaning and the constraints of client-go's {@code LeaderElectionConfig} (and
     * kube-scheduler's {@code --leader-elect-*} flags).
     *
     * @param leaseDuration how long a standby waits after the holder's last renewal before taking the Lease; whole
     *                      seconds (the Lease stores {@code leaseDurationSeconds})
     * @param renewDeadline how long the leader keeps trying to renew before it gives up leadership
     * @param retryPeriod   time between attempts to acquire or renew
     */
    public record Timing(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
        /** kube-scheduler's defaults: 15 s, 10 s, 2 s. */
        public static final Timing DEFAULTS = new Timing(Duration.ofSeconds(15), Duration.ofSeconds(10),
                Duration.ofSeconds(2));
        /** The elector waits up to this factor more than {@code retryPeriod} between acquire attempts (fabric8, client-go). */
        static final double JITTER_FACTOR = 1.2;

        /**
         * @throws IllegalArgumentException unless every duration is positive, the lease is whole seconds, the lease
         *                                  is longer than the renew deadline and the renew deadline is longer than
         *                                  1.2 × the retry period (client-go's checks)
         */
        public Timing {
            Objects.requireNonNull(leaseDuration, "leaseDuration");
            Objects.requireNonNull(renewDeadline, "renewDeadline");
            Objects.requireNonNull(retryPeriod, "retryPeriod");
            if (leaseDuration.isNegative() || leaseDuration.isZero() || renewDeadline.isNegative()
                    || renewDeadline.isZero() || retryPeriod.isNegative() || retryPeriod.isZero()) {
                throw new IllegalArgumentException("leader election durations must be positive");
            }
            if (leaseDuration.toNanos() % 1_000_000_000L != 0) {
                throw new IllegalArgumentException("leader election lease duration must be whole seconds (the Lease "
                        + "stores leaseDurationSeconds), got " + leaseDuration.toMillis() + " ms");
            }
            if (leaseDuration.compareTo(renewDeadline) <= 0) {
                throw new IllegalArgumentException("leader election lease duration (" + leaseDuration.toMillis()
                        + " ms) must be longer than the renew deadline (" + renewDeadline.toMillis() + " ms)");
            }
            if (renewDeadline.toMillis() <= retryPeriod.toMillis() * JITTER_FACTOR) {
                throw new IllegalArgumentException("leader election renew deadline (" + renewDeadline.toMillis()
                        + " ms) must be longer than 1.2 x the retry period (" + retryPeriod.toMillis() + " ms)");
            }
        }
    }

    private final KubernetesClient client;
    private final String namespace;
    private final String leaseName;
    private final String identity;
    private final String leaderLabel;
    private final Runnable onLost;
    private final AtomicBoolean leading = new AtomicBoolean();
    private final AtomicReference<String> leader = new AtomicReference<>();
    private volatile boolean closing;
    private final CompletableFuture<?> running;

    /**
     * Starts campaigning at once, with the default timing and nothing to do on a lost leadership.
     *
     * @see #LeaderElection(KubernetesClient, String, String, String, String, Timing, Runnable, MeterRegistry)
     */
    public LeaderElection(KubernetesClient client, String namespace, String leaseName, String identity,
                          String leaderLabel, MeterRegistry registry) {
        this(client, namespace, leaseName, identity, leaderLabel, Timing.DEFAULTS, () -> { }, registry);
    }

    /**
     * Starts campaigning at once.
     *
     * @param client      client with get/create/patch on the Lease (fabric8's LeaseLock renews with a JSON merge patch) and, in label mode, list/patch on pods
     * @param namespace   namespace of the Lease (and of this pod)
     * @param leaseName   name of the Lease
     * @param identity    this replica's identity, normally its pod name
     * @param leaderLabel label key for label routing, or null for readiness routing
     * @param timing      lease, renew and retry durations
     * @param onLost      run once, on a new thread, when this replica led and lost leadership other than by
     *                    {@link #close()}
     */
    public LeaderElection(KubernetesClient client, String namespace, String leaseName, String identity,
                          String leaderLabel, Timing timing, Runnable onLost, MeterRegistry registry) {
        this.client = client;
        this.namespace = namespace;
        this.leaseName = leaseName;
        this.identity = identity;
        this.leaderLabel = leaderLabel;
        this.onLost = Objects.requireNonNull(onLost, "onLost");
        Gauge.builder("railyard_leader", () -> leading.get() ? 1 : 0)
                .description("1 while this replica leads, else 0").register(registry);
        var config = new LeaderElectionConfigBuilder()
                .withName("railyard")
                .withLock(new LeaseLock(namespace, leaseName, identity))
                .withLeaseDuration(timing.leaseDuration())
                .withRenewDeadline(timing.renewDeadline())
                .withRetryPeriod(timing.retryPeriod())
                // released in stoppedLeading instead: fabric8 8.0's release is a JSON merge patch without the null
                // holderIdentity, which leaves the holder named (for a 1 s lease) rather than clearing it
                .withReleaseOnCancel(false)
                .withLeaderCallbacks(new LeaderCallbacks(this::startedLeading, this::stoppedLeading,
                        this::newLeader))
                .build();
        LOG.info("{} campaigns for Lease {}/{} (lease {} ms, renew deadline {} ms, retry {} ms)", identity, namespace,
                leaseName, timing.leaseDuration().toMillis(), timing.renewDeadline().toMillis(),
                timing.retryPeriod().toMillis());
        this.running = client.leaderElector().withConfig(config).build().start();
    }

    /** @return true while this replica holds the Lease */
    public boolean leading() {
        return leading.get();
    }

    /** @return true when readiness must wait for leadership (readiness routing) */
    public boolean routesByReadiness() {
        return leaderLabel == null;
    }

    /**
     * @return empty while this replica leads; otherwise one line saying it is a standby and who leads, e.g.
     *         {@code railyard-1 is a standby: the leader is railyard-0 (Lease railyard-system/railyard)}
     */
    public Optional<String> standbyReason() {
        if (leading.get()) {
            return Optional.empty();
        }
        String holder = leader.get();
        return Optional.of(identity + " is a standby: " + (holder == null || holder.isEmpty()
                ? "no leader yet" : "the leader is " + holder) + " (Lease " + namespace + "/" + leaseName + ")");
    }

    private void newLeader(String holder) {
        leader.set(holder);
        LOG.info("leader is now {}", holder == null || holder.isEmpty() ? "nobody (Lease released)" : holder);
    }

    private void startedLeading() {
        leading.set(true);
        leader.set(identity);
        LOG.info("{} leads (Lease {}/{})", identity, namespace, leaseName);
        if (leaderLabel != null) {
            relabel();
        }
    }

    private void stoppedLeading() {
        if (!leading.getAndSet(false)) {
            return;
        }
        if (leaderLabel != null) {
            setLabel(identity, null);
        }
        if (closing) {
            release();
            return;
        }
        LOG.warn("{} lost Lease {}/{} (not renewed within the renew deadline, or taken by another replica)",
                identity, namespace, leaseName);
        Thread t = new Thread(onLost, "railyard-leadership-lost");
        t.start();
    }

    /**
     * Clears the holder (as client-go's {@code ReleaseOnCancel} does) with a 1 s lease, so that a standby takes over at
     * its next retry. A JSON merge patch carrying the Lease's resourceVersion (the chart grants {@code patch}, never
     * {@code update}) and an explicit {@code "holderIdentity": null}: if another replica wrote the Lease since it was
     * read, it is no longer ours to release (409, logged).
     */
    private void release() {
        try {
            Lease lease = client.leases().inNamespace(namespace).withName(leaseName).get();
            if (lease == null || lease.getSpec() == null || !identity.equals(lease.getSpec().getHolderIdentity())) {
                LOG.info("{} no longer holds Lease {}/{}; nothing to release", identity, namespace, leaseName);
                return;
            }
            Map<String, Object> spec = new java.util.LinkedHashMap<>();
            spec.put("holderIdentity", null);
            spec.put("leaseDurationSeconds", 1);
            spec.put("renewTime", MICRO_TIME.format(ZonedDateTime.now(ZoneOffset.UTC)));
            Map<String, Object> patch = Map.of("metadata",
                    Map.of("resourceVersion", lease.getMetadata().getResourceVersion()), "spec", spec);
            client.leases().inNamespace(namespace).withName(leaseName).patch(
                    io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                            io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
                    PLAIN_JSON.writeValueAsString(patch));
            LOG.info("{} released Lease {}/{}", identity, namespace, leaseName);
        } catch (KubernetesClientException | com.fasterxml.jackson.core.JsonProcessingException e) {
            LOG.warn("{} could not release Lease {}/{} (a standby takes over after the lease duration): {}", identity,
                    namespace, leaseName, e.getMessage());
        }
    }

    private void relabel() {
        try {
            for (Pod p : client.pods().inNamespace(namespace).withLabel(leaderLabel).list().getItems()) {
                if (!identity.equals(p.getMetadata().getName())) {
                    setLabel(p.getMetadata().getName(), null);
                }
            }
            setLabel(identity, "true");
        } catch (KubernetesClientException e) {
            LOG.warn("cannot set the leader label {} on pods in {}: {}", leaderLabel, namespace, e.getMessage());
        }
    }

    private void setLabel(String pod, String value) {
        try {
            Map<String, Object> patch = Map.of("metadata", Map.of("labels",
                    value == null ? java.util.Collections.singletonMap(leaderLabel, null) : Map.of(leaderLabel, value)));
            client.pods().inNamespace(namespace).withName(pod)
                    .patch(io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                            io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
                            io.fabric8.kubernetes.client.utils.Serialization.asJson(patch));
        } catch (KubernetesClientException e) {
            LOG.warn("cannot {} label {} on pod {}/{}: {}", value == null ? "remove" : "set", leaderLabel,
                    namespace, pod, e.getMessage());
        }
    }

    /**
     * Stops campaigning; a leader releases the Lease (holder cleared) before this returns, so that a standby takes
     * over at its next retry. Does not run {@code onLost}.
     */
    @Override
    public void close() {
        closing = true;
        running.cancel(true);
    }
}
