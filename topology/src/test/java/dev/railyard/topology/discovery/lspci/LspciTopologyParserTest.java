package dev.railyard.topology.discovery.lspci;

import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaDistance;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.PcieBridge;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.topology.InputException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@code lspci -t} reader on small drawings made by the rules of pciutils' {@code ls-tree.c}
 * (docs/formats/lspci-tree.md). The fixture-sized trees are in {@code HardwareFixturePairingTest}.
 */
class LspciTopologyParserTest {
    private final LspciTopologyParser parser = new LspciTopologyParser();

    /**
     * One root bus 3a; root port 01.0 -> switch upstream port 3b:00.0 -> downstream ports 3c:00.0 (GPU 3d:00.0) and
     * 3c:08.0 (switch 3e:00.0 -> 3f:00.0 -> dual-port NIC 40:00.0/.1); ids shown as with -tvnn.
     */
    private static final String NESTED = String.join("\n",
            "-[0000:3a]-+-00.0  Intel Corporation Device [8086:09a2]",
            "           \\-01.0-[3b-40]----00.0-[3c-40]--+-00.0-[3d]----00.0  NVIDIA Corporation Device [10de:2330]",
            "                                           \\-08.0-[3e-40]----00.0-[3f-40]----00.0-[40]--+-00.0  "
                    + "Mellanox Technologies MT2910 Family [ConnectX-7] [15b3:1021]",
            "                                                                                        \\-00.1  "
                    + "Mellanox Technologies MT2910 Family [ConnectX-7] [15b3:1021]",
            "0000:40:00.0 mlx5_0 (MT4129 - MCX755106AS-HEAT) ConnectX-7 fw 28.39.2048 port 1 (ACTIVE) ==> ib0 (Up)");

    @Test
    void nestedSwitchesGivePxbAndIbdev2netdevNamesTheHcas() {
        NodeTopologySpec spec = parser.parseText("nested.txt", NESTED);

        assertThat(spec.gpus()).extracting(Gpu::pciBusId).containsExactly("0000:3d:00.0");
        assertThat(spec.gpus().getFirst().model()).isEqualTo("Device");
        // function .0 is named by ibdev2netdev -v, .1 keeps its bus id
        assertThat(spec.hcas()).extracting(Hca::name).containsExactly("mlx5_0", "0000:40:00.1");
        assertThat(spec.hcas().getFirst().ports()).singleElement().satisfies(p -> assertThat(p.netdevs())
                .containsExactly("ib0"));
        // GPU units [rp 3a:01.0, usp 3b:00.0]; NIC units [rp, usp 3b:00.0, usp 3e:00.0]: 2 shared, 0 + 1 + 1 = 2
        // bridges crossed: PXB (a GPU below the upper switch, the NIC below a second one, as on a DGX A100)
        assertThat(spec.distances()).containsExactly(new GpuHcaDistance(0, "mlx5_0", PcieDistance.PXB),
                new GpuHcaDistance(0, "0000:40:00.1", PcieDistance.PXB));
        assertThat(spec.pcieBridges()).extracting(PcieBridge::id).containsExactly("pci0000:3a", "0000:3a:01.0",
                "0000:3b:00.0", "0000:3e:00.0");
        assertThat(spec.complete()).isTrue();
        assertThat(spec.warnings()).singleElement().asString().contains("1 HCA is named by PCI bus id");
    }

    @Test
    void aBranchInTheWrongColumnOrACutLineIsDamageNamedByLineAndColumn() {
        String text = String.join("\n",
                "-[0000:00]-+-01.0-[01]----00.0  NVIDIA Corporation GH100 [H100 SXM5 80GB]",
                "           +-02.0-[02]----00.0  Mellanox Technologies MT2910 Family [ConnectX-7]",
                "         \\-03.0-[03]----00.0  Mellanox Technologies MT2910 Family [ConnectX-7]",
                "           \\-04.0-[04");
        NodeTopologySpec spec = parser.parseText("bad.txt", text);

        assertThat(spec.hcas()).hasSize(1);
        assertThat(spec.complete()).isFalse();
        assertThat(spec.warnings()).anySatisfy(w -> assertThat(w).startsWith("bad.txt:3:10: branch in column 10 "
                + "has no bus above it"));
        assertThat(spec.warnings()).anySatisfy(w -> assertThat(w).startsWith("bad.txt:4:18: line cut short or "
                + "garbled after device 04.0"));
    }

    @Test
    void textWithoutATreeOrWithoutGpusAndNicsIsRefusedInOneLine() {
        assertThatThrownBy(() -> parser.parseText("notes.txt", "lspci: Unable to load libkmod resources\n"))
                .isInstanceOf(InputException.class)
                .hasMessage("notes.txt:1:1: no lspci -t bus tree (a line such as -[0000:00]-+-00.0 or "
                        + "-+-[0000:00]-+-00.0) in 1 line");
        assertThatThrownBy(() -> parser.parseText("usb.txt", "-[0000:00]-+-00.0  Intel Corporation Device 1234\n"
                + "           \\-14.0  Intel Corporation USB 3.0 xHCI Controller\n"))
                .isInstanceOf(InputException.class)
                .hasMessageStartingWith("usb.txt: the bus tree has neither an NVIDIA GPU nor a Mellanox/NVIDIA");
    }
}
