package dev.railyard.scheduler.engine;

import java.util.List;
import java.util.Objects;

/**
 * The Filter's answer for one pod on one node: the node and its {@link Status} (kube-scheduler's
 * {@code NodeToStatus} entry). The engine, the service and both protocol adapters use this one type; the adapters map
 * {@link #code()} to their wire field ({@link Status}).
 *
 * @param node   node name, never null
 * @param status the outcome with its reasons, never null
 */
public record NodeVerdict(String node, Status status) {
    public NodeVerdict {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(status, "status");
    }

    /**
     * A judged verdict: a success for no reasons, otherwise a refusal whose code follows from the reasons
     * ({@link Status#of}).
     *
     * @param node    node name
     * @param reasons why the node cannot take the pod; empty when it can
     */
    public NodeVerdict(String node, List<Reason> reasons) {
        this(node, Status.of(reasons));
    }

    /** @return the node fits, judged with knowledge */
    public static NodeVerdict pass(String node) {
        return new NodeVerdict(node, Status.success());
    }

    /** @return the node passes because Railyard cannot judge it; {@code why} says what is missing */
    public static NodeVerdict neutral(String node, String why) {
        return new NodeVerdict(node, Status.neutral(why));
    }

    /** @return the status's code */
    public Status.Code code() {
        return status.code();
    }

    /** @return the status's reasons (for a neutral pass, why it was not judged) */
    public List<Reason> reasons() {
        return status.reasons();
    }

    /** @return true when the node passes (judged, or neutrally) */
    public boolean feasible() {
        return status.isSuccess();
    }

    /** @return true when the node passes because Railyard could not judge it */
    public boolean neutral() {
        return status.neutral();
    }

    /** @return the reasons joined into one line, or {@code "fits"} */
    public String describe() {
        return status.message();
    }
}
