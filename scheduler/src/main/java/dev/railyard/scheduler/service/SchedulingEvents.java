package dev.railyard.scheduler.service;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.railyard.scheduler.input.RateLimitedLog;
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
 * Kubernetes Events that say why Railyard refused a pod ({@code RailyardUnschedulable}, type Warning, one per
 * scheduling attempt: {@link SchedulingAttempts}) or what it ignored ({@code RailyardUnknownAnnotation} on a pod or
 * PodGroup): what an operator sees in {@code kubectl describe}, beside the scheduler's own message.
 *
 * <p>Written off the request path on one thread with a bounded queue (a full queue drops the Event and counts it in
 * {@code railyard_events_total{outcome="dropped"}}), and rate-limited: the same object, reason and message at most
 * once per {@code minInterval}. An Event the API server refuses is counted in
 * {@code railyard_events_total{outcome="failed"}} and logged at most once per reason every 10 s (a caller names the
 * tasks of a gang it asks about, so it can make every Event fail; {@link RateLimitedLog}). Thread-safe.
 */
public final class SchedulingEvents implements EventSink, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulingEvents.class);
    private static final RateLimitedLog FAILURES = RateLimitedLog.of(LOG);
    /** Event reason: no node could take the pod in one scheduling attempt. */
    public static final String UNSCHEDULABLE = "RailyardUnschedulable";
    /** Event reason: a {@code railyard.dev/} annotation key Railyard does not know, so ignores. */
    public static final String UNKNOWN_ANNOTATION = "RailyardUnknownAnnotation";
    private static final int MAX_MESSAGE = 1024;

    private final KubernetesClient client;
    private final MeterRegistry registry;
    private final Cache<String, Boolean> recent;
    private final ThreadPoolExecutor writer;

    /**
     * @param client      client with create on {@code events}
     * @param registry    where to count Events written, dropped and failed
     * @param minInterval least time between two Events with the same object, reason and message
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
     * Records that no node could take the pod (asynchronously); the message is cut to 1,024 characters.
     */
    @Override
    public void podUnschedulable(String namespace, String name, String uid, String message) {
        warning(InvolvedObject.pod(namespace, name, uid), UNSCHEDULABLE, message);
    }

    /** Writes a Warning Event (asynchronously); the message is cut to 1,024 characters. */
    @Override
    public void warning(InvolvedObject object, String reason, String message) {
        String text = message.length() <= MAX_MESSAGE ? message : message.substring(0, MAX_MESSAGE - 1) + "…";
        String key = object.kind() + " " + object.namespace() + "/" + object.name() + "\n" + reason + "\n" + text;
        if (recent.asMap().putIfAbsent(key, Boolean.TRUE) != null) {
            return;
        }
        writer.execute(() -> write(object, reason, text));
    }

    private void write(InvolvedObject object, String reason, String message) {
        String now = Instant.now().toString();
        String namespace = object.namespace();
        String name = object.name();
        try {
            client.v1().events().inNamespace(namespace).resource(new EventBuilder()
                    .withNewMetadata().withGenerateName(name + ".railyard.").withNamespace(namespace).endMetadata()
                    .withInvolvedObject(new ObjectReferenceBuilder().withApiVersion(object.apiVersion())
                            .withKind(object.kind()).withNamespace(namespace).withName(name)
                            .withUid(object.uid().isEmpty() ? null : object.uid()).build())
                    .withType("Warning").withReason(reason).withMessage(message)
                    .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
                    .withNewSource().withComponent("railyard").endSource()
                    .build()).create();
            registry.counter("railyard_events_total", "outcome", "written").increment();
        } catch (KubernetesClientException e) {
            registry.counter("railyard_events_total", "outcome", "failed").increment();
            FAILURES.warn(reason, "cannot write Event on {} {}/{}: {}", object.kind(), namespace, name,
                    e.getMessage());
        }
    }

    @Override
    public void close() {
        writer.shutdownNow();
    }
}
