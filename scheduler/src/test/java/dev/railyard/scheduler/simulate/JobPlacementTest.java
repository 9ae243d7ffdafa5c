package dev.railyard.scheduler.simulate;

import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.api.topology.PcieDistance;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Flows, rail and leaf crossings, bottleneck bandwidth and switch layers of hand-built placements on a generated
 * fabric (scalable units of 32 nodes; SU 0–3 DGX-shaped under one spine group, SU 4 HGX-with-4-NICs under the
 * next; 3 tiers, one core per rail).
 */
class JobPlacementTest {
    private static final SimCluster C = new SimCluster(GeneratedCluster.build(160, 3, "dgx:4,hgx4:1"));
    private static final StepTimeModel M = StepTimeModel.defaults();

    private static PlacementStrategy.PodUse pod(String node, int... gpus) {
        int i = C.indexOf(node);
        List<PlacementStrategy.GpuUse> uses = new ArrayList<>();
        for (int g : gpus) {
            uses.add(C.homeUse(i, g));
        }
        return new PlacementStrategy.PodUse(node, uses);
    }

    private static TraceJob job(int pods, int gpus, Collective c) {
        return new TraceJob("j", 0, 100, pods, gpus, AffinityPolicy.PREFERRED, 0.3, c, 256);
    }

    private static final int[] ALL = {0, 1, 2, 3, 4, 5, 6, 7};

    @Test
    void twoAlignedPodsUnderOneLeafAreIdeal() {
        JobPlacement p = JobPlacement.of(job(2, 8, Collective.RING_ALL_REDUCE),
                List.of(pod("su000-n00", ALL), pod("su000-n01", ALL)), C.fabric(), M);
        // two pods: one ring pair × 8 local ranks; same rails, same leaves, own NICs at PIX
        assertThat(p.flows()).isEqualTo(8);
        assertThat(p.crossRail()).isZero();
        assertThat(p.crossLeaf()).isZero();
        assertThat(p.bottleneckGBps()).isEqualTo(50.0);
        assertThat(p.maxLayers()).isEqualTo(1);
        assertThat(p.gpusByDistance()).containsEntry(PcieDistance.PIX, 16);
    }

    @Test
    void podsUnderTwoLeavesOfOneSpineCrossThreeLayers() {
        JobPlacement p = JobPlacement.of(job(2, 8, Collective.RING_ALL_REDUCE),
                List.of(pod("su000-n00", ALL), pod("su001-n00", ALL)), C.fabric(), M);
        assertThat(p.crossLeaf()).isEqualTo(8);
        assertThat(p.crossRail()).isZero();
        assertThat(p.maxLayers()).isEqualTo(3);
        assertThat(p.bottleneckGBps()).isEqualTo(50.0);
    }

    @Test
    void aDgxPodTalkingToAnHgx4PodCrossesRailsThroughPxnAndSharesNics() {
        JobPlacement p = JobPlacement.of(job(2, 8, Collective.RING_ALL_REDUCE),
                List.of(pod("su000-n00", ALL), pod("su004-n00", ALL)), C.fabric(), M);
        // hgx4 GPU k sends through HCA k/2 (rail k/2): ranks 1..7 meet a DGX GPU on another rail
        assertThat(p.crossRail()).isEqualTo(7);
        // different scalable units and spine groups: every flow crosses leaves, through the core (2·3 − 1 = 5)
        assertThat(p.crossLeaf()).isEqualTo(8);
        assertThat(p.maxLayers()).isEqualTo(5);
        // slowest: an odd hgx4 GPU, SYS to a NIC it shares with its even neighbour (50 × 0.6391 × 0.5 = 15.9775),
        // relayed by PXN onto another rail (× 0.618) = 9.874095
        assertThat(p.bottleneckGBps()).isCloseTo(9.874095, within(1e-9));
        assertThat(p.gpusByDistance()).containsEntry(PcieDistance.PIX, 12).containsEntry(PcieDistance.SYS, 4);
    }

    @Test
    void oneGpuPodsOnOneNodeHairpinAcrossRailsWithoutPxn() {
        JobPlacement p = JobPlacement.of(job(2, 1, Collective.RING_ALL_REDUCE),
                List.of(pod("su000-n00", 0), pod("su000-n00", 1)), C.fabric(), M);
        // separate pods do not share NVLink: rail 0 to rail 1 through the fabric; neither pod has a GPU on the
        // other's rail, so no PXN relay: the planes meet one tier above the top (tier 4: 2·4 − 1 = 7 layers)
        assertThat(p.usesNetwork()).isTrue();
        assertThat(p.crossRail()).isEqualTo(1);
        assertThat(p.crossLeaf()).isZero();
        assertThat(p.maxLayers()).isEqualTo(7);
        assertThat(p.bottleneckGBps()).isCloseTo(30.9, within(1e-9));
        // with NVLink between co-located pods (hostIPC), no network at all
        StepTimeModel nvlink = new StepTimeModel(50, PcieDistance.PXB, 0.83, 0.77, 0.618, 2.5, true, false);
        assertThat(JobPlacement.of(job(2, 1, Collective.RING_ALL_REDUCE),
                List.of(pod("su000-n00", 0), pod("su000-n00", 1)), C.fabric(), nvlink).usesNetwork()).isFalse();
    }

    @Test
    void ringCountsNeighboursAndAllToAllCountsEveryPair() {
        List<PlacementStrategy.PodUse> four = List.of(pod("su000-n00", 0), pod("su000-n01", 0),
                pod("su000-n02", 0), pod("su000-n03", 0));
        // ring: 4 neighbour pairs (the last back to the first) × 1 rank; all-to-all: 6 pairs
        assertThat(JobPlacement.of(job(4, 1, Collective.RING_ALL_REDUCE), four, C.fabric(), M).flows()).isEqualTo(4);
        assertThat(JobPlacement.of(job(4, 1, Collective.ALL_TO_ALL), four, C.fabric(), M).flows()).isEqualTo(6);
        // one pod: no network flow
        assertThat(JobPlacement.of(job(1, 8, Collective.RING_ALL_REDUCE), List.of(pod("su000-n00", ALL)),
                C.fabric(), M).usesNetwork()).isFalse();
    }
}
