package dev.railyard.benchmarks.scale;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Pod status updates through the API server at a fixed rate, as kubelets make them: every tick one bound pod
 * (uniformly at random) gets a strategic-merge patch of its {@code pods/status} setting its {@code Ready} condition's
 * {@code lastProbeTime} to now. Each update is a real write: a new resourceVersion and a MODIFIED watch event for
 * every watcher, Railyard's informer included. Ticks that find the previous update still in flight are counted as
 * skipped rather than queued, so the offered rate never exceeds the target.
 */
final class Churn implements AutoCloseable {
    private final KubernetesClient client;
    private final List<String> pods;
    private final double perSecond;
    private final Random random = new Random(7);
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "churn-ticker");
        t.setDaemon(true);
        return t;
    });
    private final ExecutorService writers = Executors.newFixedThreadPool(8, r -> {
        Thread t = new Thread(r, "churn-writer");
        t.setDaemon(true);
        return t;
    });
    private final AtomicLong inFlight = new AtomicLong();
    final AtomicLong done = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final AtomicLong skipped = new AtomicLong();
    private ScheduledFuture<?> task;
    private long startedNanos;
    private long doneAtStart;

    /**
     * @param pods      {@code namespace/name} of the pods to update
     * @param perSecond updates per second; 0 for none
     */
    Churn(KubernetesClient client, List<String> pods, double perSecond) {
        this.client = client;
        this.pods = pods;
        this.perSecond = perSecond;
    }

    /** Starts ticking (no-op at rate 0 or when already running). */
    synchronized void start() {
        if (perSecond <= 0 || task != null) {
            return;
        }
        startedNanos = System.nanoTime();
        doneAtStart = done.get();
        long period = Math.max(1, Math.round(1e9 / perSecond));
        task = ticker.scheduleAtFixedRate(this::tick, 0, period, TimeUnit.NANOSECONDS);
    }

    /** Stops ticking and waits for the updates in flight. */
    synchronized void pause() {
        if (task != null) {
            task.cancel(false);
            task = null;
        }
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (inFlight.get() > 0 && System.nanoTime() < deadline) {
            ScaleControlPlane.sleep(10);
        }
    }

    /** Updates per second achieved since the last {@link #start()}. */
    double achievedRate() {
        double s = (System.nanoTime() - startedNanos) / 1e9;
        return s <= 0 ? 0 : (done.get() - doneAtStart) / s;
    }

    double rate() {
        return perSecond;
    }

    private void tick() {
        if (inFlight.get() >= 8) {
            skipped.incrementAndGet();
            return;
        }
        String pod;
        synchronized (random) {
            pod = pods.get(random.nextInt(pods.size()));
        }
        inFlight.incrementAndGet();
        writers.execute(() -> {
            try {
                update(pod);
                done.incrementAndGet();
            } catch (RuntimeException e) {
                failed.incrementAndGet();
            } finally {
                inFlight.decrementAndGet();
            }
        });
    }

    /** One status write on {@code namespace/name}. */
    void update(String pod) {
        int slash = pod.indexOf('/');
        String patch = "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"lastProbeTime\":\""
                + Instant.now() + "\"}]}}";
        client.pods().inNamespace(pod.substring(0, slash)).withName(pod.substring(slash + 1)).subresource("status")
                .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
    }

    /** A pod to update outside the ticking (the first-call-after-a-change probe). */
    String randomPod() {
        synchronized (random) {
            return pods.get(random.nextInt(pods.size()));
        }
    }

    @Override
    public void close() {
        pause();
        ticker.shutdownNow();
        writers.shutdownNow();
    }
}
