package dev.railyard.scheduler.protocol;

/**
 * One extender verb: takes the request body, returns the reply. Implementations are thread-safe.
 *
 * <p>The HTTP server reads the body into memory (bounded by its request-size limit) unless
 * {@link #readsBody()} is false, in which case it drains the body without keeping it, applies no size limit,
 * and passes an empty array.
 */
@FunctionalInterface
public interface VerbHandler {

    /**
     * @param body the complete request body (exact length), or an empty array when {@link #readsBody()} is false
     * @return the reply to send
     * @throws WireFormatException when the body is not a request this verb can use (answered with 400)
     */
    WireReply handle(byte[] body) throws WireFormatException;

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
