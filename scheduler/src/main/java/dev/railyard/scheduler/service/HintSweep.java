package dev.railyard.scheduler.service;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.railyard.scheduler.cluster.ClusterView;
import dev.railyard.scheduler.cluster.PodView;
import dev.railyard.scheduler.hints.delivery.HintBackfill;
import dev.railyard.scheduler.protocol.PodRef;
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
 * <p>Every {@code period} it looks at the pods the cluster state's index names as bound, not finished or terminating,
 * asking for {@code nvidia.com/gpu} and without {@code railyard.dev/placement} ({@code ClusterView#unhintedPods},
 * maintained on pod events), and hands over those on a node with a {@code NodeTopology} that are in Railyard's hint
 * scope ({@link HintScope}: an RDMA resource or a managed network besides the GPUs). Each pod
 * (by UID) is handed over once per {@code retryAfter}, so a pod for which no hint can be computed is not retried in a
 * tight loop. With leader election, only the leader sweeps ({@code active}): a standby has none of the gang plans
 * the hints come from.
 */
public final class HintSweep implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HintSweep.class);

    private final Supplier<ClusterView> views;
    private final HintBackfill backfill;
    private final Cache<String, Boolean> handedOver;
    private final BooleanSupplier active;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "railyard-hint-sweep");
        t.setDaemon(true);
        return t;
    });

    /**
     * @param views      the cluster state's current view, or null while not synced
     * @param backfill   where pods without hints go
     * @param period     time between sweeps
     * @param retryAfter how long a pod handed over is not handed over again
     */
    public HintSweep(Supplier<ClusterView> views, HintBackfill backfill, Duration period, Duration retryAfter) {
        this(views, backfill, period, retryAfter, () -> true);
    }

    /**
     * @param views      the cluster state's current view, or null while not synced
     * @param backfill   where pods without hints go
     * @param period     time between sweeps
     * @param retryAfter how long a pod handed over is not handed over again
     * @param active     whether to sweep now: false on a standby replica
     */
    public HintSweep(Supplier<ClusterView> views, HintBackfill backfill, Duration period, Duration retryAfter,
                     BooleanSupplier active) {
        this.views = views;
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
        ClusterView now = views.get();
        if (now == null) {
            return out;
        }
        // the state's index of pods bound without hints: the sweep costs O(such pods), not O(all pods)
        for (String candidate : now.unhintedPods()) {
            PodView pod = now.pod(candidate);
            if (pod == null) {
                continue;
            }
            var node = now.snapshot().node(pod.node());
            if (node == null || node.topology() == null || !HintScope.covers(now.snapshot(), now.request(pod))) {
                continue;   // out of Railyard's scope: the bind path would refuse it hints anyway (HintScope)
            }
            String key = pod.key() + "/" + pod.uid();
            if (handedOver.asMap().putIfAbsent(key, Boolean.TRUE) != null) {
                continue;
            }
            backfill.enqueue(new PodRef(pod.namespace(), pod.name(), pod.uid()), pod.node(),
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
