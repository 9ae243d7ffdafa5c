package dev.railyard.scheduler.cluster;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Strings that repeat across objects (node, namespace, label and annotation keys, resource and network names)
 * shared as one instance, through the JVM's string table ({@link String#intern()}, whose entries the garbage
 * collector reclaims once unused). Used when compact records are built from informer events.
 */
final class Interner {
    private Interner() {
    }

    /** Longest map value interned: longer ones (hint JSON, CNI network lists) are unique per object. */
    private static final int SHORT = 64;

    /** @return the shared instance of {@code s}, or null */
    static String of(String s) {
        return s == null ? null : s.intern();
    }

    /**
     * @return an unmodifiable copy with keys and short values interned, in the same order; the shared empty map when
     *         empty
     */
    static Map<String, String> map(Map<String, String> m) {
        if (m == null || m.isEmpty()) {
            return Map.of();
        }
        Map<String, String> out = new LinkedHashMap<>(Math.max(4, m.size() * 4 / 3 + 1));
        m.forEach((k, v) -> out.put(of(k), v != null && v.length() <= SHORT ? of(v) : v));
        return Collections.unmodifiableMap(out);
    }
}
