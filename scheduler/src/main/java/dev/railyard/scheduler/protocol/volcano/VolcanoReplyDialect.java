package dev.railyard.scheduler.protocol.volcano;

/**
 * The predicate reply shape, which changed twice in Volcano's history (volcano-sh/volcano
 * pkg/scheduler/plugins/extender/argument.go {@code PredicateResponse} at each tag; docs/formats/volcano-extender.md
 * §4). Go's decoder ignores unknown keys and fails on a type mismatch under a known key, so no single shape works for
 * every release: the v1.8 {@code status} is a list where v1.10 reads a string.
 */
public enum VolcanoReplyDialect {
    /**
     * Volcano v1.6.x–v1.7.x: {@code {"errorMessage": "<reason>"}}; non-empty rejects. No code, so no way to
     * say "preemption may help".
     */
    V1_6("v1.6"),
    /**
     * Volcano v1.8.x–v1.9.x: {@code {"status": [{"Code": n, "Reason": "...", "Plugin": "railyard"}]}}
     * ({@code api.Status} has no json tags); an empty list passes.
     */
    V1_8("v1.8"),
    /**
     * Volcano v1.10.0 and later (through v1.16.0-alpha): {@code {"status": "<reason>", "code": n}}; an empty
     * status passes, code 2 (Unschedulable) keeps the node a preemption candidate, 3 does not.
     */
    V1_10("v1.10");

    private final String configName;

    VolcanoReplyDialect(String configName) {
        this.configName = configName;
    }

    /** The name used in the config file and on the command line: {@code v1.6}, {@code v1.8}, {@code v1.10}. */
    public String configName() {
        return configName;
    }

    /**
     * Parses {@code v1.6}, {@code v1.8} or {@code v1.10}; later releases may be named too and map to the shape
     * they use ({@code v1.7} → v1.6, {@code v1.9} → v1.8, {@code v1.11}…{@code v1.16} → v1.10).
     *
     * @throws IllegalArgumentException for anything else, naming the accepted values
     */
    public static VolcanoReplyDialect parse(String text) {
        String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        if (t.startsWith("v")) {
            t = t.substring(1);
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("1\\.(\\d+)(\\.\\d+)?").matcher(t);
        if (m.matches()) {
            int minor = Integer.parseInt(m.group(1));
            if (minor >= 6 && minor <= 7) {
                return V1_6;
            }
            if (minor >= 8 && minor <= 9) {
                return V1_8;
            }
            if (minor >= 10) {
                return V1_10;
            }
        }
        throw new IllegalArgumentException("unknown Volcano reply dialect \"" + text
                + "\": use the Volcano release, v1.6 to v1.16 (v1.6/v1.7, v1.8/v1.9 and v1.10+ differ)");
    }
}
