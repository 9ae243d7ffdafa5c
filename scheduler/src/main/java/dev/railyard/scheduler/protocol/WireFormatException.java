package dev.railyard.scheduler.protocol;

/**
 * A request body Railyard cannot use: not JSON, the wrong JSON types, a required key missing, nested too deep.
 * The message is one line that names the verb, the key path and the line/column in the body; the server
 * answers it with HTTP 400 and keeps serving. Never carries a stack trace to the caller.
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
        TOO_DEEP("too_deep");

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

    public WireFormatException(Kind kind, String message) {
        super(message, null, false, false);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
