package dev.railyard.benchmarks.scale;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Reading serve's Prometheus text (exposition format 0.0.4: {@code name{label="v",...} value}). */
class MetricsTextTest {
    private static final String BEFORE = """
            # HELP railyard_decisions_total Placement decisions answered
            # TYPE railyard_decisions_total counter
            railyard_decisions_total{outcome="pass",protocol="volcano",verb="predicate"} 10.0
            railyard_decisions_total{outcome="unschedulable",protocol="volcano",verb="predicate"} 5.0
            railyard_neutral_answers_total{why="no-topology"} 2.0
            """;
    private static final String AFTER = """
            railyard_decisions_total{outcome="pass",protocol="volcano",verb="predicate"} 25.0
            railyard_decisions_total{outcome="unschedulable",protocol="volcano",verb="predicate"} 5.0
            railyard_decisions_total{outcome="pass",protocol="kube",verb="filter"} 3000.0
            railyard_neutral_answers_total{why="no-topology"} 2.0
            railyard_neutral_answers_total{why="cache-cold"} 4.0
            """;

    @Test
    void sumsSamplesWhoseLabelsMatch() {
        assertThat(RailyardServe.sum(AFTER, "railyard_neutral_answers_total")).isEqualTo(6.0);
        assertThat(RailyardServe.sum(AFTER, "railyard_decisions_total", "protocol=\"volcano\"")).isEqualTo(30.0);
        assertThat(RailyardServe.sum(BEFORE, "railyard_decisions_total", "outcome=\"pass\"")).isEqualTo(10.0);
    }

    @Test
    void deltaKeepsOnlyWhatMovedKeyedByLabelValues() {
        // pass/volcano/predicate moved 10 -> 25, kube filter appeared at 3000, unschedulable did not move
        assertThat(ClusterScaleBenchmark.delta(BEFORE, AFTER, "railyard_decisions_total")).isEqualTo(Map.of(
                "pass volcano predicate", 15.0, "pass kube filter", 3000.0));
    }
}
