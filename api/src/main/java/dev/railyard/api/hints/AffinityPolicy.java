package dev.railyard.api.hints;

import java.util.Locale;

/** How strictly a placement preference holds: {@code required}, {@code preferred} or {@code ignore}. */
public enum AffinityPolicy {
    /** Must hold; otherwise the pod or gang is unschedulable. */
    REQUIRED,
    /** Tried first; relaxed (and reported) only when no placement satisfies it. */
    PREFERRED,
    /** Not considered. */
    IGNORE;

    /**
     * @param text     annotation value ({@code required}, {@code preferred}, {@code ignore}; case-insensitive)
     * @param key      annotation key, for the error message
     * @param fallback returned when {@code text} is null or blank
     * @throws IllegalArgumentException naming the key and the value when it is none of the three
     */
    public static AffinityPolicy parse(String text, String key, AffinityPolicy fallback) {
        if (text == null || text.isBlank()) {
            return fallback;
        }
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "required" -> REQUIRED;
            case "preferred" -> PREFERRED;
            case "ignore", "ignored", "none" -> IGNORE;
            default -> throw new IllegalArgumentException(
                    "annotation " + key + ": '" + text + "' is not required, preferred or ignore");
        };
    }

    /** @return the annotation spelling ({@code required}) */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
