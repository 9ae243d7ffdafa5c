package dev.railyard.scheduler.protocol.volcano;

import java.util.Objects;

/**
 * How the Volcano adapter answers.
 *
 * @param scoreWeight  multiplier from Railyard's 0..100 score to the float Volcano receives. Volcano adds the
 *                     extender's raw {@code nodeScore} to the other plugins' scores with no normalisation and no
 *                     weight of its own (docs/formats/volcano-extender.md §3, §7), and its {@code nodeorder} plugin
 *                     contributes 0..100 per k8s score plugin times that plugin's weight; so weight 1 makes
 *                     Railyard count like one k8s score plugin of weight 1. Must be finite and ≥ 0.
 * @param dialect      predicate reply shape for the Volcano release in use
 * @param neutralScore 0..100 score for a node the placement engine left out
 */
public record VolcanoSettings(double scoreWeight, VolcanoReplyDialect dialect, int neutralScore) {
    /** Weight 1, dialect v1.10, neutral score 50. */
    public static final VolcanoSettings DEFAULTS = new VolcanoSettings(1.0, VolcanoReplyDialect.V1_10, 50);

    public VolcanoSettings {
        if (!Double.isFinite(scoreWeight) || scoreWeight < 0) {
            throw new IllegalArgumentException("Volcano score weight must be a finite number >= 0, got " + scoreWeight);
        }
        Objects.requireNonNull(dialect, "dialect");
        if (neutralScore < 0 || neutralScore > 100) {
            throw new IllegalArgumentException("neutral score must be 0..100, got " + neutralScore);
        }
    }
}
