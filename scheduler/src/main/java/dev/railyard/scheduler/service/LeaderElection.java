package dev.railyard.scheduler.service;

import io.fabric8.kubernetes.api.model.Pod;
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
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Leader election among the extender's replicas with fabric8's {@code LeaderElector} on a
 * {@code coordination.k8s.io/v1} Lease (15 s lease, 10 s renew deadline, 2 s retry, as kube-scheduler's defaults).
 *
 * <p>Two ways to route the schedulers to the one leader ("one brain"):
 * <ul>
 *   <li>readiness (no {@code leaderLabel}): only the leader reports ready, so the Service's endpoints hold only it;</li>
 *   <li>label ({@code leaderLabel} set): every synced replica is ready, and the leader labels its own pod
 *       {@code <leaderLabel>=true} (removing the label from any other pod in its namespace), which the Service
 *       selects. Rolling updates and PodDisruptionBudgets then work normally.</li>
 * </ul>
 * Exposes the gauge {@code railyard_leader} (1 leader, 0 not). Thread-safe.
 */
public final class LeaderElection implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);

    private final KubernetesClient client;
    private final String namespace;
    private final String identity;
    private final String leaderLabel;
    private final AtomicBoolean leading = new AtomicBoolean();
    private final CompletableFuture<?> running;

    /**
     * Starts campaigning at once.
     *
     * @param client      client with get/create/patch on the Lease (fabric8's LeaseLock renews with a JSON merge patch) and, in label mode, list/patch on pods
     * @param namespace   namespace of the Lease (and of this pod)
     * @param leaseName   name of the Lease
     * @param identity    this replica's identity, normally its pod name
     * @param leaderLabel label key for label routing, or null for readiness routing
     */
    public LeaderElection(KubernetesClient client, String namespace, String leaseName, String identity,
                          String leaderLabel, MeterRegistry registry) {
        this.client = client;
        this.namespace = namespace;
        this.identity = identity;
        this.leaderLabel = leaderLabel;
        Gauge.builder("railyard_leader", () -> leading.get() ? 1 : 0)
                .description("1 while this replica leads, else 0").register(registry);
        var config = new LeaderElectionConfigBuilder()
                .withName("railyard")
                .withLock(new LeaseLock(namespace, leaseName, identity))
                .withLeaseDuration(Duration.ofSeconds(15))
                .withRenewDeadline(Duration.ofSeconds(10))
                .withRetryPeriod(Duration.ofSeconds(2))
                .withReleaseOnCancel(true)
                .withLeaderCallbacks(new LeaderCallbacks(this::startedLeading, this::stoppedLeading,
                        leader -> LOG.info("leader is now {}", leader)))
                .build();
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

    private void startedLeading() {
        leading.set(true);
        LOG.info("{} leads", identity);
        if (leaderLabel != null) {
            relabel();
        }
    }

    private void stoppedLeading() {
        leading.set(false);
        LOG.warn("{} stopped leading", identity);
        if (leaderLabel != null) {
            setLabel(identity, null);
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

    @Override
    public void close() {
        running.cancel(true);
    }
}
