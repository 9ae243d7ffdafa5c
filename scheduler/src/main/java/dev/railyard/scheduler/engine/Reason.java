package dev.railyard.scheduler.engine;

/**
 * One reason, as data: a stable code, a short summary that aggregates across nodes, and the detail for this node.
 *
 * @param code    machine-readable code
 * @param summary short text shared by every node failing the same way ({@code no free GPU pair at ≤ PXB}); counted
 *                kube-scheduler style in {@link Verdicts#summarize}
 * @param detail  one sentence for this node or gang ({@code needs 8 GPUs paired at ≤ PXB; 4 qualify: GPU1, GPU3,
 *                GPU5, GPU7 reach the pod's HCAs only at SYS})
 */
public record Reason(ReasonCode code, String summary, String detail) {
    @Override
    public String toString() {
        return detail == null || detail.isEmpty() ? summary : summary + ": " + detail;
    }
}
