package dev.railyard.topology.discovery;

import dev.railyard.api.topology.PcieDistance;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PcieDistanceClassifierTest {
    private static PcieDistance classify(PciePath a, PciePath b) {
        PcieDistance forward = PcieDistanceClassifier.classify(a, b);
        assertThat(PcieDistanceClassifier.classify(b, a)).as("symmetric").isEqualTo(forward);
        return forward;
    }

    private static PciePath path(String hostBridge, Integer numa, String... bridges) {
        return new PciePath(hostBridge, List.of(bridges), numa);
    }

    @Test
    void sameSwitchIsPix() {
        // docs/formats/node-topology.md §3 layout: root port 17:00.0, switch upstream port 18:00.0; GPU and NIC on two
        // of its downstream ports cross that one switch ("at most a single PCIe bridge").
        assertThat(classify(path("pci0000:17", 0, "0000:17:00.0", "0000:18:00.0"),
                path("pci0000:17", 0, "0000:17:00.0", "0000:18:00.0"))).isEqualTo(PcieDistance.PIX);
    }

    @Test
    void twoFunctionsOnOneRootPortArePix() {
        // case-07: the two ports of one ConnectX-7 (21:00.0 and 21:00.1) on root port 20:03.1 print PIX.
        assertThat(classify(path("pci0000:20", 0, "0000:20:03.1"), path("pci0000:20", 0, "0000:20:03.1")))
                .isEqualTo(PcieDistance.PIX);
    }

    @Test
    void nestedSwitchesArePxb() {
        // DGX A100 layout: NIC on the upper switch, GPU below a second switch: two bridges crossed.
        assertThat(classify(path("pci0000:00", 0, "0000:00:01.0", "0000:07:00.0"),
                path("pci0000:00", 0, "0000:00:01.0", "0000:07:00.0", "0000:09:00.0"))).isEqualTo(PcieDistance.PXB);
        // Two sibling switches below one upper switch: three bridges crossed.
        assertThat(classify(path("pci0000:00", 0, "0000:00:01.0", "0000:07:00.0", "0000:09:00.0"),
                path("pci0000:00", 0, "0000:00:01.0", "0000:07:00.0", "0000:0d:00.0"))).isEqualTo(PcieDistance.PXB);
    }

    @Test
    void differentRootPortsOfOneHostBridgeArePhb() {
        // case-11: NIC and GPU2 behind the same host bridge, different root ports.
        assertThat(classify(path("pci0000:80", 1, "0000:80:01.0"), path("pci0000:80", 1, "0000:80:03.0")))
                .isEqualTo(PcieDistance.PHB);
        // A device right on the root bus (integrated) and one below a root port of that host bridge.
        assertThat(classify(path("pci0000:00", 0), path("pci0000:00", 0, "0000:00:01.0")))
                .isEqualTo(PcieDistance.PHB);
    }

    @Test
    void differentHostBridgesAreNodeOnOneNumaNodeAndSysAcross() {
        // case-01: GPU0 to NIC1 is NODE (both NUMA 0), GPU0 to NIC4 is SYS (NUMA 0 vs 1).
        PciePath gpu0 = path("pci0000:15", 0, "0000:15:01.0", "0000:16:00.0");
        assertThat(classify(gpu0, path("pci0000:27", 0, "0000:27:01.0", "0000:28:00.0")))
                .isEqualTo(PcieDistance.NODE);
        assertThat(classify(gpu0, path("pci0000:97", 1, "0000:97:01.0", "0000:98:00.0")))
                .isEqualTo(PcieDistance.SYS);
    }

    @Test
    void unknownNumaAcrossHostBridgesIsSys() {
        // docs/formats/node-topology.md §4 step 5: different NUMA *or unknown* is SYS; case-05's odd GPUs show it.
        assertThat(classify(path("pci0000:15", 0, "0000:15:01.0"), path("pci0000:27", null, "0000:27:01.0")))
                .isEqualTo(PcieDistance.SYS);
        assertThat(classify(path("pci0000:15", null), path("pci0000:27", null))).isEqualTo(PcieDistance.SYS);
        // ...but under one switch NUMA does not matter.
        assertThat(classify(path("pci0000:15", null, "0000:15:01.0", "0000:16:00.0"),
                path("pci0000:15", 0, "0000:15:01.0", "0000:16:00.0"))).isEqualTo(PcieDistance.PIX);
    }

    @Test
    void parentIsTheNearestBridgeOrTheHostBridge() {
        assertThat(path("pci0000:15", 0, "0000:15:01.0", "0000:16:00.0").parent()).isEqualTo("0000:16:00.0");
        assertThat(path("pci0000:15", 0).parent()).isEqualTo("pci0000:15");
    }

    @Test
    void busIdsNormalizeAndOrderNumerically() {
        assertThat(PciBusId.parse("00000000:1A:00.0")).map(Object::toString).contains("0000:1a:00.0");
        assertThat(PciBusId.parse("1a:00.1")).map(Object::toString).contains("0000:1a:00.1");
        assertThat(PciBusId.parse("10000:00:02.0")).map(Object::toString).contains("10000:00:02.0");
        assertThat(PciBusId.parse("0000:1a:20.0")).isEmpty();
        assertThat(PciBusId.parse("pci0000:17")).isEmpty();
        assertThat(PciBusId.parse("0000:9a:00.0").orElseThrow())
                .isLessThan(PciBusId.parse("0000:ab:00.0").orElseThrow())
                .isLessThan(PciBusId.parse("0001:00:00.0").orElseThrow());
    }

    @Test
    void hcaNamesOrderByNumber() {
        List<String> names = new java.util.ArrayList<>(List.of("mlx5_10", "mlx5_bond_0", "mlx5_2", "mlx5_1",
                "ibp12s0", "mlx4_0"));
        names.sort(HcaNameOrder.INSTANCE);
        assertThat(names).containsExactly("ibp12s0", "mlx4_0", "mlx5_1", "mlx5_2", "mlx5_10", "mlx5_bond_0");
    }
}
