package dev.railyard.topology;

import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.topology.discovery.TopologyFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TopologyReaderTest {

    @Test
    void detectsTheFormatFromThePath(@TempDir Path dir) throws IOException {
        Path sys = Files.createDirectory(dir.resolve("snapshot"));
        Path tgz = Files.writeString(dir.resolve("node-a.tar.gz"), "not read");
        Path xml = Files.writeString(dir.resolve("topo.xml"),
                "\uFEFF  <?xml version=\"1.0\"?>\n<system version=\"1\">");
        Path bare = Files.writeString(dir.resolve("dump"), "<system version=\"1\">\n</system>\n");
        Path text = Files.writeString(dir.resolve("topo.txt"), "\tGPU0\tNIC0\n");

        assertThat(TopologyFormat.detect(sys)).isEqualTo(TopologyFormat.SYSFS);
        assertThat(TopologyFormat.detect(tgz)).isEqualTo(TopologyFormat.SYSFS);
        assertThat(TopologyFormat.detect(xml)).isEqualTo(TopologyFormat.NCCL_XML);
        assertThat(TopologyFormat.detect(bare)).isEqualTo(TopologyFormat.NCCL_XML);
        assertThat(TopologyFormat.detect(text)).isEqualTo(TopologyFormat.NVIDIA_SMI);
        assertThatThrownBy(() -> TopologyFormat.detect(dir.resolve("nope"))).isInstanceOf(InputException.class)
                .hasMessage(dir.resolve("nope") + ": no such file or directory");
    }

    @Test
    void mapsCommandLineNames() {
        assertThat(TopologyFormat.fromCliName("nvidia-smi")).isEqualTo(TopologyFormat.NVIDIA_SMI);
        assertThat(TopologyFormat.fromCliName("NCCL-XML")).isEqualTo(TopologyFormat.NCCL_XML);
        // issue 17 made lspci -tv an input format; an unknown name still lists every accepted one
        assertThat(TopologyFormat.fromCliName("lspci")).isEqualTo(TopologyFormat.LSPCI);
        assertThatThrownBy(() -> TopologyFormat.fromCliName("dmesg")).isInstanceOf(InputException.class)
                .hasMessage("unknown topology format 'dmesg'; expected one of auto, nvidia-smi, sysfs, nccl-xml, "
                        + "lspci");
    }

    @Test
    void parsesAndPairsThroughTheRegisteredParser() throws Exception {
        Path file = Path.of(getClass().getResource("/fixtures/case-07-rtx6000ada-4gpu-4nic-node-sys-only.txt")
                .toURI());
        NodeTopologySpec node = new TopologyReader().read(file, TopologyFormat.NVIDIA_SMI);
        assertThat(node.pairs()).hasSize(4);

        TopologyReader withoutParsers = new TopologyReader(Map.of());
        assertThatThrownBy(() -> withoutParsers.read(file, TopologyFormat.AUTO)).isInstanceOf(InputException.class)
                .hasMessage(file + ": the nvidia-smi format is not supported by this build");
    }
}
