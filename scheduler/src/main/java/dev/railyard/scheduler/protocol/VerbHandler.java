package dev.railyard.scheduler.protocol;

/**
 * One extender verb: takes the request body, returns the reply. Implementations are thread-safe.
 *
 * <p>The HTTP server first asks {@link #refuse} whether this caller may call at all (before reading any body),
 * then reads the body into memory (bounded by its request-size limit) unless {@link #readsBody()} is false, in
 * which case it drains the body without keeping it, applies no size limit, and passes an empty array; then it calls
 * {@link #handle(byte[], Caller)}, on the connection's I/O thread or off it as {@link #threading()} declares.
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

    /**
     * Whose request-body budget this verb's bodies take (docs/serve.md, "Request bodies in flight"). A wrapper
     * declares what its delegate declares, unless it authenticates the caller before the body itself.
     */
    enum BodyBudget {
        /**
         * The schedulers' verbs, and any verb whose {@link #refuse} authenticates the caller: the process's budget
         * ({@code serve --request-bytes-in-flight}) and the request-size limit ({@code --max-request-size}).
         */
        SCHEDULERS,
        /**
         * A verb whose caller is not authenticated before its body is read (the admission webhook, which checks
         * no caller; {@code /explain}, whose bearer token is reviewed after the body): a small budget of its own
         * and a small size limit, so that whoever can reach its port cannot take the budget the schedulers' verbs
         * need.
         */
        UNAUTHENTICATED
    }

    /** @return whose body budget this verb's bodies take; by default {@link BodyBudget#SCHEDULERS} */
    default BodyBudget bodyBudget() {
        return BodyBudget.SCHEDULERS;
    }

    /**
     * Where the server may run {@link #handle}. A wrapper (auth, leader gate, deadline) declares what its delegate
     * declares, or {@link Threading#OWN_THREAD} when the wrapper itself may wait.
     */
    enum Threading {
        /**
         * Answered on the connection's I/O thread (a Netty event loop), with no hand-off to another thread: the verb
         * must never block. No API server call, no wait on a latch, future, deadline or sleep, no lock held by
         * someone who does any of those; CPU-bound work of a few milliseconds and short critical sections on
         * in-memory state are fine. While it runs, the loop's other connections wait, so the server still moves a
         * request with a large body off the loop (docs/adr/0017-netty-transport.md, "Verbs on the event loop").
         */
        IO_THREAD,
        /** May block: the server runs it on a virtual thread of its own and writes the reply from the loop. */
        OWN_THREAD
    }

    /** @return where this verb may run; by default {@link Threading#OWN_THREAD}, which is always safe */
    default Threading threading() {
        return Threading.OWN_THREAD;
    }

    /**
     * The same verb, declared to answer on the I/O thread: only for a handler whose whole path was read and found
     * never to block ({@link Threading#IO_THREAD}).
     */
    static VerbHandler onIoThread(VerbHandler h) {
        return declared(h, Threading.IO_THREAD);
    }

    /** The same verb, run off the I/O thread whatever it declared. */
    static VerbHandler offIoThread(VerbHandler h) {
        return declared(h, Threading.OWN_THREAD);
    }

    private static VerbHandler declared(VerbHandler h, Threading threading) {
        return new VerbHandler() {
            @Override
            public WireReply handle(byte[] body) throws WireFormatException {
                return h.handle(body);
            }

            @Override
            public WireReply handle(byte[] body, Caller caller) throws WireFormatException {
                return h.handle(body, caller);
            }

            @Override
            public java.util.Optional<WireReply> refuse(Caller caller) {
                return h.refuse(caller);
            }

            @Override
            public boolean readsBody() {
                return h.readsBody();
            }

            @Override
            public Threading threading() {
                return threading;
            }

            @Override
            public BodyBudget bodyBudget() {
                return h.bodyBudget();
            }
        };
    }

    /** A handler that ignores its body and always gives the same reply, on the I/O thread. */
    static VerbHandler constant(WireReply reply) {
        return new VerbHandler() {
            @Override
            public WireReply handle(byte[] body) {
                return reply;
            }

            @Override
            public Threading threading() {
                return Threading.IO_THREAD;
            }

            @Override
            public boolean readsBody() {
                return false;
            }
        };
    }
}
