package dev.railyard.scheduler.engine;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * The result of a decision, in kube-scheduler framework terms ({@code fwk.Status}: a code and reasons): what the
 * engine answers for one pod on one node, and what the protocol adapters put on the wire. One vocabulary from engine
 * to wire; each adapter maps the code to its protocol's field
 * (docs/adr/0012-one-verdict-vocabulary-and-unresolvable-reasons.md):
 *
 * <table>
 *   <caption>Codes on the wire</caption>
 *   <tr><th>code</th><th>Volcano predicate {@code code}</th><th>kube-scheduler ExtenderFilterResult</th></tr>
 *   <tr><td>{@link Code#SUCCESS}</td><td>0, empty {@code status}</td><td>in {@code NodeNames}/{@code Nodes}</td></tr>
 *   <tr><td>{@link Code#UNSCHEDULABLE}</td><td>2</td><td>{@code FailedNodes}</td></tr>
 *   <tr><td>{@link Code#UNSCHEDULABLE_AND_UNRESOLVABLE}</td><td>3</td><td>{@code FailedAndUnresolvableNodes}</td></tr>
 *   <tr><td>{@link Code#ERROR}</td><td>1</td><td>{@code Error} (the whole call fails, as a framework Error does)</td></tr>
 * </table>
 *
 * <p>A success may carry reasons: then Railyard passed the node without judging it (no NodeTopology, an unknown
 * node, a cold cache), and the reasons ({@link ReasonCode#NOT_JUDGED}) say why; {@link #neutral()} is true.
 *
 * <p>Immutable; equal when code and reasons are equal (as a record would be). A class rather than a record only so
 * that {@link #message()} is built once per status: the engine's cached verdicts are answered again on every call,
 * and a kube filter over 5,000 names spent a fifth of its CPU joining the same reasons again.
 */
public final class Status {
    private static final Status SUCCESS = new Status(Code.SUCCESS, List.of());

    /** Outcomes, as kube-scheduler's framework names them (Wait, Skip and Pending have no use in a Filter). */
    public enum Code {
        /** The node fits (or, with reasons, passes unjudged). */
        SUCCESS,
        /** The node does not fit now; evicting pods may make it fit, so preemption may be tried there. */
        UNSCHEDULABLE,
        /** The node cannot fit whatever is evicted; preemption is not tried there. */
        UNSCHEDULABLE_AND_UNRESOLVABLE,
        /** Railyard failed to decide. */
        ERROR
    }

    private final Code code;
    private final List<Reason> reasons;
    /** {@link #message()}, made on first use (a benign race: any thread makes the same string). */
    private String message;
    /** {@link #encodedMessage}'s last encoding: the encoder and what it made of the message. */
    private volatile Encoded encoded;

    private record Encoded(Function<String, ?> encoder, Object value) {
    }

    /**
     * @param code    the outcome
     * @param reasons why; at least one unless the code is {@link Code#SUCCESS}; null is read as none
     * @throws IllegalArgumentException for a refusal or error without a reason
     */
    public Status(Code code, List<Reason> reasons) {
        this.code = Objects.requireNonNull(code, "code");
        this.reasons = reasons == null ? List.of() : List.copyOf(reasons);
        if (code != Code.SUCCESS && this.reasons.isEmpty()) {
            throw new IllegalArgumentException("a " + code + " status needs a reason");
        }
    }

    /** @return the outcome */
    public Code code() {
        return code;
    }

    /** @return why, in order; empty for a judged success */
    public List<Reason> reasons() {
        return reasons;
    }

    /** @return the node fits, judged with knowledge */
    public static Status success() {
        return SUCCESS;
    }

    /**
     * @param reasons why the node cannot take the pod; empty for a success
     * @return {@link Code#SUCCESS} for no reasons; {@link Code#UNSCHEDULABLE_AND_UNRESOLVABLE} when any reason is
     *         {@link ReasonCode#unresolvable()} (no eviction removes that one); otherwise {@link Code#UNSCHEDULABLE}
     */
    public static Status of(List<Reason> reasons) {
        if (reasons == null || reasons.isEmpty()) {
            return SUCCESS;
        }
        boolean unresolvable = reasons.stream().anyMatch(r -> r.code().unresolvable());
        return new Status(unresolvable ? Code.UNSCHEDULABLE_AND_UNRESOLVABLE : Code.UNSCHEDULABLE, reasons);
    }

    /** @return a pass without judgement; {@code why} says what Railyard lacks */
    public static Status neutral(String why) {
        return new Status(Code.SUCCESS, List.of(new Reason(ReasonCode.NOT_JUDGED, why, "")));
    }

    /** @return Railyard failed to decide; {@code what} says what failed */
    public static Status error(String what) {
        return new Status(Code.ERROR, List.of(new Reason(ReasonCode.INTERNAL_ERROR, "internal error", what)));
    }

    /** @return true when the node passes, judged or not */
    public boolean isSuccess() {
        return code == Code.SUCCESS;
    }

    /** @return true when the node passes because Railyard could not judge it */
    public boolean neutral() {
        return code == Code.SUCCESS && !reasons.isEmpty();
    }

    /** @return the reasons joined into one line ({@code "a: x; b: y"}), or {@code "fits"} for a judged success */
    public String message() {
        String m = message;
        if (m == null) {
            m = reasons.isEmpty() ? "fits" : String.join("; ", reasons.stream().map(Reason::toString).toList());
            message = m;
        }
        return m;
    }

    /**
     * The {@link #message()} as a protocol adapter writes it (for one, JSON-escaped UTF-8 bytes), made by
     * {@code encoder} once per status and kept: a kube filter answers the engine's cached verdicts for thousands of
     * nodes on every call, and encoding their reasons again was a quarter of its CPU (docs/performance.md). One
     * encoding is kept per status; an encoder other than the last one's gets a fresh value, which then replaces it.
     *
     * @param encoder a pure function of the message, the same instance on every call (a constant of the adapter)
     * @param <T>     what it makes; callers must not modify it
     * @return {@code encoder.apply(message())}, computed at most once per status while the encoder is the same
     */
    @SuppressWarnings("unchecked")
    public <T> T encodedMessage(Function<String, T> encoder) {
        Encoded e = encoded;
        if (e == null || e.encoder() != encoder) {
            e = new Encoded(encoder, Objects.requireNonNull(encoder.apply(message()), "encoded message"));
            encoded = e;
        }
        return (T) e.value();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Status s && s.code == code && s.reasons.equals(reasons);
    }

    @Override
    public int hashCode() {
        return 31 * code.hashCode() + reasons.hashCode();
    }

    @Override
    public String toString() {
        return "Status[code=" + code + ", reasons=" + reasons + "]";
    }
}
