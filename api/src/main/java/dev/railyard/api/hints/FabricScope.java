package dev.railyard.api.hints;

import java.util.Locale;

/**
 * The largest fabric domain a gang may span, as a tier: 0 = one node, 1 = one leaf per rail, 2 = one spine domain,
 * 3 = one core domain. {@link #ANY} sets no limit.
 *
 * @param maxTier  highest tier allowed, or {@link Integer#MAX_VALUE} for any
 * @param required true when the limit must hold (Volcano {@code hard}), false when it is tried first ({@code soft})
 */
public record FabricScope(int maxTier, boolean required) {
    /** No limit. */
    public static final FabricScope ANY = new FabricScope(Integer.MAX_VALUE, false);
    /** Largest tier number a hint may give ({@link Integer#MAX_VALUE} stands for {@link #ANY}). */
    public static final int MAX_TIER = Integer.MAX_VALUE - 1;

    /** @return true when no limit applies */
    public boolean isAny() {
        return maxTier == Integer.MAX_VALUE;
    }

    /**
     * Parses {@link HintAnnotations#FABRIC_SCOPE}.
     *
     * @param text     {@code node}, {@code leaf}, {@code spine}, {@code core}, {@code any} or a tier number 0 to
     *                 {@value #MAX_TIER}
     * @param required whether the scope must hold
     * @return the scope, or null when {@code text} is null or blank
     * @throws IllegalArgumentException naming the key and the value otherwise (a tier number above
     *                                  {@value #MAX_TIER} is called too large)
     */
    public static FabricScope parse(String text, boolean required) {
        if (text == null || text.isBlank()) {
            return null;
        }
        String t = text.trim().toLowerCase(Locale.ROOT);
        int tier = switch (t) {
            case "node", "host" -> 0;
            case "leaf", "rack" -> 1;
            case "spine", "block" -> 2;
            case "core", "datacenter" -> 3;
            case "any" -> Integer.MAX_VALUE;
            default -> {
                if (t.matches("\\+?\\d+")) {
                    java.math.BigInteger n = new java.math.BigInteger(t.startsWith("+") ? t.substring(1) : t);
                    if (n.compareTo(java.math.BigInteger.valueOf(MAX_TIER)) > 0) {
                        throw new IllegalArgumentException("annotation " + HintAnnotations.FABRIC_SCOPE + ": '"
                                + text + "': tier number too large (max " + MAX_TIER + "; 'any' for no limit)");
                    }
                    yield n.intValueExact();
                }
                throw new IllegalArgumentException("annotation " + HintAnnotations.FABRIC_SCOPE + ": '" + text
                        + "' is not node, leaf, spine, core, any or a tier number");
            }
        };
        return tier == Integer.MAX_VALUE ? ANY : new FabricScope(tier, required);
    }

    @Override
    public String toString() {
        if (isAny()) {
            return "any";
        }
        String name = switch (maxTier) {
            case 0 -> "node";
            case 1 -> "leaf";
            case 2 -> "spine";
            case 3 -> "core";
            default -> "tier " + maxTier;
        };
        return name + (required ? " (required)" : " (preferred)");
    }
}
