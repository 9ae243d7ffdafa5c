package dev.railyard.scheduler.hints.delivery;

import dev.railyard.scheduler.hints.PlacementHints;
import dev.railyard.scheduler.protocol.PlacementDecisions;
import dev.railyard.scheduler.protocol.PodRef;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * Computes the placement-hint annotations for a pod bound to a node: the node in the Binding, whatever the plan
 * said. The lead wires this to the placement engine ({@code hints.PlacementHints}).
 *
 * <p>Contract: thread-safe; never throws for an unknown pod or node (answer {@link HintLookup.NotReady} or
 * {@link HintLookup.NotApplicable}); fast, since the admission webhook calls it on the bind path with a budget of
 * a few hundred milliseconds. A call that overruns the webhook's budget is abandoned and the pod goes to
 * {@link HintBackfill}.
 */
@FunctionalInterface
public interface HintSource {

    /**
     * @param pod      namespace, name and UID (UID empty when the caller did not have it)
     * @param nodeName the node the pod is being bound to
     * @return the hint annotations, or why there are none
     */
    HintLookup hintsFor(PodRef pod, String nodeName);

    /**
     * Adapts the protocol port: a non-empty {@link PlacementDecisions#bindHints} answer is the hint, an empty one
     * means nothing to add. The port has no "not known yet" answer, so this source never asks for a backfill.
     */
    static HintSource of(PlacementDecisions decisions) {
        return (pod, node) -> HintLookup.of(decisions.bindHints(pod, node),
                "the placement port has no hints for " + pod + " on " + node);
    }

    /**
     * Like {@link #of(PlacementDecisions)}, but answers {@link HintLookup.NotReady} while {@code cacheSynced} is
     * false, so that pods bound before the cluster cache has synced are queued for {@link HintBackfill} instead of
     * being left without hints (the port answers "nothing to add" for a cold cache).
     *
     * @param cacheSynced true once the informers behind {@code decisions} have synced; called per bind, must be cheap
     */
    static HintSource of(PlacementDecisions decisions, BooleanSupplier cacheSynced) {
        HintSource port = of(decisions);
        return (pod, node) -> cacheSynced.getAsBoolean() ? port.hintsFor(pod, node)
                : new HintLookup.NotReady("the cluster cache has not synced yet");
    }

    /** How often {@link #awaitingPod} looks at the cache again. */
    Duration POD_POLL = Duration.ofMillis(20);

    /**
     * Asks {@code source} once Railyard's cache holds the pod, waiting for it at most {@code maxWait}.
     * kube-scheduler calls the bind verb within milliseconds of a pod's creation, often before Railyard's pod
     * informer has delivered it; without the pod's spec there is no hint, and the Binding would go out without one
     * (then only a backfill, not atomic with {@code spec.nodeName}, would add them). Looks every {@link #POD_POLL}
     * (a Resilience4j {@link Retry} on the result). A pod still unknown after {@code maxWait} is
     * {@link HintLookup.NotReady}, so the bind proceeds and the pod is backfilled.
     *
     * @param source  the hint source
     * @param known   true when the cache holds the pod (same namespace and name, and the same UID when the
     *                {@link PodRef} has one), or when there is nothing to wait for (cache not synced); cheap
     * @param maxWait longest wait per call, positive; keep it well under the scheduler's extender timeout
     */
    static HintSource awaitingPod(HintSource source, Predicate<PodRef> known, Duration maxWait) {
        if (maxWait.isNegative() || maxWait.isZero()) {
            throw new IllegalArgumentException("pod wait must be positive, got " + maxWait);
        }
        int attempts = (int) Math.max(1, maxWait.toMillis() / POD_POLL.toMillis()) + 1;
        Retry retry = Retry.of("railyard-await-pod", RetryConfig.<Boolean>custom()
                .maxAttempts(attempts).waitDuration(POD_POLL).retryOnResult(seen -> !seen).build());
        return (pod, node) -> retry.executeSupplier(() -> known.test(pod)) ? source.hintsFor(pod, node)
                : new HintLookup.NotReady("Railyard's cache had not seen the pod " + maxWait.toMillis()
                + " ms after the bind request");
    }
}
