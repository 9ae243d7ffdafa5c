package dev.railyard.scheduler.hints;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.api.hints.PlacementHint;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.scheduler.engine.PlacementPolicy;
import dev.railyard.scheduler.engine.PodRequest;
import dev.railyard.scheduler.engine.RailVector;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link OffPlanHints} on the seed node of {@link PlacementHintsTest} (gpu-a1: 8 GPUs, GPUs 2k and 2k+1 PIX to
 * mlx5_k on rail k).
 */
class OffPlanHintsTest {
    private static final String ALL_LANS = "rdma-net-ipam-lan2,rdma-net-ipam-lan3,rdma-net-ipam-lan4,"
            + "rdma-net-ipam-lan5";
    private static final PlacementEngine ENGINE = new PlacementEngine();
    /** {0×2,1×2}: two GPUs on rail 0, two on rail 1. */
    private static final RailVector RAILS_01 = new RailVector(new int[]{2, 2});
    /** {2×2,3×2}. */
    private static final RailVector RAILS_23 = new RailVector(new int[]{0, 0, 2, 2});

    @Test
    void theGangsRailsAreKeptWhenTheNodeOffersThem() {
        ClusterSnapshot snap = PlacementHintsTest.cluster(Set.of());
        PodRequest p = PlacementHintsTest.pod(ALL_LANS, 4);

        var r = OffPlanHints.hint(ENGINE, snap, "gpu-a1", p, PlacementPolicy.defaults(),
                new OffPlanHints.GangSide("prod/job", 4, 3, "gpu-b1", RAILS_01, "the gang plan"));

        // rails 0 and 1 on the free seed node: GPUs 0,1 (mlx5_0) and 2,3 (mlx5_1); the node's own best for a 4-GPU
        // pod is GPUs 4-7 (the next test's fallback), so the gang's rails are what decided
        PlacementHint h = r.hint();
        assertThat(h.gpus()).extracting(PlacementHint.GpuHint::gpu).containsExactly(0, 1, 2, 3);
        assertThat(h.nccl().ibHca()).isEqualTo("=mlx5_0:1,mlx5_1:1");
        // lan2 and lan3 are 192.168.4.0/22 and 192.168.8.0/22: third octets 00000100 and 00001000 share 4 bits
        assertThat(h.nccl().ibAddrRange()).isEqualTo("192.168.0.0/20");
        assertThat(h.gang()).isEqualTo("prod/job");
        assertThat(h.gangSize()).isEqualTo(4);
        assertThat(h.rank()).isEqualTo(3);
        assertThat(h.railChoice()).isEqualTo(new PlacementHint.RailChoice("gang-rails", "gpu-b1", "0,0,1,1",
                "bound to gpu-a1, not the planned gpu-b1; the gang's rail set {0×2,1×2} (from the gang plan) kept "
                        + "on gpu-a1"));
    }

    @Test
    void aNodeThatCannotOfferTheGangsRailsGetsItsBestPairingWithTheReason() {
        // GPUs 0-2 busy: rail 0 has no free GPU, rail 1 one (GPU 3)
        ClusterSnapshot snap = PlacementHintsTest.cluster(Set.of(0, 1, 2));
        PodRequest p = PlacementHintsTest.pod(ALL_LANS, 4);

        var r = OffPlanHints.hint(ENGINE, snap, "gpu-a1", p, PlacementPolicy.defaults(),
                new OffPlanHints.GangSide("prod/job", 2, 1, "gpu-b1", RAILS_01, "the gang plan"));

        PlacementHint h = r.hint();
        assertThat(h.gpus()).extracting(PlacementHint.GpuHint::gpu).containsExactly(4, 5, 6, 7);
        assertThat(h.railChoice().source()).isEqualTo(PlacementHint.RailChoice.NODE_BEST);
        assertThat(h.railChoice().aligned()).isFalse();
        assertThat(h.railChoice().gangRails()).isEqualTo("0,0,1,1");
        assertThat(h.railChoice().reason()).isEqualTo("bound to gpu-a1, not the planned gpu-b1; the node's best "
                + "pairing: gpu-a1 cannot offer rail set {0×2,1×2}: qualifying free GPUs per rail [0, 1, 2, 2]");
        // the rank is the gang's, not the one-pod plan's 0
        assertThat(h.rank()).isEqualTo(1);
    }

    @Test
    void aGangThatIgnoresRailAlignmentGetsTheNodesBestPairingAndSaysWhy() {
        ClusterSnapshot snap = PlacementHintsTest.cluster(Set.of());
        PodRequest p = PlacementHintsTest.pod(ALL_LANS, 4);
        PlacementPolicy ignore = PlacementPolicy.defaults().withRailAlignment(AffinityPolicy.IGNORE);

        var r = OffPlanHints.hint(ENGINE, snap, "gpu-a1", p, ignore,
                new OffPlanHints.GangSide("prod/job", 2, null, null, RAILS_01, "the gang plan"));

        assertThat(r.hint().railChoice().source()).isEqualTo("node-best");
        assertThat(r.hint().railChoice().plannedNode()).isNull();
        assertThat(r.hint().railChoice().reason())
                .isEqualTo("the node's best pairing: the gang does not align rails (railyard.dev/rail-alignment: "
                        + "ignore)");
        assertThat(r.hint().rank()).as("unknown rank in a gang of 2: none rather than a wrong 0").isNull();
        assertThat(PlacementHints.annotations(r.hint())).doesNotContainKey(HintAnnotations.RANK);
    }

    @Test
    void aPodWithoutAGangGetsItsBestPairingWithoutARailChoice() {
        ClusterSnapshot snap = PlacementHintsTest.cluster(Set.of());
        PodRequest p = PlacementHintsTest.pod(ALL_LANS, 8);

        var r = OffPlanHints.hint(ENGINE, snap, "gpu-a1", p, PlacementPolicy.defaults(),
                new OffPlanHints.GangSide("prod/w-0", 1, null, null, null, null));

        assertThat(r.hint().gpus()).hasSize(8);
        assertThat(r.hint().railChoice()).isNull();
        assertThat(r.hint().rank()).isZero();
    }

    @Test
    void aPodBoundWhereItsRequiredAffinityCannotHoldGetsItsFartherPairsDescribedRatherThanNoHint() {
        // GPUs 0-3 busy; the pod reaches only mlx5_0 (lan2, socket 0): GPUs 4-7 are SYS to it, over the PXB limit
        ClusterSnapshot snap = PlacementHintsTest.cluster(Set.of(0, 1, 2, 3));
        PodRequest p = PlacementHintsTest.pod("rdma-net-ipam-lan2", 2);

        var r = OffPlanHints.hint(ENGINE, snap, "gpu-a1", p, PlacementPolicy.defaults(),
                new OffPlanHints.GangSide("prod/job", 2, 0, null, null, null));

        PlacementHint h = r.hint();
        assertThat(h).as(r.why()).isNotNull();
        assertThat(h.gpus()).allMatch(g -> g.distance() == PcieDistance.SYS && g.hca().equals("mlx5_0"));
        assertThat(h.nccl().netGdrLevel()).isEqualTo("SYS");
        assertThat(h.railChoice().source()).isEqualTo("node-best");
        assertThat(h.railChoice().reason()).isEqualTo("the node's best pairing: no rail set known for the gang (no "
                + "plan for this pod, no aligned bound member of its shape); no pairing at or under PXB on gpu-a1, so "
                + "farther GPU–HCA pairs are described");
    }

    @Test
    void aNodeWithoutTopologyGivesNoHint() {
        ClusterSnapshot snap = PlacementHintsTest.cluster(Set.of());
        var r = OffPlanHints.hint(ENGINE, snap, "gpu-zz", PlacementHintsTest.pod(ALL_LANS, 4),
                PlacementPolicy.defaults(), new OffPlanHints.GangSide("prod/job", 2, 0, "gpu-a1", RAILS_01, null));
        assertThat(r.hint()).isNull();
        assertThat(r.why()).isEqualTo("node gpu-zz is unknown");
    }

    @Test
    void railChoiceIsLeftOutOfTheJsonWhenNullAndRoundTripsWhenSet() throws Exception {
        ObjectMapper json = new ObjectMapper();
        PlacementHint plain = hint(List.of(0, 1), null);
        assertThat(json.writeValueAsString(plain)).doesNotContain("railChoice");

        PlacementHint off = hint(List.of(0, 1), new PlacementHint.RailChoice("node-best", "gpu-b1", null, "why"));
        String text = json.writeValueAsString(off);
        // null members of railChoice are left out too
        assertThat(text).contains("\"railChoice\":{\"source\":\"node-best\",\"plannedNode\":\"gpu-b1\","
                + "\"reason\":\"why\"}");
        assertThat(json.readValue(text, PlacementHint.class)).isEqualTo(off);
        // and a reader of the hint (railyard env) parses it as a version-1 hint
        assertThat(HintFile.fromPlacementJson(text, "test")).isInstanceOfSatisfying(HintFile.Found.class,
                f -> assertThat(f.hint().railChoice().source()).isEqualTo("node-best"));
    }

    private static PlacementHint hint(List<Integer> rails, PlacementHint.RailChoice choice) {
        List<PlacementHint.GpuHint> gpus = new ArrayList<>();
        for (int i = 0; i < rails.size(); i++) {
            gpus.add(new PlacementHint.GpuHint(i, null, null, "mlx5_" + rails.get(i), 1, null, rails.get(i),
                    PcieDistance.PIX, null, null));
        }
        return new PlacementHint(1, "n", "prod/job", 2, 0, List.of(), gpus,
                new PlacementHint.NcclSettings(null, null, null, null, null), List.of(), choice);
    }
}
