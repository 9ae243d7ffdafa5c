package dev.railyard.scheduler.service;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Kubernetes Events that say why Railyard refused a pod ({@code RailyardUnschedulable}, type Warning): what an operator
 * sees in {@code kubectl describe pod}, beside the scheduler's own message.
 *
 * <p>Written off the request path on one thread with a bounded queue (a full queue drops the Event and counts it in
 * {@code railyard_events_total{outcome="dropped"}}), and rate-limited: the same pod and message at most once per
 * {@code minInterval}. Thread-safe.
 */
public final class SchedulingEvents implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulingEvents.class);
    /** Event reason. */
    public static final String UNSCHEDULABLE = "RailyardUnschedulable";
    private static final int MAX_MESSAGE = 1024;

    private final KubernetesClient client;
    private final MeterRegistry registry;
    private final Cache<String, Boolean> recent;
    private final ThreadPoolExecutor writer;

    /**
     * @param client      client with create on {@code events}
     * @param registry    where to count Events written, dropped and failed
     * @param minInterval least time between two Events with the same pod and message
     */
    public SchedulingEvents(KubernetesClient client, MeterRegistry registry, Duration minInterval) {
        this.client = client;
        this.registry = registry;
        this.recent = Caffeine.newBuilder().expireAfterWrite(minInterval).maximumSize(50_000).build();
        this.writer = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1_000), r -> {
            Thread t = new Thread(r, "railyard-events");
            t.setDaemon(true);
            return t;
        }, (r, e) -> registry.counter("railyard_events_total", "outcome", "dropped").increment());
    }

    /**
     * Records that no node could take the pod (asynchronously).
     *
     * @param namespace pod namespace
     * @param name      pod name
     * @param uid       pod UID, or empty
     * @param message   why, one line (cut to 1,024 characters)
     */
    public void podUnschedulable(String namespace, String name, String uid, String message) {
        String text = message.length() <= MAX_MESSAGE ? message : message.substring(0, MAX_MESSAGE - 1) + "…";
        if (recent.asMap().putIfAbsent(namespace + "/" + name + "\n" + text, Boolean.TRUE) != null) {
            return;
        }
        writer.execute(() -> write(namespace, name, uid, text));
    }

    private void write(String namespace, String name, String uid, String message) {
        String now = Instant.now().toString();
        try {
            client.v1().events().inNamespace(namespace).resource(new EventBuilder()
                    .withNewMetadata().withGenerateName(name + ".railyard.").withNamespace(namespace).endMetadata()
                    .withInvolvedObject(new ObjectReferenceBuilder().withApiVersion("v1").withKind("Pod")
                            .withNamespace(namespace).withName(name).withUid(uid == null || uid.isEmpty() ? null : uid)
                            .build())
                    .withType("Warning").withReason(UNSCHEDULABLE).withMessage(message)
                    .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
                    .withNewSource().withComponent("railyard").endSource()
                    .build()).create();
            registry.counter("railyard_events_total", "outcome", "written").increment();
        } catch (KubernetesClientException e) {
            registry.counter("railyard_events_total", "outcome", "failed").increment();
            LOG.warn("cannot write Event on pod {}/{}: {}", namespace, name, e.getMessage());
        }
    }

    @Override
    public void close() {
        writer.shutdownNow();
    }
}
