package dev.railyard.topology.discovery.nccl;

import dev.railyard.api.topology.DiscoverySource;
import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaDistance;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.HcaPort;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.NumaNode;
import dev.railyard.api.topology.NvLink;
import dev.railyard.api.topology.PcieBridge;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.topology.InputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NcclTopoXmlParserTest {
    private final NcclTopoXmlParser parser = new NcclTopoXmlParser();

    @TempDir
    Path dir;

    static Path resource(String name) {
        try {
            return Path.of(NcclTopoXmlParserTest.class.getResource("/nccl/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return distance rows, one string per GPU over the given HCA columns */
    static List<String> rows(NodeTopologySpec spec, List<String> hcas) {
        Map<String, PcieDistance> byPair = spec.distances().stream()
                .collect(Collectors.toMap(d -> d.gpu() + "/" + d.hca(), GpuHcaDistance::distance));
        return spec.gpus().stream().map(g -> hcas.stream().map(h -> String.valueOf(byPair.get(g.index() + "/" + h)))
                .collect(Collectors.joining(" "))).toList();
    }

    private Path write(String xml) throws Exception {
        Path file = dir.resolve("topo.xml");
        Files.writeString(file, xml);
        return file;
    }

    @Test
    void dgxLikeDumpGivesCase01Classes() {
        NodeTopologySpec spec = parser.parse(resource("dgx-h100-like-8gpu-8nic.xml"));

        assertThat(spec.source()).isEqualTo(DiscoverySource.NCCL_XML);
        assertThat(spec.complete()).isTrue();
        assertThat(spec.warnings()).isEmpty();
        // Same machine shape as case-01 (GPU i PIX to mlx5_i, NODE within a socket, SYS across): its matrix rows.
        assertThat(rows(spec, IntStream.range(0, 8).mapToObj(i -> "mlx5_" + i).toList())).containsExactly(
                "PIX NODE NODE NODE SYS SYS SYS SYS",
                "NODE PIX NODE NODE SYS SYS SYS SYS",
                "NODE NODE PIX NODE SYS SYS SYS SYS",
                "NODE NODE NODE PIX SYS SYS SYS SYS",
                "SYS SYS SYS SYS PIX NODE NODE NODE",
                "SYS SYS SYS SYS NODE PIX NODE NODE",
                "SYS SYS SYS SYS NODE NODE PIX NODE",
                "SYS SYS SYS SYS NODE NODE NODE PIX");
    }

    @Test
    void dgxLikeDumpReadsDevicesNvlinksNumaAndBridges() {
        NodeTopologySpec spec = parser.parse(resource("dgx-h100-like-8gpu-8nic.xml"));

        Gpu gpu0 = spec.gpus().getFirst();
        assertThat(gpu0.pciBusId()).isEqualTo("0000:18:00.0");
        assertThat(gpu0.numaNode()).isZero();
        assertThat(gpu0.pcieParent()).isEqualTo("0000:16:00.0");
        // 5+4+4+5 links to NVSwitches per GPU: NV18 to each of the 7 others, as case-01 prints.
        assertThat(gpu0.nvlinks()).hasSize(7).allMatch(l -> l.links() == 18);
        assertThat(gpu0.nvlinks().getFirst()).isEqualTo(new NvLink(1, 18));
        assertThat(spec.gpus()).extracting(Gpu::numaNode).containsExactly(0, 0, 0, 0, 1, 1, 1, 1);

        Hca mlx0 = spec.hcas().getFirst();
        assertThat(mlx0).isEqualTo(new Hca("mlx5_0", "0000:19:00.0", 0,
                List.of(new HcaPort(1, null, null, 400, List.of(), null)), null, "0000:16:00.0"));
        // The affinity masks written for case-01's CPU lists convert back to them.
        assertThat(spec.numaNodes()).containsExactly(new NumaNode(0, null, "0-47,96-143"),
                new NumaNode(1, null, "48-95,144-191"));
        // One host bridge per <cpu>, one switch per <pci> with <pci> children; NVSwitch endpoints are not bridges.
        assertThat(spec.pcieBridges()).hasSize(10);
        assertThat(spec.pcieBridges().getFirst()).isEqualTo(new PcieBridge("cpu0", PcieBridge.Kind.HOST_BRIDGE,
                null, 0));
        assertThat(spec.pcieBridges()).contains(new PcieBridge("0000:16:00.0", PcieBridge.Kind.SWITCH, "cpu0", 0));
    }

    @Test
    void twoGpusPerNicDumpGivesPxbToTheSharedNic() {
        NodeTopologySpec spec = parser.parse(resource("a100-like-2gpu-per-nic.xml"));

        assertThat(spec.complete()).isTrue();
        // By hand from the file: GPUs 2k, 2k+1 sit on the lower switch under mlx5_k's upper switch: two switches
        // crossed = PXB. Other groups of the same <cpu>, and mlx5_4 directly under <cpu numaid="0">: NODE.
        // Other <cpu>: SYS.
        assertThat(rows(spec, List.of("mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4"))).containsExactly(
                "PXB NODE SYS SYS NODE",
                "PXB NODE SYS SYS NODE",
                "NODE PXB SYS SYS NODE",
                "NODE PXB SYS SYS NODE",
                "SYS SYS PXB NODE SYS",
                "SYS SYS PXB NODE SYS",
                "SYS SYS NODE PXB SYS",
                "SYS SYS NODE PXB SYS");
        assertThat(spec.gpus()).extracting(Gpu::pciBusId).containsExactly("0000:0a:00.0", "0000:0c:00.0",
                "0000:4a:00.0", "0000:4c:00.0", "0000:8a:00.0", "0000:8c:00.0", "0000:ca:00.0", "0000:cc:00.0");
        // 6 NVSwitches x 2 links = NV12, as nvidia-smi prints on a DGX A100.
        assertThat(spec.gpus().getFirst().nvlinks()).hasSize(7).allMatch(l -> l.links() == 12);
        assertThat(spec.gpus().getFirst().pcieParent()).isEqualTo("0000:09:00.0");
        assertThat(spec.hcas()).extracting(Hca::name).containsExactly("mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3",
                "mlx5_4");
        assertThat(spec.hcas().get(4).pcieParent()).isEqualTo("cpu0");
        assertThat(spec.hcas().getFirst().ports()).extracting(HcaPort::rateGbps).containsExactly(200);
        assertThat(spec.numaNodes()).containsExactly(new NumaNode(0, null, "0-31"), new NumaNode(1, null, "32-63"));
        assertThat(spec.pcieBridges()).filteredOn(b -> b.kind() == PcieBridge.Kind.SWITCH).hasSize(8);
    }

    @Test
    void directGpuNvlinksCountPerPeer() throws Exception {
        // case-03's four A100s are NV4 to each other; here GPU0 and GPU1 with 4 direct links, GPU1 also to GPU0's
        // bus id twice (two elements), NCCL style: one element per peer and count.
        NodeTopologySpec spec = parser.parse(write("""
                <system version="1">
                  <cpu numaid="0" affinity="0000ffff">
                    <pci busid="0000:01:00.0" class="0x030200">
                      <gpu dev="0" sm="80"><nvlink target="0000:02:00.0" count="4" tclass="0x030200"/></gpu>
                    </pci>
                    <pci busid="0000:02:00.0" class="0x030200">
                      <gpu dev="1" sm="80"><nvlink target="0000:01:00.0" count="4" tclass="0x030200"/></gpu>
                    </pci>
                  </cpu>
                </system>
                """));
        assertThat(spec.gpus().get(0).nvlinks()).containsExactly(new NvLink(1, 4));
        assertThat(spec.gpus().get(1).nvlinks()).containsExactly(new NvLink(0, 4));
        assertThat(spec.hcas()).isEmpty();
        assertThat(spec.numaNodes()).containsExactly(new NumaNode(0, null, "0-15"));
    }

    @Test
    void dualPortNetsMergeIntoOneHcaAndVirtualNicIsNode() throws Exception {
        NodeTopologySpec spec = parser.parse(write("""
                <system version="1">
                  <cpu numaid="0">
                    <pci busid="0000:1a:00.0" class="0x060400">
                      <pci busid="0000:1b:00.0" class="0x030200"><gpu dev="0"/></pci>
                      <pci busid="0000:1c:00.0" class="0x020000">
                        <nic>
                          <net name="mlx4_0" dev="0" speed="100000" port="1"/>
                          <net name="mlx4_0" dev="1" speed="100000" port="2"/>
                        </nic>
                      </pci>
                    </pci>
                    <nic><net name="mlx5_bond_0" dev="2" speed="200000" port="1"/></nic>
                  </cpu>
                  <cpu numaid="1"><nic><net name="mlx5_9" dev="3" speed="200000" port="1"/></nic></cpu>
                </system>
                """));
        assertThat(spec.hcas()).extracting(Hca::name).containsExactly("mlx4_0", "mlx5_9", "mlx5_bond_0");
        assertThat(spec.hcas().getFirst().ports()).extracting(HcaPort::number).containsExactly(1, 2);
        assertThat(spec.hcas().get(2).pciBusId()).isNull();
        assertThat(rows(spec, List.of("mlx4_0", "mlx5_bond_0", "mlx5_9"))).containsExactly("PIX NODE SYS");
    }

    @Test
    void badBusIdIsAWarningWithLineAndColumn() throws Exception {
        Path file = write("""
                <system version="1">
                  <cpu numaid="0">
                    <pci busid="0000:18:00.0" class="0x030200"><gpu dev="0"/></pci>
                    <pci busid="zz:top" class="0x020000"><nic><net name="mlx5_0" port="1"/></nic></pci>
                  </cpu>
                </system>
                """);
        NodeTopologySpec spec = parser.parse(file);

        assertThat(spec.complete()).isFalse();
        // SAX reports the position at the end of the start tag: line 4, column 42.
        assertThat(spec.warnings()).containsExactly(file + ":4:42: <pci> busid \"zz:top\" is not a PCI bus id; "
                + "element and its children skipped");
        assertThat(spec.gpus()).hasSize(1);
        assertThat(spec.hcas()).isEmpty();
    }

    @Test
    void malformedXmlIsAnInputErrorWithLineAndColumn() throws Exception {
        Path file = write("<system version=\"1\">\n  <cpu numaid=\"0\">\n    <pci busid=\"0000:18:00.0\">\n"
                + "  </cpu>\n</system>\n");
        assertThatThrownBy(() -> parser.parse(file)).isInstanceOf(InputException.class)
                .hasMessageStartingWith(file + ":4:5: not NCCL topology XML: ");
    }

    @Test
    void noiseIsAnInputErrorAtLineOneColumnOne() throws Exception {
        Path file = write("GPU0\tX\tNV18\n");
        assertThatThrownBy(() -> parser.parse(file)).isInstanceOf(InputException.class)
                .hasMessageStartingWith(file + ":1:1: not NCCL topology XML");
    }

    @Test
    void doctypeAndExternalEntitiesAreRefused() throws Exception {
        Path secret = dir.resolve("secret.txt");
        Files.writeString(secret, "s3cr3t");
        Path file = write("<?xml version=\"1.0\"?>\n<!DOCTYPE system [<!ENTITY x SYSTEM \"" + secret.toUri()
                + "\">]>\n<system version=\"1\"><cpu numaid=\"0\"><pci busid=\"0000:01:00.0\"><gpu dev=\"0\"/>"
                + "<nic><net name=\"&x;\"/></nic></pci></cpu></system>\n");
        assertThatThrownBy(() -> parser.parse(file)).isInstanceOf(InputException.class)
                .hasMessageContaining(file + ":2:").hasMessageContaining("DOCTYPE")
                .hasMessageNotContaining("s3cr3t");
    }

    @Test
    void wrongRootIsAnInputError() throws Exception {
        Path file = write("<graphs version=\"1\"><graph id=\"0\"/></graphs>");
        assertThatThrownBy(() -> parser.parse(file)).isInstanceOf(InputException.class)
                .hasMessage(file + ":1:21: root element is <graphs>, expected <system> (NCCL_TOPO_DUMP_FILE format)");
    }

    @Test
    void topoFileWithoutGpusIsAnInputError() throws Exception {
        // The NCCL_TOPO_FILE shape of aws-ofi-nccl's p4d file: cpu and pci only.
        Path file = write("<system version=\"1\"><cpu numaid=\"0\"><pci busid=\"ffff:ff:01.0\" class=\"0x060400\">"
                + "<pci busid=\"0000:10:1c.0\" class=\"0x030200\"/></pci></cpu></system>");
        assertThatThrownBy(() -> parser.parse(file)).isInstanceOf(InputException.class)
                .hasMessageStartingWith(file + ": no <gpu> element");
    }

    @Test
    void emptyAndMissingFilesAreInputErrors() throws Exception {
        Path empty = write("");
        assertThatThrownBy(() -> parser.parse(empty)).isInstanceOf(InputException.class)
                .hasMessageStartingWith(empty + ": empty file");
        Path missing = dir.resolve("none.xml");
        assertThatThrownBy(() -> parser.parse(missing)).isInstanceOf(InputException.class)
                .hasMessage(missing + ": no such file");
    }

    @Test
    void cpumaskConvertsToCpuList() {
        // Kernel cpumap: 32-bit words, most significant first.
        assertThat(NcclTopoXmlParser.cpuList("0000ffff,00000000")).isEqualTo("32-47");
        assertThat(NcclTopoXmlParser.cpuList("ffffff00,0000ffff,ff000000")).isEqualTo("24-47,72-95");
        assertThat(NcclTopoXmlParser.cpuList("00000005")).isEqualTo("0,2");
        assertThat(NcclTopoXmlParser.cpuList("xyz")).isNull();
        assertThat(NcclTopoXmlParser.cpuList("00000000")).isNull();
    }

    @Test
    void gpusHiddenByDamageAreNotCalledAMissingDump() throws Exception {
        // A real dump (one GPU, one NIC under a switch) whose every <pci busid> was garbled: the GPU is in the file
        // but inside skipped elements, so "not an NCCL_TOPO_DUMP_FILE dump" would send the user the wrong way.
        // Column 34: the XML locator reports the end of the start tag <pci busid="zz" class="0x060400"> (33 chars).
        Path file = write("<system version=\"1\">\n<cpu numaid=\"0\">\n<pci busid=\"zz\" class=\"0x060400\">\n"
                + "<pci busid=\"zz\" class=\"0x030200\"><gpu dev=\"0\" rank=\"0\" gdr=\"1\"/></pci>\n"
                + "</pci>\n</cpu>\n</system>\n");
        assertThatThrownBy(() -> parser.parse(file)).isInstanceOf(InputException.class)
                .hasMessage(file + ": no <gpu> element could be read (1 damaged element, first: " + file
                        + ":3:34: <pci> busid \"zz\" is not a PCI bus id; element and its children skipped)");
    }
}
