package dev.railyard.topology.graph;

import dev.railyard.api.topology.DiscoverySource;
import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaDistance;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.NumaNode;
import dev.railyard.api.topology.PcieBridge;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.topology.TopologyReader;
import dev.railyard.topology.discovery.TopologyFormat;
import org.jgrapht.Graph;
import org.jgrapht.graph.DefaultEdge;
import org.jgrapht.graph.builder.GraphTypeBuilder;
import org.jgrapht.nio.ImportException;
import org.jgrapht.nio.dot.DOTImporter;
import org.jgrapht.util.SupplierUtil;
import org.junit.jupiter.api.Test;

import java.io.StringReader;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NodeGraphTest {

    @Test
    void holdsGpusHcasNumaNodesAndWeightedEdgesOfCase01() throws URISyntaxException {
        NodeTopologySpec node = new TopologyReader().read(Path.of(Objects.requireNonNull(
                getClass().getResource("/fixtures/case-01-dgx-h100-8gpu-8nic-1to1.txt")).toURI()), TopologyFormat.AUTO);
        NodeGraph graph = NodeGraph.of(node);

        // 8 GPUs + 8 HCAs + NUMA 0 and 1
        assertThat(graph.graph().vertexSet()).hasSize(18);
        // 64 GPU-HCA paths + 28 NVLink pairs (8 choose 2) + 16 NUMA memberships
        assertThat(graph.graph().edgeSet()).hasSize(108);
        assertThat(graph.graph().edgeSet().stream().filter(e -> e.kind() == NodeGraph.LinkKind.NVLINK))
                .hasSize(28).allMatch(e -> e.nvlinks() == 18);
        // row GPU0: PIX to NIC0 (mlx5_0), SYS to NIC4 (mlx5_4); weights PIX 1, SYS 5
        assertThat(graph.distance(0, "mlx5_0")).isEqualTo(PcieDistance.PIX);
        assertThat(graph.distance(0, "mlx5_4")).isEqualTo(PcieDistance.SYS);
        assertThat(graph.distance(0, "mlx5_99")).isNull();
        NodeGraph.Link pix = graph.graph().getEdge(new NodeGraph.GpuVertex(0), new NodeGraph.HcaVertex("mlx5_0"));
        assertThat(graph.graph().getEdgeWeight(pix)).isEqualTo(1.0);
        NodeGraph.Link sys = graph.graph().getEdge(new NodeGraph.GpuVertex(0), new NodeGraph.HcaVertex("mlx5_4"));
        assertThat(graph.graph().getEdgeWeight(sys)).isEqualTo(5.0);

        String dot = graph.toDot();
        assertThat(dot).startsWith("strict graph node_topology {").contains("gpu0 [ label=\"GPU0\"")
                .contains("gpu0 -- hca_mlx5_0 [ label=\"PIX rail 0\" color=\"red\" penwidth=\"2\" ];")
                .contains("gpu0 -- hca_mlx5_4 [ label=\"SYS\" color=\"grey\" style=\"dotted\" ];");
    }

    /**
     * Parses DOT with JGraphT's importer, whose ANTLR grammar follows Graphviz's DOT language
     * (https://graphviz.org/doc/info/lang.html): a keyword such as {@code node} is not an ID.
     */
    static Graph<String, DefaultEdge> parseDot(String dot) {
        Graph<String, DefaultEdge> g = GraphTypeBuilder.undirected().allowingMultipleEdges(false)
                .allowingSelfLoops(false).vertexSupplier(SupplierUtil.createStringSupplier())
                .edgeClass(DefaultEdge.class).buildGraph();
        DOTImporter<String, DefaultEdge> importer = new DOTImporter<>();
        importer.setVertexFactory(id -> id);
        importer.importGraph(g, new StringReader(dot));
        return g;
    }

    @Test
    void dotOutputIsInTheDotLanguageGraphvizReads() throws URISyntaxException {
        NodeTopologySpec node = new TopologyReader().read(Path.of(Objects.requireNonNull(
                getClass().getResource("/fixtures/case-01-dgx-h100-8gpu-8nic-1to1.txt")).toURI()), TopologyFormat.AUTO);
        NodeGraph graph = NodeGraph.of(node);
        String dot = graph.toDot();
        Graph<String, DefaultEdge> parsed = parseDot(dot);
        // the same 18 vertices and 108 edges as the graph (see above)
        assertThat(parsed.vertexSet()).hasSize(18).contains("gpu0", "hca_mlx5_7");
        assertThat(parsed.edgeSet()).hasSize(108);
        // the header before issue 19 named the graph "node", a DOT keyword: Graphviz and this grammar refuse it
        assertThatThrownBy(() -> parseDot(dot.replaceFirst("strict graph node_topology \\{", "strict graph node {")))
                .isInstanceOf(ImportException.class);
    }

    @Test
    void linksDevicesThroughThePcieTreeWhenTheSourceHasOne() {
        // a sysfs-shaped node: host bridge pci0000:17 (NUMA 0) -> root port 17:00.0 -> switch 18:00.0 -> GPU, HCA
        List<PcieBridge> bridges = List.of(
                new PcieBridge("pci0000:17", PcieBridge.Kind.HOST_BRIDGE, null, 0),
                new PcieBridge("0000:17:00.0", PcieBridge.Kind.ROOT_PORT, "pci0000:17", 0),
                new PcieBridge("0000:18:00.0", PcieBridge.Kind.SWITCH, "0000:17:00.0", 0));
        NodeTopologySpec node = new NodeTopologySpec(DiscoverySource.SYSFS, true, List.of(),
                List.of(new Gpu(0, null, "0000:1a:00.0", 0, null, List.of(), "0000:18:00.0")),
                List.of(new Hca("mlx5_0", "0000:1b:00.0", 0, List.of(), null, "0000:18:00.0")),
                bridges, List.of(new NumaNode(0, 0, "0-47")),
                List.of(new GpuHcaDistance(0, "mlx5_0", PcieDistance.PIX)), List.of(), List.of());
        NodeGraph graph = NodeGraph.of(node);

        // 3 bridges + NUMA 0 + GPU + HCA; uplinks GPU->switch, HCA->switch, switch->root port, root port->host
        // bridge; host bridge -> NUMA 0; the GPU-HCA path
        assertThat(graph.graph().vertexSet()).hasSize(6);
        assertThat(graph.graph().edgeSet()).extracting(NodeGraph.Link::kind).containsExactlyInAnyOrder(
                NodeGraph.LinkKind.PCIE_UPLINK, NodeGraph.LinkKind.PCIE_UPLINK, NodeGraph.LinkKind.PCIE_UPLINK,
                NodeGraph.LinkKind.PCIE_UPLINK, NodeGraph.LinkKind.NUMA_LOCAL, NodeGraph.LinkKind.PCIE_PATH);
        assertThat(graph.graph().containsEdge(new NodeGraph.GpuVertex(0),
                new NodeGraph.BridgeVertex("0000:18:00.0", PcieBridge.Kind.SWITCH))).isTrue();
        assertThat(graph.toDot())
                .contains("bridge_0000_18_00_0 [ label=\"0000:18:00.0\\nSWITCH\" shape=\"diamond\" ];");
    }
}
