package dev.railyard.scheduler.protocol;

import dev.railyard.scheduler.input.LogText;

/**
 * A request body Railyard cannot use: not JSON, the wrong JSON types, a required key missing or given twice, nested
 * too deep, a number or string over the parser's limits, a quantity or name Kubernetes would not admit. The
 * message is one line that names the verb, the key path and the line/column in the body, with every control
 * character escaped ({@link LogText}), so it is safe to log and to send back; the server answers it with HTTP 400
 * and keeps serving. Never carries a stack trace to the caller.
 */
public final class WireFormatException extends Exception {
    /** What was wrong, for the {@code kind} tag of the error metric. */
    public enum Kind {
        /** a 0-byte body */
        EMPTY_BODY("empty_body"),
        /** not well-formed JSON */
        MALFORMED_JSON("malformed_json"),
        /** JSON of the wrong shape: an array where an object belongs, a number where a string belongs */
        WRONG_TYPE("wrong_type"),
        /** a key the verb needs is absent or null */
        MISSING_FIELD("missing_field"),
        /** nesting deeper than the parser allows */
        TOO_DEEP("too_deep"),
        /** a number, string or key longer than the parser allows */
        TOO_LONG("too_long"),
        /** a key given twice in one object Railyard reads */
        DUPLICATE_KEY("duplicate_key"),
        /** a quantity or count outside the bounds Railyard accepts (docs/hostile-input.md) */
        OUT_OF_RANGE("out_of_range"),
        /** a pod, namespace or node name Kubernetes would not admit */
        INVALID_NAME("invalid_name");

        private final String tag;

        Kind(String tag) {
            this.tag = tag;
        }

        /** Metric tag value, e.g. {@code malformed_json}. */
        public String tag() {
            return tag;
        }
    }

    private final Kind kind;

    /**
     * @param kind    what was wrong
     * @param message one line naming verb, key path and place; control characters in it are escaped here
     */
    public WireFormatException(Kind kind, String message) {
        super(LogText.escape(message), null, false, false);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
