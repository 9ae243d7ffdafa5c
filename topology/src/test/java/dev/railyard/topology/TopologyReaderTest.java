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

    /** A named pipe with {@code bytes} written into it by another thread, as {@code cmd | ... /dev/stdin} gives. */
    private static Path pipe(Path dir, byte[] bytes) throws Exception {
        Path fifo = dir.resolve("fifo");
        org.junit.jupiter.api.Assumptions.assumeTrue(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0,
                "needs mkfifo");
        Thread writer = new Thread(() -> {
            try {
                Files.write(fifo, bytes);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        writer.setDaemon(true);
        writer.start();
        return fifo;
    }

    @Test
    void aPipeIsReadOnceAndAsTheSameFileWouldBe(@TempDir Path dir) throws Exception {
        // `nvidia-smi topo -m | railyard topology pair /dev/stdin` and `<(cmd)`: detecting the format read the
        // pipe's start, so the parser then found it empty ("/dev/stdin:1:1: empty file"). Case-06's stored copy is
        // cut inside row NIC7 (line 18 of the test copy, as FixturePairingTest has it), so the pairs and the warnings both have to come through.
        Path file = Path.of(getClass().getResource("/fixtures/case-06-pcie-8gpu-8nic-4per-switch-sriov.txt").toURI());
        NodeTopologySpec fromFile = new TopologyReader().read(file, TopologyFormat.AUTO);
        Path fifo = pipe(dir, Files.readAllBytes(file));

        java.util.Set<String> before = copies();
        NodeTopologySpec fromPipe = new TopologyReader().read(fifo, TopologyFormat.AUTO);

        assertThat(fromPipe.pairs()).isEqualTo(fromFile.pairs()).hasSize(8);
        assertThat(fromPipe.complete()).isFalse();
        assertThat(fromPipe.warnings()).isEqualTo(fromFile.warnings().stream()
                .map(w -> w.replace(file.toString(), fifo.toString())).toList());
        assertThat(fromPipe.warnings()).anyMatch(w -> w.startsWith(fifo + ":18:53: row NIC7 ends"));
        assertThat(copies()).as("temporary copies left behind").isEqualTo(before);
    }

    private static java.util.Set<String> copies() throws IOException {
        try (var files = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("railyard-topology-"))
                    .collect(java.util.stream.Collectors.toSet());
        }
    }

    @Test
    void aPipeThatIsNotADumpIsRefusedNamingThePipe(@TempDir Path dir) throws Exception {
        Path fifo = pipe(dir, new byte[0]);
        assertThatThrownBy(() -> new TopologyReader().read(fifo, TopologyFormat.AUTO))
                .isInstanceOf(InputException.class)
                .hasMessage(fifo + ":1:1: empty file, no nvidia-smi topo -m matrix");
    }
}
