package dev.railyard.agent;

import dev.railyard.topology.InputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NvidiaSmiQueryParserTest {
    @TempDir
    Path dir;

    // Layout of nvidia-smi -q -x (nvsmi_device_v12.dtd): one <gpu id=...> per GPU, NVML bus id form with an
    // 8-digit domain in upper case; trimmed to the elements the parser reads plus a few it must ignore.
    private static final String TWO_GPUS = """
            <?xml version="1.0" ?>
            <!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">
            <nvidia_smi_log>
            \t<driver_version>570.86.15</driver_version>
            \t<gpu id="00000000:1B:00.0">
            \t\t<product_name>NVIDIA H100 80GB HBM3</product_name>
            \t\t<uuid>GPU-0b3c7f5e-1111-2222-3333-444455556666</uuid>
            \t\t<minor_number>1</minor_number>
            \t\t<pci><pci_bus>1B</pci_bus><pci_bus_id>00000000:1B:00.0</pci_bus_id></pci>
            \t\t<fabric><state>Completed</state></fabric>
            \t</gpu>
            \t<gpu id="00000000:43:00.0">
            \t\t<product_name>NVIDIA H100 80GB HBM3</product_name>
            \t\t<uuid>GPU-9f00aa11-1111-2222-3333-444455556666</uuid>
            \t\t<minor_number>N/A</minor_number>
            \t</gpu>
            </nvidia_smi_log>
            """;

    @Test
    void readsUuidAndBusIdInNvmlOrderWithoutLoadingTheDtd() {
        List<NvidiaSmiGpu> gpus = NvidiaSmiQueryParser.parse(TWO_GPUS, "q.xml");
        assertThat(gpus).containsExactly(
                new NvidiaSmiGpu(0, "GPU-0b3c7f5e-1111-2222-3333-444455556666", "0000:1b:00.0", 1,
                        "NVIDIA H100 80GB HBM3"),
                // no <pci> element: the id attribute gives the bus id; minor number N/A is unknown
                new NvidiaSmiGpu(1, "GPU-9f00aa11-1111-2222-3333-444455556666", "0000:43:00.0", null,
                        "NVIDIA H100 80GB HBM3"));
    }

    @Test
    void malformedXmlNamesLineAndColumn() {
        String broken = "<nvidia_smi_log>\n<gpu id=\"00000000:1B:00.0\">\n<uuid>x</gpu>\n</nvidia_smi_log>";
        assertThatThrownBy(() -> NvidiaSmiQueryParser.parse(broken, "q.xml"))
                .isInstanceOf(InputException.class)
                .hasMessageStartingWith("q.xml: line 3, column ");
    }

    @Test
    void wrongRootIsRefused() {
        assertThatThrownBy(() -> NvidiaSmiQueryParser.parse("<xpu_smi_log/>", "q.xml"))
                .isInstanceOf(InputException.class)
                .hasMessage("q.xml: root element is <xpu_smi_log>, expected <nvidia_smi_log> (output of nvidia-smi -q -x)");
    }

    @Test
    void gpuWithoutBusIdIsRefusedByPosition() {
        assertThatThrownBy(() -> NvidiaSmiQueryParser.parse("<nvidia_smi_log><gpu><uuid>GPU-1</uuid></gpu>"
                + "</nvidia_smi_log>", "q.xml"))
                .isInstanceOf(InputException.class)
                .hasMessageContaining("<gpu> number 0 has no usable PCI bus id");
    }

    @Test
    void absentBinaryIsSkipped() {
        NvidiaSmiProbe probe = new NvidiaSmiProbe(dir.resolve("no-such-nvidia-smi").toString(), Duration.ofSeconds(5));
        assertThat(probe.query()).isEmpty();
        assertThat(new NvidiaSmiProbe(null, Duration.ofSeconds(5)).query()).isEmpty();
    }

    @Test
    void probeRunsTheBinaryAndReadsNvlinksFromTopoM() throws Exception {
        String topo = """
                \tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity
                GPU0\t X \tNV12\t0-15\t0
                GPU1\tNV12\t X \t0-15\t0
                """;
        Path script = FakeNvidiaSmi.write(dir, List.of("0000:1b:00.0", "0000:43:00.0"), topo);
        NvidiaSmiInventory inventory = new NvidiaSmiProbe(script.toString(), Duration.ofSeconds(10)).query()
                .orElseThrow();
        assertThat(inventory.gpus()).extracting(NvidiaSmiGpu::pciBusId).containsExactly("0000:1b:00.0",
                "0000:43:00.0");
        assertThat(inventory.gpus().get(1).uuid()).isEqualTo(FakeNvidiaSmi.uuid(1));
        assertThat(inventory.nvlinks().get(0)).extracting(l -> l.peer() + ":" + l.links()).containsExactly("1:12");
    }

    @Test
    void failingTopoOnlyLosesNvlinks() throws Exception {
        // case-43: topo -m exits 255 on a host with a SoftiWARP device; -q -x still works.
        Path script = FakeNvidiaSmi.write(dir, List.of("0000:1b:00.0"), null);
        NvidiaSmiInventory inventory = new NvidiaSmiProbe(script.toString(), Duration.ofSeconds(10)).query()
                .orElseThrow();
        assertThat(inventory.gpus()).hasSize(1);
        assertThat(inventory.nvlinks()).isEmpty();
    }

    @Test
    void failingQueryGivesNothing() throws Exception {
        Path script = dir.resolve("nvidia-smi");
        Files.writeString(script, "#!/bin/sh\necho \"NVIDIA-SMI has failed because it could not communicate with the "
                + "NVIDIA driver\" >&2\nexit 9\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThat(new NvidiaSmiProbe(script.toString(), Duration.ofSeconds(10)).query()).isEmpty();
    }
}
