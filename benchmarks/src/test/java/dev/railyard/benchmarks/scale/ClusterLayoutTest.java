package dev.railyard.benchmarks.scale;

import dev.railyard.e2e.FixtureMachines;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The layout's promises (its Javadoc): shares of occupancy, gangs on full nodes, GPUs never held twice. */
class ClusterLayoutTest {

    @Test
    void occupancySharesAreFortyFifteenFifteenThirty() {
        ClusterLayout layout = new ClusterLayout(20_000, 18, 64, 1);
        Map<ClusterLayout.Occupancy, Integer> count = new HashMap<>();
        for (ClusterLayout.Occupancy o : layout.occupancy()) {
            count.merge(o, 1, Integer::sum);
        }
        // 20,000 draws: the standard error of a share is at most sqrt(0.25/20000) = 0.35 %, so ±1.5 % is > 4 sigma
        assertThat(count.get(ClusterLayout.Occupancy.FULL) / 20_000.0).isBetween(0.385, 0.415);
        assertThat(count.get(ClusterLayout.Occupancy.TWO_HALVES) / 20_000.0).isBetween(0.135, 0.165);
        assertThat(count.get(ClusterLayout.Occupancy.ONE_HALF) / 20_000.0).isBetween(0.135, 0.165);
        assertThat(count.get(ClusterLayout.Occupancy.FREE) / 20_000.0).isBetween(0.285, 0.315);
    }

    @Test
    void everyNodesGpusMatchItsOccupancyAndNoGpuIsHeldTwice() {
        ClusterLayout layout = new ClusterLayout(1_000, 18, 64, 7);
        ClusterLayout.Occupancy[] occ = layout.occupancy();
        int[][] held = new int[1_000][8];
        for (ClusterLayout.BoundGang g : layout.boundGangs()) {
            assertThat(g.pods()).hasSizeBetween(1, 8);
            for (ClusterLayout.GpuPod p : g.pods()) {
                assertThat(p.gang()).isEqualTo(g.name());
                assertThat(p.gangSize()).isEqualTo(g.pods().size());
                for (int gpu : p.gpus()) {
                    held[p.node()][gpu]++;
                }
            }
        }
        for (int i = 0; i < 1_000; i++) {
            int expected = switch (occ[i]) {
                case FREE -> 0;
                case ONE_HALF -> 4;
                case TWO_HALVES, FULL -> 8;
            };
            assertThat(Arrays.stream(held[i]).sum()).as("GPUs held on node %d (%s)", i, occ[i]).isEqualTo(expected);
            assertThat(Arrays.stream(held[i]).max().orElse(0)).isLessThanOrEqualTo(1);
        }
    }

    @Test
    void fabricAndMachinesFollowTheScalableUnit() {
        // node 33 is the second node of scalable unit 1; unit 8 is the first of spine 1; units 1, 2, 3 are PCIe,
        // DGX, HGX
        assertThat(ClusterLayout.leaf(33)).isEqualTo("su-0001");
        assertThat(ClusterLayout.spine(8 * 32)).isEqualTo("spine-001");
        assertThat(ClusterLayout.machine(33)).isEqualTo(FixtureMachines.PCIE_8GPU);
        assertThat(ClusterLayout.machine(64)).isEqualTo(ClusterLayout.DGX);
        assertThat(ClusterLayout.machine(96)).isEqualTo(FixtureMachines.HGX_4NIC);
        assertThat(ClusterLayout.nodeName(7)).isEqualTo("gpu-00007");
    }

    @Test
    void badSizesAreRefusedNamingTheOption() {
        assertThatThrownBy(() -> new ClusterLayout(0, 18, 64, 1)).hasMessageStartingWith("--nodes");
        assertThatThrownBy(() -> new ClusterLayout(100, 40, 64, 1)).hasMessageStartingWith("--pods-per-node");
        assertThatThrownBy(() -> new ClusterLayout(10, 18, 64, 1)).hasMessageStartingWith("--gang-size");
    }
}
