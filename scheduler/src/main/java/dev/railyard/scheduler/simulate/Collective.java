package dev.railyard.scheduler.simulate;

import java.util.Locale;

/**
 * The collective a job's network step is made of ({@link StepTimeModel}).
 */
public enum Collective {
    /** Data parallel: a ring all-reduce of the gradients, one ring per local rank (per rail). */
    RING_ALL_REDUCE,
    /** Expert parallel: every pod exchanges a slice with every other pod. */
    ALL_TO_ALL;

    /**
     * @param text {@code ring}, {@code ring-all-reduce}, {@code all-to-all} or {@code a2a} (any case); null = ring
     * @return the collective
     * @throws IllegalArgumentException naming the value otherwise
     */
    public static Collective parse(String text) {
        if (text == null || text.isBlank()) {
            return RING_ALL_REDUCE;
        }
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "ring", "ring-all-reduce", "allreduce", "all-reduce" -> RING_ALL_REDUCE;
            case "all-to-all", "alltoall", "a2a" -> ALL_TO_ALL;
            default -> throw new IllegalArgumentException("collective '" + text + "' is not ring-all-reduce or "
                    + "all-to-all");
        };
    }

    /** @return the name used in files and tables */
    public String label() {
        return this == RING_ALL_REDUCE ? "ring-all-reduce" : "all-to-all";
    }
}
