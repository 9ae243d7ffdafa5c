package dev.railyard.scheduler.protocol;

/**
 * One extender verb: takes the request body, returns the reply. Implementations are thread-safe.
 *
 * <p>The HTTP server first asks {@link #refuse} whether this caller may call at all (before reading any body),
 * then reads the body into memory (bounded by its request-size limit) unless {@link #readsBody()} is false, in
 * which case it drains the body without keeping it, applies no size limit, and passes an empty array; then it calls
 * {@link #handle(byte[], Caller)}.
 */
@FunctionalInterface
public interface VerbHandler {

    /**
     * @param body the complete request body (exact length), or an empty array when {@link #readsBody()} is false
     * @return the reply to send
     * @throws WireFormatException when the body is not a request this verb can use (answered with 400)
     */
    WireReply handle(byte[] body) throws WireFormatException;

    /**
     * The verb for a known caller; by default the caller does not matter.
     *
     * @throws WireFormatException as {@link #handle(byte[])}
     */
    default WireReply handle(byte[] body, Caller caller) throws WireFormatException {
        return handle(body);
    }

    /**
     * Decides, before the body is read, whether the caller may use this verb. Runs on the HTTP server's event
     * loop, so it must be quick and must not block (no API calls: a TokenReview belongs in {@link #handle}).
     *
     * @return the refusal to send (401 or 403 with a one-line reason), or empty to go on; by default anyone may call
     */
    default java.util.Optional<WireReply> refuse(Caller caller) {
        return java.util.Optional.empty();
    }

    /** False for verbs answered without looking at the body (Volcano onSessionOpen: the whole cluster, every second). */
    default boolean readsBody() {
        return true;
    }

    /** A handler that ignores its body and always gives the same reply. */
    static VerbHandler constant(WireReply reply) {
        return new VerbHandler() {
            @Override
            public WireReply handle(byte[] body) {
                return reply;
            }

            @Override
            public boolean readsBody() {
                return false;
            }
        };
    }
}
