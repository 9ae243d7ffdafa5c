package dev.railyard.scheduler.hints.delivery;

import java.util.Map;
import java.util.Objects;

/**
 * What a {@link HintSource} answers for a pod on a node: the hint annotations, "nothing to add", or "not known
 * yet".
 */
public sealed interface HintLookup {

    /**
     * The annotations to put on the pod ({@code railyard.dev/placement} and the flat {@code railyard.dev/nccl-*}
     * keys, see {@link dev.railyard.api.hints.HintAnnotations}).
     *
     * @param annotations key to value, never empty
     */
    record Hints(Map<String, String> annotations) implements HintLookup {
        public Hints {
            Objects.requireNonNull(annotations, "annotations");
            if (annotations.isEmpty()) {
                throw new IllegalArgumentException("hint annotations must not be empty; use NotApplicable");
            }
            annotations = Map.copyOf(annotations);
        }
    }

    /**
     * Railyard has nothing to say about this pod (no GPU or RDMA request, a node without topology): bind it
     * without hints and do not retry.
     *
     * @param reason one line, for the debug log
     */
    record NotApplicable(String reason) implements HintLookup {
    }

    /**
     * Railyard cannot compute the hint yet (cache cold, pod or node not seen by the informers yet): bind without
     * hints now and patch them later ({@link HintBackfill}).
     *
     * @param reason one line, for the log and the backfill Event
     */
    record NotReady(String reason) implements HintLookup {
    }

    /** @return {@link Hints}, or {@link NotApplicable} when {@code annotations} is null or empty */
    static HintLookup of(Map<String, String> annotations, String emptyReason) {
        return annotations == null || annotations.isEmpty() ? new NotApplicable(emptyReason) : new Hints(annotations);
    }
}
