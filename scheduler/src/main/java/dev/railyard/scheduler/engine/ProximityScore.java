package dev.railyard.scheduler.engine;

import dev.railyard.topology.fabric.FabricModel;
import dev.railyard.topology.fabric.FabricPosition;

import java.util.List;

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
        return of(in.node(), Members.of(in.snapshot().fabric(), context));
    }

    /**
     * The placed members' fabric positions, looked up once for a call that scores many nodes against the same gang
     * context ({@link NodeAnswers}).
     *
     * @param fabric    the fabric the positions come from
     * @param names     the members' nodes, one entry per member (not empty)
     * @param positions their positions, index for index; null for a node the fabric does not know
     * @param rails     the rails compared: the gang vector's, or rail 0 without one
     */
    record Members(FabricModel fabric, List<String> names, FabricPosition[] positions, List<Integer> rails) {
        /** @return the context's placed members resolved on the fabric; the context names at least one */
        static Members of(FabricModel fabric, GangContext context) {
            List<String> names = context.placed();
            FabricPosition[] positions = new FabricPosition[names.size()];
            for (int i = 0; i < positions.length; i++) {
                positions[i] = fabric.position(names.get(i));
            }
            RailVector vector = context.rails();
            List<Integer> rails = vector == null || vector.rails().isEmpty() ? List.of(0) : vector.rails();
            return new Members(fabric, names, positions, rails);
        }
    }

    /** @return the proximity of {@code node} to the members, exactly as {@link #score} gives it */
    static Value of(String node, Members m) {
        FabricModel fabric = m.fabric();
        FabricPosition here = fabric.position(node);
        long sum = 0;
        for (int i = 0; i < m.positions().length; i++) {
            boolean same = node.equals(m.names().get(i));  // FabricModel#hops: the same node is 0 hops
            int worst = 0;
            for (int r : m.rails()) {
                int tier = same ? 0 : fabric.commonTier(here, m.positions()[i], r);
                worst = Math.max(worst, FabricModel.hopsForTier(tier));
            }
            sum += worst;
        }
        int count = m.positions().length;
        double mean = (double) sum / count;
        int max = FabricModel.hopsForTier(fabric.maxTier() + 1);
        return new Value((int) Math.round(100.0 * (1.0 - mean / max)),
                "mean " + oneDecimal(sum, count) + " switch hops to " + count + " members (max " + max + ")");
    }

    /**
     * {@code sum / count} with one decimal, as {@code String.format(Locale.ROOT, "%.1f", (double) sum / count)}
     * writes it (half up), from integers: the score's reason is built per node and call, and the formatter was a
     * fifth of a prioritize call's CPU. Equal for {@code 0 ≤ sum}, {@code 1 ≤ count ≤ 1,000,000}: a quotient's
     * distance to a rounding boundary is then at least {@code 1/(20·count)}, far above a double's error
     * (ProximityScoreTest checks it against the formatter).
     */
    static String oneDecimal(long sum, int count) {
        long tenths = (20 * sum + count) / (2L * count); // round half up of 10·sum/count
        return (tenths / 10) + "." + (tenths % 10);
    }
}
