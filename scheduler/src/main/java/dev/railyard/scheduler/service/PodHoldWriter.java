package dev.railyard.scheduler.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.railyard.scheduler.cluster.ClusterListing;
import dev.railyard.scheduler.input.RateLimitedLog;
import dev.railyard.scheduler.ipam.HoldAnnotation;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link HoldWriter} on the API server: a JSON patch of the pod ({@code pods patch}, which the chart grants for the
 * hint backfill), RFC 6902, that first tests {@code /metadata/uid} (a pod re-created under the same name is not
 * written) and then adds the annotation; removal tests the annotation's value before removing it, so a later hold
 * of the same pod is never removed by an earlier release. Writes are timed in
 * {@code railyard_hold_write_seconds{op,outcome}}; a removal that fails is logged at most once every 10 s
 * ({@link RateLimitedLog}: Volcano's allocate and deallocate of a pod can be repeated at will).
 *
 * <p>Give it a client without retries and with short timeouts (serve builds one from the main client's config):
 * {@link #write} also waits at most its budget, so an API server that does not answer costs the caller the budget,
 * never fabric8's retry back-off. Thread-safe.
 */
public final class PodHoldWriter implements HoldWriter {
    private static final Logger LOG = LoggerFactory.getLogger(PodHoldWriter.class);
    private static final RateLimitedLog CLEAR_FAILURES = RateLimitedLog.of(LOG);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** {@code railyard.dev/address-hold} as a JSON pointer token (RFC 6901: {@code /} is {@code ~1}). */
    static final String POINTER = "/metadata/annotations/" + HoldAnnotation.KEY.replace("~", "~0").replace("/", "~1");

    private final KubernetesClient client;
    private final MeterRegistry registry;
    private final ExecutorService calls = Executors.newVirtualThreadPerTaskExecutor();

    /**
     * @param client   client with {@code patch} on pods; without retries, timeouts at most the verbs' deadline
     * @param registry where writes are timed
     */
    public PodHoldWriter(KubernetesClient client, MeterRegistry registry) {
        this.client = client;
        this.registry = registry;
    }

    /** @return the JSON patch that writes the hold on the pod of this UID (the annotations map created if absent) */
    static String writePatch(String uid, String value, boolean annotationsExist) {
        ArrayNode ops = JSON.createArrayNode();
        ops.addObject().put("op", "test").put("path", "/metadata/uid").put("value", uid);
        if (!annotationsExist) {
            ObjectNode add = ops.addObject().put("op", "add").put("path", "/metadata/annotations");
            add.putObject("value").put(HoldAnnotation.KEY, value);
        } else {
            ops.addObject().put("op", "add").put("path", POINTER).put("value", value);
        }
        return ops.toString();
    }

    /** @return the JSON patch that removes the hold when it still has this value */
    static String clearPatch(String value) {
        ArrayNode ops = JSON.createArrayNode();
        ops.addObject().put("op", "test").put("path", POINTER).put("value", value);
        ops.addObject().put("op", "remove").put("path", POINTER);
        return ops.toString();
    }

    @Override
    public void write(String namespace, String name, String uid, String value, Duration budget)
            throws WriteException {
        long start = System.nanoTime();
        CompletableFuture<Void> call = CompletableFuture.runAsync(() -> patch(namespace, name,
                writePatch(uid, value, true)), calls);
        try {
            call.get(Math.max(1, budget.toNanos()), TimeUnit.NANOSECONDS);
            record("write", "ok", start);
        } catch (TimeoutException e) {
            record("write", "timeout", start);
            // the caller drops the hold: a write that lands after all is removed again, so no hold outlives it
            call.thenRun(() -> clear(namespace, name, value));
            throw new WriteException("no answer from the API server within " + budget.toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WriteException("interrupted");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof KubernetesClientException k && k.getCode() == 422 && missingAnnotations(k)) {
                // the pod has no annotations at all: add the map (still guarded by the UID test)
                try {
                    CompletableFuture.runAsync(() -> patch(namespace, name, writePatch(uid, value, false)), calls)
                            .get(Math.max(1, budget.toNanos() - (System.nanoTime() - start)), TimeUnit.NANOSECONDS);
                    record("write", "ok", start);
                    return;
                } catch (TimeoutException t) {
                    record("write", "timeout", start);
                    throw new WriteException("no answer from the API server within " + budget.toMillis() + " ms");
                } catch (InterruptedException t) {
                    Thread.currentThread().interrupt();
                    throw new WriteException("interrupted");
                } catch (ExecutionException t) {
                    cause = t.getCause();
                }
            }
            record("write", "failed", start);
            throw new WriteException(describe(cause));
        }
    }

    private static boolean missingAnnotations(KubernetesClientException k) {
        String m = k.getStatus() == null ? k.getMessage() : k.getStatus().getMessage();
        return m != null && m.contains("annotations") && !m.contains("test");
    }

    @Override
    public void clear(String namespace, String name, String value) {
        long start = System.nanoTime();
        calls.execute(() -> {
            try {
                patch(namespace, name, clearPatch(value));
                record("clear", "ok", start);
            } catch (KubernetesClientException e) {
                // 422 from the test: the pod holds a later hold now, or none; 404: the pod is gone
                boolean moot = e.getCode() == 422 || e.getCode() == 404;
                record("clear", moot ? "moot" : "failed", start);
                if (!moot) {
                    CLEAR_FAILURES.warn("clear", "cannot remove the address hold from pod {}/{} (it ends at its "
                            + "expiry): {}", namespace, name, describe(e));
                }
            }
        });
    }

    private void patch(String namespace, String name, String patch) {
        client.pods().inNamespace(namespace).withName(name).patch(PatchContext.of(PatchType.JSON), patch);
    }

    private void record(String op, String outcome, long startNanos) {
        Timer.builder("railyard_hold_write_seconds").description("Writing or removing an address hold on a pod")
                .tag("op", op).tag("outcome", outcome).publishPercentileHistogram(false).register(registry)
                .record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
    }

    private static String describe(Throwable e) {
        String network = ClusterListing.networkProblem(e);
        if (network != null) {
            return "API server unreachable: " + network;
        }
        if (e instanceof KubernetesClientException k) {
            String m = k.getStatus() != null && k.getStatus().getMessage() != null ? k.getStatus().getMessage()
                    : String.valueOf(k.getMessage());
            String what = switch (k.getCode()) {
                case 404 -> "pod not found";
                case 422 -> "the pod has another UID now";
                case 403 -> "forbidden (railyard's service account needs patch on pods)";
                default -> "HTTP " + k.getCode();
            };
            return (what + ": " + m).replaceAll("\\s+", " ");
        }
        return String.valueOf(e.getMessage()).replaceAll("\\s+", " ");
    }
}
