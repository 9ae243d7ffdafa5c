package dev.railyard.scheduler.ipam;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.railyard.api.hints.HintAnnotations;

import java.time.DateTimeException;
import java.time.Instant;

/**
 * The {@value HintAnnotations#ADDRESS_HOLD} annotation: a hold written on the pod it is for, so that it outlives the
 * replica that took it (docs/adr/0011-address-holds.md). One small JSON object:
 * <pre>{"uid":"6f1c…","node":"gpu-a1","by":"volcano allocateFunc","since":"2026-12-01T17:40:00.123Z",
 *  "until":"2026-12-01T17:45:00.123Z"}</pre>
 * {@code by} is {@link HoldOrigin#words()}; times are RFC 3339 UTC. The networks are the pod's own multus annotation.
 */
public final class HoldAnnotation {
    /** The annotation key. */
    public static final String KEY = HintAnnotations.ADDRESS_HOLD;
    /** Longest value read; a larger one is not a hold Railyard wrote. */
    static final int MAX_LENGTH = 1024;
    private static final ObjectMapper JSON = new ObjectMapper();

    private HoldAnnotation() {
    }

    /**
     * The annotation's fields.
     *
     * @param uid    the pod's UID
     * @param node   the node, or null
     * @param origin who took it
     * @param since  when
     * @param until  expiry
     */
    public record Value(String uid, String node, HoldOrigin origin, Instant since, Instant until) {
    }

    /** @return the annotation value for a hold */
    public static String write(Value v) {
        ObjectNode o = JSON.createObjectNode();
        o.put("uid", v.uid());
        if (v.node() != null) {
            o.put("node", v.node());
        }
        o.put("by", v.origin().words());
        o.put("since", v.since().toString());
        o.put("until", v.until().toString());
        return o.toString();
    }

    /**
     * @param text the annotation value, or null
     * @return the hold, or null when absent or not one Railyard wrote (unknown {@code by}, missing fields, bad times)
     */
    public static Value read(String text) {
        if (text == null || text.isEmpty() || text.length() > MAX_LENGTH) {
            return null;
        }
        try {
            JsonNode n = JSON.readTree(text);
            if (n == null || !n.isObject() || !n.path("uid").isTextual() || !n.path("by").isTextual()
                    || !n.path("since").isTextual() || !n.path("until").isTextual()) {
                return null;
            }
            HoldOrigin origin = HoldOrigin.ofWords(n.path("by").asText());
            if (origin == null || origin == HoldOrigin.BOUND) {
                return null;
            }
            String node = n.path("node").isTextual() ? n.path("node").asText() : null;
            return new Value(n.path("uid").asText(), node, origin, Instant.parse(n.path("since").asText()),
                    Instant.parse(n.path("until").asText()));
        } catch (JacksonException | DateTimeException e) {
            return null;
        }
    }
}
