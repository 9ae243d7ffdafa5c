package dev.railyard.scheduler.engine;

import dev.railyard.topology.fabric.FabricModel;

import java.util.List;
import java.util.Locale;

/**
 * Fabric proximity to the gang's members already placed: {@code 100 · (1 − mean hops / max hops)}, where a member's
 * hops are the most switch hops to it over the rails of the gang's vector (rail 0 without one) and max hops is the
 * hops across the fabric's root; 100 when no member is placed yet.
 */
record ProximityScore() implements ScoreTerm {
    @Override
    public Value score(ScoreInput in) {
        GangContext context = in.context();
        if (context.placed().isEmpty()) {
            return new Value(100, "no gang member placed yet");
        }
        FabricModel fabric = in.snapshot().fabric();
        RailVector vector = context.rails();
        List<Integer> rails = vector == null || vector.rails().isEmpty() ? List.of(0) : vector.rails();
        double sum = 0;
        for (String other : context.placed()) {
            int worst = 0;
            for (int r : rails) {
                worst = Math.max(worst, fabric.hops(in.node(), other, r));
            }
            sum += worst;
        }
        double mean = sum / context.placed().size();
        int max = FabricModel.hopsForTier(fabric.maxTier() + 1);
        return new Value((int) Math.round(100.0 * (1.0 - mean / max)), String.format(Locale.ROOT,
                "mean %.1f switch hops to %d members (max %d)", mean, context.placed().size(), max));
    }
}
