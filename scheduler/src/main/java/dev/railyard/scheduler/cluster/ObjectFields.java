package dev.railyard.scheduler.cluster;

import dev.railyard.scheduler.input.Quantities;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Read access to the untyped fields of a {@link GenericKubernetesResource} (nested maps and lists as Jackson built
 * them from JSON or YAML). Missing fields and fields of another type read as null or empty, never as an exception;
 * the converters decide what is an error.
 */
final class ObjectFields {
    private ObjectFields() {
    }

    /** @return the value at {@code path} under the object's top-level fields ({@code spec}, {@code status}), or null */
    static Object at(GenericKubernetesResource r, String... path) {
        Object cur = r.getAdditionalProperties();
        for (String key : path) {
            if (!(cur instanceof Map<?, ?> m)) {
                return null;
            }
            cur = m.get(key);
        }
        return cur;
    }

    /** @return the value at {@code path} under {@code root}, or null */
    static Object at(Object root, String... path) {
        Object cur = root;
        for (String key : path) {
            if (!(cur instanceof Map<?, ?> m)) {
                return null;
            }
            cur = m.get(key);
        }
        return cur;
    }

    /** @return the map, or an empty map when {@code value} is not a map */
    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object value) {
        return value instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    /** @return the list, or an empty list when {@code value} is not a list */
    static List<?> list(Object value) {
        return value instanceof List<?> l ? l : List.of();
    }

    /** @return the text of a scalar (strings as they are, numbers and booleans printed), or null */
    static String text(Object value) {
        if (value instanceof String s) {
            return s;
        }
        if (value instanceof Number || value instanceof Boolean) {
            return value.toString();
        }
        return null;
    }

    /** @return a map of strings (labels, annotations, resource lists); non-scalar values are left out */
    static Map<String, String> strings(Object value) {
        Map<String, String> out = new LinkedHashMap<>();
        for (var e : map(value).entrySet()) {
            String t = text(e.getValue());
            if (t != null) {
                out.put(e.getKey(), t);
            }
        }
        return out;
    }

    /** @return the object's labels, never null */
    static Map<String, String> labels(GenericKubernetesResource r) {
        ObjectMeta m = r.getMetadata();
        return m == null || m.getLabels() == null ? Map.of() : m.getLabels();
    }

    /** @return the object's annotations, never null */
    static Map<String, String> annotations(GenericKubernetesResource r) {
        ObjectMeta m = r.getMetadata();
        return m == null || m.getAnnotations() == null ? Map.of() : m.getAnnotations();
    }

    /** @return {@code Kind namespace/name} for messages, tolerating missing metadata */
    static String describe(GenericKubernetesResource r) {
        ObjectMeta m = r.getMetadata();
        String name = m == null || m.getName() == null ? "(no name)" : m.getName();
        String ns = m == null ? null : m.getNamespace();
        return (r.getKind() == null ? "object" : r.getKind()) + " "
                + (ns == null || ns.isEmpty() ? name : ns + "/" + name);
    }

    /**
     * Parses a Kubernetes quantity ({@code 8}, {@code "100"}, {@code 500m}, {@code 1Ki}) with the bounds of
     * {@link Quantities} (checked on the text before any arithmetic, so a watched pod asking for
     * {@code 1e9999999} GPUs costs microseconds, not seconds).
     *
     * @return the amount in base units
     * @throws IllegalArgumentException with the reason when it is not a quantity or outside the bounds
     */
    static BigDecimal quantity(Object value) {
        String t = text(value);
        if (t == null || t.isBlank()) {
            throw new IllegalArgumentException("'" + value + "' is not a quantity");
        }
        String q = t.trim();
        // a negative amount is parsed here and refused by the caller with its own reason (PodView)
        boolean negative = q.startsWith("-");
        try {
            BigDecimal v = Quantities.parse(negative ? q.substring(1) : q);
            return negative ? v.negate() : v;
        } catch (Quantities.QuantityException e) {
            throw new IllegalArgumentException(e.getMessage().endsWith("is not a Kubernetes quantity")
                    ? "'" + t + "' is not a quantity" : e.getMessage());
        }
    }
}
