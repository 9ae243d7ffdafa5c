package dev.railyard.scheduler.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * An HTTP reply as the adapters produce it, independent of the HTTP server.
 *
 * @param status      HTTP status code
 * @param contentType the Content-Type header value
 * @param body        the body bytes (not copied; do not modify)
 */
public record WireReply(int status, String contentType, byte[] body) {
    /** {@code application/json} */
    public static final String JSON = "application/json";
    /** {@code text/plain; charset=utf-8} */
    public static final String TEXT = "text/plain; charset=utf-8";

    private static final byte[] EMPTY_OBJECT = "{}".getBytes(StandardCharsets.US_ASCII);

    public WireReply {
        Objects.requireNonNull(contentType, "contentType");
        Objects.requireNonNull(body, "body");
    }

    /** 200 with a JSON body. */
    public static WireReply json(byte[] body) {
        return new WireReply(200, JSON, body);
    }

    /** 200 with {@code {}}: what Volcano needs for verbs whose reply it does not read (it rejects an empty body). */
    public static WireReply emptyObject() {
        return new WireReply(200, JSON, EMPTY_OBJECT);
    }

    /** A one-line plain-text reply, e.g. for 4xx errors; a trailing newline is added. */
    public static WireReply text(int status, String line) {
        return new WireReply(status, TEXT, (line + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /** The body as UTF-8 text (for logs and tests). */
    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }
}
