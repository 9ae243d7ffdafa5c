package dev.railyard.scheduler.server;

import dev.railyard.scheduler.input.LogText;
import dev.railyard.scheduler.protocol.WireReply;

import java.util.Map;

/**
 * A reply as the server sends it: the handler's {@link WireReply}, extra response headers ({@code Allow},
 * {@code Retry-After}) and whether the connection closes after it.
 *
 * @param reply   status, content type and body
 * @param headers extra headers, name to value (no {@code Connection}: see {@code close})
 * @param close   true: {@code Connection: close} is sent and the connection closed once the reply is written
 */
record Answer(WireReply reply, Map<String, String> headers, boolean close) {
    Answer {
        headers = Map.copyOf(headers);
    }

    /** The reply on a connection that stays open (if the client wants it). */
    static Answer keep(WireReply reply) {
        return new Answer(reply, Map.of(), false);
    }

    /** The reply, then the connection closed (the request body, if any, left unread). */
    static Answer closing(WireReply reply) {
        return new Answer(reply, Map.of(), true);
    }

    /** A one-line text reply that closes the connection. */
    static Answer closing(int status, String line) {
        return closing(WireReply.text(status, line));
    }

    /** This answer with {@code Connection: close}. */
    Answer closed() {
        return close ? this : new Answer(reply, headers, true);
    }

    int status() {
        return reply.status();
    }

    /**
     * Text that came from a caller made fit for one line of a reply or a log: CR, LF and tabs folded to one space,
     * control characters escaped ({@link LogText}), at most 400 characters.
     */
    static String oneLine(String s) {
        if (s == null) {
            return "";
        }
        String r = LogText.escape(s.replaceAll("[\\r\\n\\t]+", " "));
        return r.length() > 400 ? r.substring(0, 400) + "..." : r;
    }
}
