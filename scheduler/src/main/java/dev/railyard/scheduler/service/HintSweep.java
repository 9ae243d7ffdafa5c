package dev.railyard.scheduler.service;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.scheduler.cluster.ClusterObjects;
import dev.railyard.scheduler.cluster.PodView;
import dev.railyard.scheduler.cluster.WatchedKind;
import dev.railyard.scheduler.hints.HintBackfill;
import dev.railyard.scheduler.protocol.PodRef;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Finds pods that were bound without hints and hands them to {@link HintBackfill}: Volcano binds without an extender
 * bind verb, so when the {@code pods/binding} webhook is not installed, is down, or answered before the cache was
 * warm, this sweep is what puts the hints on the pod (with an Event saying so).
 *
 * <p>Every {@code period} it looks at the cache's pods: bound, not finished or terminating, asking for
 * {@code nvidia.com/gpu}, on a node with a {@code NodeTopology}, and without {@code railyard.dev/placement}. Each pod
 * (by UID) is handed over once per {@code retryAfter}, so a pod for which no hint can be computed is not retried in a
 * tight loop. With leader election, only the leader sweeps ({@code active}): a standby has none of the gang plans
 * the hints come from.
 */
public final class HintSweep implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HintSweep.class);

    private final Supplier<ClusterObjects> objects;
    private final HintBackfill backfill;
    private final Cache<String, Boolean> handedOver;
    private final BooleanSupplier active;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "railyard-hint-sweep");
        t.setDaemon(true);
        return t;
    });

    /**
     * @param objects    the cache's current objects
     * @param backfill   where pods without hints go
     * @param period     time between sweeps
     * @param retryAfter how long a pod handed over is not handed over again
     */
    public HintSweep(Supplier<ClusterObjects> objects, HintBackfill backfill, Duration period, Duration retryAfter) {
        this(objects, backfill, period, retryAfter, () -> true);
    }

    /**
     * @param objects    the cache's current objects
     * @param backfill   where pods without hints go
     * @param period     time between sweeps
     * @param retryAfter how long a pod handed over is not handed over again
     * @param active     whether to sweep now: false on a standby replica
     */
    public HintSweep(Supplier<ClusterObjects> objects, HintBackfill backfill, Duration period, Duration retryAfter,
                     BooleanSupplier active) {
        this.objects = objects;
        this.backfill = backfill;
        this.active = active;
        this.handedOver = Caffeine.newBuilder().expireAfterWrite(retryAfter).maximumSize(100_000).build();
        timer.scheduleWithFixedDelay(this::sweepQuietly, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void sweepQuietly() {
        try {
            sweep();
        } catch (RuntimeException e) {
            LOG.warn("hint sweep failed: {}", e.toString());
        }
    }

    /** @return the pods handed to the backfill in this sweep, as {@code namespace/name}; none while not active */
    Set<String> sweep() {
        Set<String> out = new HashSet<>();
        if (!active.getAsBoolean()) {
            return out;
        }
        ClusterObjects now = objects.get();
        if (!now.synced()) {
            return out;
        }
        Set<String> nodesWithTopology = new HashSet<>();
        for (GenericKubernetesResource t : now.of(WatchedKind.NODE_TOPOLOGY)) {
            nodesWithTopology.add(t.getMetadata().getName());
        }
        for (GenericKubernetesResource raw : now.of(WatchedKind.POD)) {
            PodView pod;
            try {
                pod = PodView.of(raw);
            } catch (IllegalArgumentException e) {
                continue;
            }
            if (pod.node() == null || pod.node().isEmpty() || pod.finished() || pod.terminating() || pod.gpus() <= 0
                    || pod.annotations().containsKey(HintAnnotations.PLACEMENT)
                    || !nodesWithTopology.contains(pod.node())) {
                continue;
            }
            String uid = raw.getMetadata().getUid() == null ? "" : raw.getMetadata().getUid();
            String key = pod.key() + "/" + uid;
            if (handedOver.asMap().putIfAbsent(key, Boolean.TRUE) != null) {
                continue;
            }
            backfill.enqueue(new PodRef(pod.namespace(), pod.name(), uid), pod.node(),
                    "neither the bind verb nor the pods/binding webhook added them");
            out.add(pod.key());
        }
        if (!out.isEmpty()) {
            LOG.info("hint backfill for pods bound without hints: {}", out);
        }
        return out;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
