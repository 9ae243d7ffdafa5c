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
        assertThat(ExplanationTable.holders(lines)).isEqualTo(
                "prod/w-0 (kube bind, gpu-a1, since 2026-12-01T17:40:00Z, until 2026-12-01T17:45:00Z, on the pod), "
                        + "prod/w-1 ×2 (volcano allocateFunc, gpu-a2, since 2026-12-01T17:40:00Z, "
                        + "until 2026-12-01T17:45:00Z, on the pod), "
                        + "prod/w-2 (bound, address not recorded yet, gpu-a3)");
    }

    @Test
    void theTableNamesTenHoldersAndCountsTheRest() {
        List<AddressHold> holds = new ArrayList<>();
        for (int i = 0; i < 13; i++) {
            holds.add(hold("prod/p-" + i, HoldOrigin.FILTER, null, false, RAIL));
        }
        String text = ExplanationTable.holders(Explainer.holdLines(holds, RAIL));
        assertThat(text).startsWith("prod/p-0 (kube filter, since 2026-12-01T17:40:00Z, until 2026-12-01T17:45:00Z)")
                .contains("prod/p-9 (").doesNotContain("prod/p-10 (").endsWith(" and 3 more");
    }
}
