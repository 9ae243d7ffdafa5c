package dev.railyard.agent;

import dev.railyard.topology.discovery.PciBusId;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Locale;

/**
 * An {@code nvidia-smi} stand-in: a shell script answering {@code -q -x} with a document in NVIDIA's layout (bus ids
 * in NVML's 8-digit-domain upper-case form, as real output prints them) and {@code topo -m} with a fixture dump.
 * Public (in the agent module's test jar) so that end-to-end tests can give {@code railyard agent --nvidia-smi} the same
 * stand-in.
 */
public final class FakeNvidiaSmi {
    private FakeNvidiaSmi() {
    }

    /** UUID the fake reports for the GPU at position {@code i}. */
    public static String uuid(int i) {
        return String.format(Locale.ROOT, "GPU-5a1c%04x-8d2e-4b1f-9a3c-%012x", i, 0xabc000 + i);
    }

    /**
     * @param dir        where to write the script
     * @param gpuBusIds  GPU bus ids in NVML index order
     * @param topoMatrix text {@code topo -m} prints, or null to exit 255 as on hosts with a SoftiWARP device
     * @return the script's path
     */
    public static Path write(Path dir, List<String> gpuBusIds, String topoMatrix) throws IOException {
        StringBuilder xml = new StringBuilder("""
                <?xml version="1.0" ?>
                <!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">
                <nvidia_smi_log>
                \t<timestamp>Mon Nov 30 07:00:00 2026</timestamp>
                \t<driver_version>570.86.15</driver_version>
                \t<attached_gpus>%d</attached_gpus>
                """.formatted(gpuBusIds.size()));
        for (int i = 0; i < gpuBusIds.size(); i++) {
            PciBusId bus = PciBusId.parse(gpuBusIds.get(i)).orElseThrow();
            String nvml = String.format(Locale.ROOT, "%08X:%02X:%02X.%X", bus.domain(), bus.bus(), bus.device(),
                    bus.function());
            xml.append("""
                    \t<gpu id="%s">
                    \t\t<product_name>NVIDIA H100 80GB HBM3</product_name>
                    \t\t<uuid>%s</uuid>
                    \t\t<minor_number>%d</minor_number>
                    \t\t<pci>
                    \t\t\t<pci_bus>%02X</pci_bus>
                    \t\t\t<pci_bus_id>%s</pci_bus_id>
                    \t\t</pci>
                    \t</gpu>
                    """.formatted(nvml, uuid(i), i, bus.bus(), nvml));
        }
        xml.append("</nvidia_smi_log>\n");
        Files.writeString(dir.resolve("q.xml"), xml);
        String topo = topoMatrix == null
                ? "echo 'Failed to run topology matrix' >&2; exit 255"
                : "cat '" + dir.resolve("topo.txt") + "'";
        if (topoMatrix != null) {
            Files.writeString(dir.resolve("topo.txt"), topoMatrix);
        }
        Path script = dir.resolve("nvidia-smi");
        Files.writeString(script, """
                #!/bin/sh
                case "$*" in
                  "-q -x") cat '%s' ;;
                  "topo -m") %s ;;
                  *) echo "unexpected arguments: $*" >&2; exit 2 ;;
                esac
                """.formatted(dir.resolve("q.xml"), topo));
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }
}
