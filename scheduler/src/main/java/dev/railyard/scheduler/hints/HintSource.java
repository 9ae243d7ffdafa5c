package dev.railyard.scheduler.hints;

import dev.railyard.scheduler.protocol.PlacementDecisions;
import dev.railyard.scheduler.protocol.PodRef;

import java.util.function.BooleanSupplier;

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
}
