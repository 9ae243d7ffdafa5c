package dev.railyard.api.hints;

import java.util.Locale;

/** Value of {@link HintAnnotations#RANK_ORDER}. */
public enum RankOrder {
    /** Consecutive ranks follow the fabric: same node, then same leaf, then same spine. */
    FABRIC,
    /** No rank is written; the framework assigns ranks itself. */
    NONE;

    /**
     * @param text annotation value, or null for {@link #FABRIC}
     * @throws IllegalArgumentException naming the key and the value when it is neither {@code fabric} nor {@code none}
     */
    public static RankOrder parse(String text) {
        if (text == null || text.isBlank()) {
            return FABRIC;
        }
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "fabric" -> FABRIC;
            case "none" -> NONE;
            default -> throw new IllegalArgumentException(
                    "annotation " + HintAnnotations.RANK_ORDER + ": '" + text + "' is neither fabric nor none");
        };
    }
}
