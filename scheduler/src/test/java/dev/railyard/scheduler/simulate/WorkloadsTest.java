package dev.railyard.scheduler.simulate;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class WorkloadsTest {
    @Test
    void poissonArrivalsOfferTheRequestedLoad() {
        // generator mix: E[GPUs] = Σ w·g / Σ w = 1400 / 100 = 14; E[duration] = 3600 s (uniform 0.5–1.5 h);
        // rate = 0.85 · 8192 / (14 · 3600) = 0.13816 jobs/s: 4000 arrivals span 28952 s (± 1.6 % for a
        // sum of 4000 exponentials at one standard deviation)
        List<TraceJob> t = Workloads.generate(Workloads.preset("generator"), null,
                new Workloads.Params(4000, 0.85, 0.3, 0.2, 7), 8192);
        double span = t.get(t.size() - 1).arrival();
        assertThat(span).isCloseTo(4000 / (0.85 * 8192 / (14.0 * 3600)), within(0.05 * 28952));
        double offered = t.stream().mapToDouble(j -> j.totalGpus() * j.duration()).sum() / (span * 8192);
        assertThat(offered).isCloseTo(0.85, within(0.06));
        // arrivals ascend; only multi-pod jobs do all-to-all
        for (int i = 1; i < t.size(); i++) {
            assertThat(t.get(i).arrival()).isGreaterThanOrEqualTo(t.get(i - 1).arrival());
        }
        assertThat(t).filteredOn(j -> j.collective() == Collective.ALL_TO_ALL).allMatch(j -> j.pods() > 1);
        long a2a = t.stream().filter(j -> j.collective() == Collective.ALL_TO_ALL).count();
        long multi = t.stream().filter(j -> j.pods() > 1).count();
        assertThat(a2a / (double) multi).isCloseTo(0.2, within(0.03));
    }

    @Test
    void traceMixesKeepTheirSingleGpuMajorityAndCapTheirTail() {
        // philly: weights 70 of 100 for 1 × 1; durations log-normal, median 1800 s, capped at 20 medians
        List<TraceJob> t = Workloads.generate(Workloads.preset("philly"), null,
                new Workloads.Params(5000, 0.6, 0.3, 0, 3), 8192);
        long single = t.stream().filter(j -> j.totalGpus() == 1).count();
        assertThat(single / 5000.0).isCloseTo(0.70, within(0.02));
        double[] d = t.stream().mapToDouble(TraceJob::duration).sorted().toArray();
        assertThat(d[d.length / 2]).isCloseTo(1800, within(150.0));
        assertThat(d[d.length - 1]).isLessThanOrEqualTo(20 * 1800);
    }

    @Test
    void presetsAreNamed() {
        assertThat(Workloads.PRESETS).extracting(Workloads.Preset::name)
                .containsExactly("generator", "philly", "pai", "helios");
        assertThatThrownBy(() -> Workloads.preset("borg")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("workload 'borg' is not one of [generator, philly, pai, helios]");
    }
}
