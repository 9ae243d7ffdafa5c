package dev.railyard.scheduler.simulate;

import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.topology.InputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * One test per term of the step-time model, each against a value computed by hand from the constants of
 * simulate/step-time-model.yaml (sources in docs/simulation.md, "Step-time model").
 */
class StepTimeModelTest {
    private static final StepTimeModel M = StepTimeModel.defaults();

    @Test
    void defaultsAreTheSourcedConstants() {
        // 400 Gb/s = 50 GB/s; nccl#1579 79.72/96.07 = 0.83; uccl#377 132.18/171.50 = 0.77; llm-d 235/380 = 0.618;
        // llm-d 2–3 µs per layer → 2.5; NCCL defaults GDR level PXB and PXN on; llm-d: pods don't share NVLink
        assertThat(M).isEqualTo(new StepTimeModel(50, PcieDistance.PXB, 0.83, 0.77, 0.618, 2.5, true, true));
        assertThat(79.72 / 96.07).isCloseTo(0.83, within(0.005));
        assertThat(132.18 / 171.50).isCloseTo(0.77, within(0.005));
        assertThat(235.0 / 380).isCloseTo(0.618, within(0.001));
    }

    @Test
    void distanceClassTerm() {
        // GPUDirect up to PXB: full rate; beyond it staged through host memory 0.83; SYS also crosses to a far NIC:
        // 0.83 × 0.77 = 0.6391
        assertThat(M.distanceFactor(PcieDistance.PIX)).isEqualTo(1.0);
        assertThat(M.distanceFactor(PcieDistance.PXB)).isEqualTo(1.0);
        assertThat(M.distanceFactor(PcieDistance.PHB)).isEqualTo(0.83);
        assertThat(M.distanceFactor(PcieDistance.NODE)).isEqualTo(0.83);
        assertThat(M.distanceFactor(PcieDistance.SYS)).isCloseTo(0.6391, within(1e-12));
        // GPUDirect configured up to SYS (NCCL_NET_GDR_LEVEL=SYS): no staging, only the far-NIC share 0.77
        StepTimeModel gdrSys = new StepTimeModel(50, PcieDistance.SYS, 0.83, 0.77, 0.618, 2.5, true, true);
        assertThat(gdrSys.distanceFactor(PcieDistance.PHB)).isEqualTo(0.77);
        assertThat(gdrSys.distanceFactor(PcieDistance.SYS)).isEqualTo(0.77);
    }

    @Test
    void nicSharingTerm() {
        // own NIC: 1; two GPUs on one NIC: min(0.618, 1/2) = 0.5; four: 0.25
        assertThat(M.sharingFactor(1)).isEqualTo(1.0);
        assertThat(M.sharingFactor(2)).isEqualTo(0.5);
        assertThat(M.sharingFactor(4)).isEqualTo(0.25);
        // an odd GPU of the hgx4 shape: SYS to its NIC and sharing it: 50 × 0.6391 × 0.5 = 15.9775 GB/s
        assertThat(M.gpuBandwidth(PcieDistance.SYS, 2)).isCloseTo(15.9775, within(1e-9));
    }

    @Test
    void switchLayerTerm() {
        // same node: a hairpin through the leaf (1); shared leaf 1; spine 3; core 5 (2t − 1)
        assertThat(StepTimeModel.layers(0)).isEqualTo(1);
        assertThat(StepTimeModel.layers(1)).isEqualTo(1);
        assertThat(StepTimeModel.layers(2)).isEqualTo(3);
        assertThat(StepTimeModel.layers(3)).isEqualTo(5);
    }

    @Test
    void collectivePatternTerm() {
        // ring all-reduce, 4 pods, 256 MiB at 50 GB/s, 1 layer: 2·3/4 · 268435456 B / 50e9 + 6 · 2.5 µs
        assertThat(M.collectiveSeconds(Collective.RING_ALL_REDUCE, 4, 256, 50, 1))
                .isCloseTo(0.00806806368, within(1e-12));
        // all-to-all: 3/4 · 268435456 / 50e9 + 3 · 2.5 µs
        assertThat(M.collectiveSeconds(Collective.ALL_TO_ALL, 4, 256, 50, 1))
                .isCloseTo(0.00403403184, within(1e-12));
    }

    @Test
    void communicationShareTerm() {
        TraceJob job = new TraceJob("j", 0, 100, 4, 8, AffinityPolicy.PREFERRED, 0.3, Collective.RING_ALL_REDUCE,
                256);
        // half the bandwidth and 3 layers: ring time 0.01615112736 s vs ideal 0.00806806368 s = ×2.0018592;
        // slowdown = 0.7 + 0.3 × 2.0018592 = 1.30055775
        JobPlacement half = new JobPlacement(true, 25, 3, 8, 0, 0, Map.of());
        assertThat(M.slowdown(job, half)).isCloseTo(1.3005577546, within(1e-9));
        // no communication share, or one pod (NVLink only): no slowdown
        TraceJob quiet = new TraceJob("q", 0, 100, 4, 8, AffinityPolicy.PREFERRED, 0, Collective.RING_ALL_REDUCE,
                256);
        assertThat(M.slowdown(quiet, half)).isEqualTo(1.0);
        assertThat(M.slowdown(job, new JobPlacement(false, 50, 1, 0, 0, 0, Map.of()))).isEqualTo(1.0);
        // the ideal placement itself: exactly 1
        assertThat(M.slowdown(job, new JobPlacement(true, 50, 1, 8, 0, 0, Map.of()))).isCloseTo(1.0, within(1e-12));
    }

    @Test
    void aModelFileReplacesTheDefaultsAndBadOnesAreNamed(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("m.yaml");
        Files.writeString(f, Files.readString(Path.of("src/main/resources/simulate/step-time-model.yaml"))
                .replace("lineRateGBps: 50", "lineRateGBps: 100"));
        assertThat(StepTimeModel.read(f).lineRateGBps()).isEqualTo(100);
        Files.writeString(f, "lineRateGBps: 50\n");
        assertThatThrownBy(() -> StepTimeModel.read(f)).isInstanceOf(InputException.class)
                .hasMessageStartingWith(f.toString()).hasMessageContaining("gdrMaxDistance");
        Files.writeString(f, Files.readString(Path.of("src/main/resources/simulate/step-time-model.yaml"))
                .replace("sharedNicFactor: 0.618", "sharedNicFactor: 1.5"));
        assertThatThrownBy(() -> StepTimeModel.read(f)).isInstanceOf(InputException.class)
                .hasMessage(f + ": sharedNicFactor must be in (0, 1], got 1.5");
        assertThatThrownBy(() -> StepTimeModel.read(dir.resolve("none.yaml"))).isInstanceOf(InputException.class)
                .hasMessage(dir.resolve("none.yaml") + ": no such file");
    }
}
