package dev.railyard.scheduler.explain;

import dev.railyard.scheduler.ipam.AddressHold;
import dev.railyard.scheduler.ipam.HoldOrigin;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code pools} and {@code /explain} show who holds a pool's in-flight addresses, since and until when (issue 15
 * item 4, docs/explain.md "HoldLine"): the ledger's holds are listed under the pools they draw from, one line per
 * pod with how many of that pool's addresses it holds, and the table names at most ten.
 */
class ExplanationHoldsTest {
    private static final Instant SINCE = Instant.parse("2026-12-01T17:40:00Z");
    private static final Instant UNTIL = Instant.parse("2026-12-01T17:45:00Z");
    private static final String RAIL = "192.168.4.0-22";

    private static AddressHold hold(String pod, HoldOrigin by, String node, boolean persisted, String... pools) {
        List<String> ifs = new ArrayList<>();
        for (int i = 0; i < pools.length; i++) {
            ifs.add("net" + (i + 1));
        }
        boolean bound = by == HoldOrigin.BOUND;
        return new AddressHold(pod, bound ? "" : "uid-" + pod, node, by, bound ? null : SINCE, bound ? null : UNTIL,
                persisted, List.of(pools), ifs);
    }

    @Test
    void holdLinesListThePodsDrawingFromThePoolWithTheirCount() {
        List<AddressHold> holds = List.of(
                hold("prod/w-0", HoldOrigin.BIND, "gpu-a1", true, RAIL),
                hold("prod/w-1", HoldOrigin.ALLOCATE, "gpu-a2", true, RAIL, RAIL),
                hold("prod/other", HoldOrigin.FILTER, null, false, "10.0.0.0-24"),
                hold("prod/w-2", HoldOrigin.BOUND, "gpu-a3", false, RAIL));
        List<Explanation.HoldLine> lines = Explainer.holdLines(holds, RAIL);
        assertThat(lines).containsExactly(
                new Explanation.HoldLine("prod/w-0", "uid-prod/w-0", "gpu-a1", "kube bind", "2026-12-01T17:40:00Z",
                        "2026-12-01T17:45:00Z", true, 1),
                new Explanation.HoldLine("prod/w-1", "uid-prod/w-1", "gpu-a2", "volcano allocateFunc",
                        "2026-12-01T17:40:00Z", "2026-12-01T17:45:00Z", true, 2),
                new Explanation.HoldLine("prod/w-2", null, "gpu-a3", "bound, address not recorded yet", null, null,
                        false, 1));
        // each run of holders with the same who/since/until is said once, with its pods and their nodes
        assertThat(ExplanationTable.holders(lines)).isEqualTo(
                "kube bind, since 2026-12-01T17:40:00Z, until 2026-12-01T17:45:00Z, on the pod: prod/w-0 on gpu-a1; "
                        + "volcano allocateFunc, since 2026-12-01T17:40:00Z, until 2026-12-01T17:45:00Z, on the pod: "
                        + "prod/w-1 ×2 on gpu-a2; "
                        + "bound, address not recorded yet: prod/w-2 on gpu-a3");
    }

    @Test
    void theTableNamesTenHoldersAndCountsTheRest() {
        List<AddressHold> holds = new ArrayList<>();
        for (int i = 0; i < 13; i++) {
            holds.add(hold("prod/p-" + i, HoldOrigin.FILTER, null, false, RAIL));
        }
        String text = ExplanationTable.holders(Explainer.holdLines(holds, RAIL));
        // one kube filter's thirteen holds: said once, ten pods named, the rest counted
        assertThat(text).isEqualTo("kube filter, since 2026-12-01T17:40:00Z, until 2026-12-01T17:45:00Z: "
                + "prod/p-0, prod/p-1, prod/p-2, prod/p-3, prod/p-4, prod/p-5, prod/p-6, prod/p-7, prod/p-8, prod/p-9"
                + " and 3 more");
    }

    @Test
    void timesAreShownToTheSecond() {
        // the ledger's clock has nanoseconds (2026-12-04T14:56:46.488460518Z in the demo snapshot's explain)
        List<Explanation.HoldLine> lines = List.of(new Explanation.HoldLine("prod/w-0", "u", "gpu-a5", "plan",
                "2026-12-04T14:56:46.488460518Z", "2026-12-04T15:56:46.488460518Z", false, 1));
        assertThat(ExplanationTable.holders(lines))
                .isEqualTo("plan, since 2026-12-04T14:56:46Z, until 2026-12-04T15:56:46Z: prod/w-0 on gpu-a5");
    }
}
