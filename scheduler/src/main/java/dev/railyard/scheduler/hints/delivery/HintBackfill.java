package dev.railyard.scheduler.hints.delivery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.scheduler.input.RateLimitedLog;
import dev.railyard.scheduler.protocol.PodRef;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Puts placement hints on pods that were bound without them (the {@code pods/binding} webhook timed out, was down,
 * or the cache was cold), after the fact: a JSON merge patch of the pod's {@code metadata.annotations}, and a
 * {@code Normal} Event with reason {@value #EVENT_REASON} on the pod saying so. Such hints are not atomic with
 * {@code spec.nodeName}: containers that already started (an init container running {@code railyard env}) did not
 * see them, which the Event says.
 *
 * <p>Per pod, an attempt reads the pod and
 * <ul>
 *   <li>stops when the pod is gone or has another UID (re-created), when it already carries a
 *       {@value HintAnnotations#PLACEMENT} for its node, or when the {@link HintSource} has nothing to add;</li>
 *   <li>tries again later while the pod is not bound yet (the webhook runs before the bind is stored), while the
 *       source is not ready, and on transient API errors (no answer, 409, 429, 5xx);</li>
 *   <li>otherwise computes the hints for the pod's actual {@code spec.nodeName} and patches them.</li>
 * </ul>
 * Retries are Resilience4j {@link Retry} with exponential backoff ({@link Settings}); all attempts run on one
 * scheduler thread, so backfill never competes with the bind path for more than one API call at a time. Events
 * take a permit from a Resilience4j {@link RateLimiter} without waiting; an Event over the rate is skipped (the
 * patch still happens) and counted. A pod already pending is not queued twice; beyond
 * {@link Settings#maxPending()} pods new requests are dropped and counted.
 *
 * <p>Meters: {@code railyard_hint_backfill_total{outcome}} (one per finished pod, outcome as {@link Outcome} in
 * lower case) and {@code railyard_hint_backfill_events_skipped_total}. The pods come from the webhook's callers, who
 * can name made-up ones, so a dropped, failed or abandoned backfill is logged at most once per outcome every 10 s
 * ({@link RateLimitedLog}). Thread-safe.
 */
public final class HintBackfill implements AutoCloseable {
    /** Reason of the Event written on a backfilled pod. */
    public static final String EVENT_REASON = "RailyardHintsBackfilled";
    /** {@code source.component} / {@code reportingComponent} of the Event. */
    public static final String COMPONENT = "railyard";

    private static final Logger LOG = LoggerFactory.getLogger(HintBackfill.class);
    private static final RateLimitedLog ENDINGS = RateLimitedLog.of(LOG);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final DateTimeFormatter RFC3339 = DateTimeFormatter.ISO_INSTANT;

    /** How one pod's backfill ended. */
    public enum Outcome {
        /** Hints patched onto the pod. */
        PATCHED,
        /** The pod already had hints for its node (the bind carried them after all). */
        ALREADY_HINTED,
        /** The hint source had nothing to add for this pod. */
        NOT_APPLICABLE,
        /** The pod was deleted or re-created. */
        POD_GONE,
        /** Still not bound, source still not ready, or the API still failing after the last attempt. */
        GAVE_UP,
        /** A permanent API error (403, 422, ...); see the log. */
        FAILED,
        /** Not queued: {@link Settings#maxPending()} pods were already pending. */
        DROPPED
    }

    /**
     * Timing and limits.
     *
     * @param firstDelay       wait before the first attempt (the bind the webhook saw is usually stored by then)
     * @param maxAttempts      attempts per pod, the first included, ≥ 1
     * @param backoffInitial   wait before the second attempt
     * @param backoffMultiplier factor applied to the wait after each failed attempt, ≥ 1
     * @param backoffMax       longest wait between attempts
     * @param eventsPerSecond  Events written per second at most, ≥ 1
     * @param maxPending       pods pending at most, ≥ 1
     */
    public record Settings(Duration firstDelay, int maxAttempts, Duration backoffInitial, double backoffMultiplier,
                           Duration backoffMax, int eventsPerSecond, int maxPending) {
        /** 1 s, then 8 attempts 0.5 s apart doubling up to 30 s (about a minute in all); 5 Events/s; 10 000 pods. */
        public static final Settings DEFAULT = new Settings(Duration.ofSeconds(1), 8, Duration.ofMillis(500), 2.0,
                Duration.ofSeconds(30), 5, 10_000);

        public Settings {
            Objects.requireNonNull(firstDelay, "firstDelay");
            Objects.requireNonNull(backoffInitial, "backoffInitial");
            Objects.requireNonNull(backoffMax, "backoffMax");
            if (firstDelay.isNegative() || maxAttempts < 1 || backoffInitial.isNegative() || backoffInitial.isZero()
                    || backoffMultiplier < 1 || backoffMax.compareTo(backoffInitial) < 0 || eventsPerSecond < 1
                    || maxPending < 1) {
                throw new IllegalArgumentException("bad hint backfill settings: " + this);
            }
        }
    }

    /** A retryable condition of one attempt (not bound yet, source not ready, transient API error). */
    static final class NotYet extends RuntimeException {
        NotYet(String message) {
            super(message, null, false, false);
        }
    }

    private final KubernetesClient client;
    private final HintSource hints;
    private final Settings settings;
    private final ScheduledExecutorService scheduler;
    private final Retry retry;
    private final RateLimiter eventLimiter;
    private final MeterRegistry registry;
    private final Map<String, CompletableFuture<Outcome>> pending = new ConcurrentHashMap<>();
    private final String instance;
    private final AtomicLong eventSeq = new AtomicLong();

    /**
     * @param client   client with get and patch on {@code pods} and create on {@code events}
     * @param hints    the same source the bind path uses
     * @param registry meters, or null for none
     */
    public HintBackfill(KubernetesClient client, HintSource hints, Settings settings, MeterRegistry registry) {
        this.client = Objects.requireNonNull(client, "client");
        this.hints = Objects.requireNonNull(hints, "hints");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.registry = registry == null ? new SimpleMeterRegistry() : registry;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "railyard-hint-backfill");
            t.setDaemon(true);
            return t;
        });
        this.retry = Retry.of("hint-backfill", RetryConfig.custom()
                .maxAttempts(settings.maxAttempts())
                .intervalFunction(IntervalFunction.ofExponentialBackoff(settings.backoffInitial(),
                        settings.backoffMultiplier(), settings.backoffMax()))
                .retryOnException(e -> unwrap(e) instanceof NotYet)
                .build());
        this.eventLimiter = RateLimiter.of("hint-backfill-events", RateLimiterConfig.custom()
                .limitForPeriod(settings.eventsPerSecond())
                .limitRefreshPeriod(Duration.ofSeconds(1))
                .timeoutDuration(Duration.ZERO)
                .build());
        String host = System.getenv("HOSTNAME");
        this.instance = host == null || host.isBlank() ? COMPONENT : host;
    }

    /**
     * Queues a pod bound (or being bound) without hints. Returns at once; the work runs on the backfill thread.
     *
     * @param pod      the pod (a non-empty UID guards against a re-created pod of the same name)
     * @param nodeName the node of the bind; the pod's actual {@code spec.nodeName} wins when they differ
     * @param reason   why the bind had no hints, one line, quoted in the Event
     * @return completes with how the backfill ended (never exceptionally); a pod already pending returns the
     *         pending one's stage
     */
    public CompletionStage<Outcome> enqueue(PodRef pod, String nodeName, String reason) {
        String key = pod.namespace() + "/" + pod.name();
        CompletableFuture<Outcome> existing = pending.get(key);
        if (existing != null) {
            return existing;
        }
        if (pending.size() >= settings.maxPending()) {
            ENDINGS.warn(Outcome.DROPPED, "hint backfill queue full ({} pods); {} stays without hints",
                    settings.maxPending(), pod);
            count(Outcome.DROPPED);
            return CompletableFuture.completedFuture(Outcome.DROPPED);
        }
        CompletableFuture<Outcome> done = new CompletableFuture<>();
        CompletableFuture<Outcome> raced = pending.putIfAbsent(key, done);
        if (raced != null) {
            return raced;
        }
        Job job = new Job(pod, nodeName, reason == null ? "unknown reason" : reason);
        try {
            scheduler.schedule(() -> retry.executeCompletionStage(scheduler, () -> attempt(job))
                            .whenComplete((outcome, error) -> finish(key, job, done, outcome, error)),
                    settings.firstDelay().toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            pending.remove(key, done);
            done.complete(Outcome.DROPPED);
        }
        return done;
    }

    /** Pods queued or being retried now. */
    public int pendingCount() {
        return pending.size();
    }

    private record Job(PodRef pod, String node, String reason) {
    }

    private void finish(String key, Job job, CompletableFuture<Outcome> done, Outcome outcome, Throwable error) {
        Outcome o = outcome;
        if (error != null) {
            Throwable cause = unwrap(error);
            if (cause instanceof NotYet) {
                o = Outcome.GAVE_UP;
                ENDINGS.warn(o, "gave up backfilling placement hints on {} after {} attempts: {}", job.pod(),
                        settings.maxAttempts(), cause.getMessage());
            } else {
                o = Outcome.FAILED;
                ENDINGS.warn(o, "backfilling placement hints on {} failed: {}", job.pod(), cause.toString());
            }
        }
        count(o);
        pending.remove(key, done);
        done.complete(o);
    }

    /** One attempt; a {@link NotYet} failure is retried. Runs on the scheduler thread. */
    private CompletionStage<Outcome> attempt(Job job) {
        try {
            return CompletableFuture.completedFuture(attemptOnce(job));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private Outcome attemptOnce(Job job) {
        PodRef ref = job.pod();
        Pod pod;
        try {
            pod = client.pods().inNamespace(ref.namespace()).withName(ref.name()).get();
        } catch (KubernetesClientException e) {
            throw apiError("reading pod " + ref, e);
        }
        if (pod == null || (!ref.uid().isEmpty() && !ref.uid().equals(pod.getMetadata().getUid()))) {
            return Outcome.POD_GONE;
        }
        String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        if (node == null || node.isEmpty()) {
            throw new NotYet(ref + " is not bound yet");
        }
        if (!node.equals(job.node())) {
            LOG.info("{} was bound to {}, not {} as the bind request said; hints follow {}", ref, node, job.node(),
                    node);
        }
        Map<String, String> existing = pod.getMetadata().getAnnotations();
        if (existing != null && hintedFor(existing.get(HintAnnotations.PLACEMENT), node)) {
            return Outcome.ALREADY_HINTED;
        }
        PodRef actual = new PodRef(ref.namespace(), ref.name(), pod.getMetadata().getUid());
        HintLookup lookup = BindingWriter.lookup(hints, actual, node);
        Map<String, String> annotations;
        switch (lookup) {
            case HintLookup.NotReady r -> throw new NotYet("hints for " + ref + " on " + node + " not ready: "
                    + r.reason());
            case HintLookup.NotApplicable n -> {
                LOG.debug("no hints to backfill on {}: {}", ref, n.reason());
                return Outcome.NOT_APPLICABLE;
            }
            case HintLookup.Hints h -> annotations = h.annotations();
        }
        try {
            client.pods().inNamespace(ref.namespace()).withName(ref.name())
                    .patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch(annotations));
        } catch (KubernetesClientException e) {
            throw apiError("patching pod " + ref, e);
        }
        LOG.info("backfilled {} placement hint annotations on {} (node {}): {}", annotations.size(), ref, node,
                job.reason());
        emitEvent(actual, node, job.reason());
        return Outcome.PATCHED;
    }

    /** {@code {"metadata":{"annotations":{...}}}}: RFC 7386 merge patch adding or replacing the hint keys only. */
    static String mergePatch(Map<String, String> annotations) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode ann = root.putObject("metadata").putObject("annotations");
        annotations.forEach(ann::put);
        return root.toString();
    }

    /** @return true when {@code placementJson} is a hint (any version) naming {@code node} */
    static boolean hintedFor(String placementJson, String node) {
        if (placementJson == null || placementJson.isBlank()) {
            return false;
        }
        try {
            JsonNode n = JSON.readTree(placementJson);
            return n != null && n.isObject() && node.equals(n.path("node").asText(null));
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private void emitEvent(PodRef pod, String node, String reason) {
        if (!eventLimiter.acquirePermission()) {
            registry.counter("railyard_hint_backfill_events_skipped_total").increment();
            LOG.debug("event rate reached; no {} Event for {}", EVENT_REASON, pod);
            return;
        }
        String now = RFC3339.format(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        String suffix = "." + Long.toHexString(System.currentTimeMillis() * 1000 + eventSeq.incrementAndGet() % 1000);
        String base = pod.name().length() + suffix.length() > 253 ? pod.name().substring(0, 253 - suffix.length())
                : pod.name();
        Event event = new EventBuilder()
                .withNewMetadata().withName(base + suffix).withNamespace(pod.namespace()).endMetadata()
                .withNewInvolvedObject()
                .withApiVersion("v1").withKind("Pod").withNamespace(pod.namespace()).withName(pod.name())
                .withUid(pod.uid().isEmpty() ? null : pod.uid())
                .endInvolvedObject()
                .withType("Normal")
                .withReason(EVENT_REASON)
                .withMessage(eventMessage(node, reason))
                .withNewSource().withComponent(COMPONENT).endSource()
                .withReportingComponent(COMPONENT)
                .withReportingInstance(instance)
                .withFirstTimestamp(now)
                .withLastTimestamp(now)
                .withCount(1)
                .build();
        try {
            client.v1().events().inNamespace(pod.namespace()).resource(event).create();
        } catch (KubernetesClientException e) {
            // the hints are on the pod; a missing Event is not worth a retry
            LOG.warn("could not write the {} Event for {}: {}", EVENT_REASON, pod, e.getMessage());
        }
    }

    /** The Event message: what happened and what it means for the pod's containers. */
    static String eventMessage(String node, String reason) {
        return "Railyard placement hints were not on the Binding (" + reason + "); added to the pod after binding "
                + "to " + node + ". Containers started before now (e.g. a 'railyard env' init container) did not "
                + "see them.";
    }

    private static RuntimeException apiError(String what, KubernetesClientException e) {
        int code = e.getCode();
        boolean transientError = code <= 0 || code == 409 || code == 429 || code >= 500;
        String message = what + ": " + (code <= 0 ? "no answer" : "HTTP " + code) + ": "
                + String.valueOf(e.getMessage()).replaceAll("\\s+", " ");
        return transientError ? new NotYet(message) : new IllegalStateException(message, e);
    }

    private void count(Outcome o) {
        registry.counter("railyard_hint_backfill_total", "outcome",
                o.name().toLowerCase(java.util.Locale.ROOT)).increment();
    }

    private static Throwable unwrap(Throwable e) {
        Throwable t = e;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Stops the backfill thread; pods still pending stay without hints. */
    @Override
    public void close() {
        scheduler.shutdownNow();
        pending.forEach((k, f) -> f.complete(Outcome.DROPPED));
        pending.clear();
    }
}
