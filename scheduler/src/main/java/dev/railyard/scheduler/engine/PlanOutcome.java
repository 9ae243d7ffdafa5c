package dev.railyard.scheduler.engine;

import dev.railyard.scheduler.ipam.PoolVerdict;

import java.util.List;

/**
 * What {@link GangPlanner#plan} answers: a plan, or why there is none. All data, no exceptions, so that
 * {@code explain} and the protocol adapters can render it.
 *
 * @param gang     {@code namespace/name}
 * @param plan     the plan, or null when the gang is unschedulable
 * @param reasons  gang-level reasons (pool exhausted, no common rail set, scope too small); empty with a plan
 * @param verdicts per-node Filter verdicts for the gang's first pod shape (for unschedulable gangs, nodes that pass
 *                 alone but cannot offer the gang's best rail set carry {@link ReasonCode#RAIL_SET_UNAVAILABLE})
 * @param summary  one line: {@code "0/12 nodes available: 8 no free GPU pair at ≤ PXB, 4 ..."}, prefixed by the gang
 *                 reasons when there is no plan
 * @param pools    the address-pool verdict for the whole gang, or null when no pools are known
 * @param notices  statements for people about the data (no fabric data, pools not checked, ...)
 */
public record PlanOutcome(String gang, GangPlan plan, List<Reason> reasons, List<NodeVerdict> verdicts,
                          String summary, PoolVerdict pools, List<String> notices) {
    public PlanOutcome {
        reasons = List.copyOf(reasons);
        verdicts = List.copyOf(verdicts);
        notices = List.copyOf(notices);
    }

    /** @return true when there is a plan */
    public boolean schedulable() {
        return plan != null;
    }
}
