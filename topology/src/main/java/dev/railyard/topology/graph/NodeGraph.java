package dev.railyard.topology.graph;

import dev.railyard.api.topology.ExcludedHca;
import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaDistance;
import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.NumaNode;
import dev.railyard.api.topology.NvLink;
import dev.railyard.api.topology.PcieBridge;
import dev.railyard.api.topology.PcieDistance;
import org.jgrapht.Graph;
import org.jgrapht.graph.AsUnmodifiableGraph;
import org.jgrapht.graph.builder.GraphTypeBuilder;
import org.jgrapht.nio.Attribute;
import org.jgrapht.nio.DefaultAttribute;
import org.jgrapht.nio.dot.DOTExporter;

import java.io.StringWriter;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The node graph: GPUs, HCAs, PCIe bridges (when the source has a PCIe tree) and NUMA nodes of one node as a JGraphT
 * undirected weighted graph.
 *
 * <p>Edges ({@link Link}):
 * <ul>
 *   <li>{@link LinkKind#PCIE_PATH} GPU–HCA, one per known distance class, weight = {@link #weight(PcieDistance)}
 *       (PIX 1 .. SYS 5, P2C 2.5);</li>
 *   <li>{@link LinkKind#NVLINK} GPU–GPU, weight 0;</li>
 *   <li>{@link LinkKind#PCIE_UPLINK} device–bridge and bridge–bridge (child to parent), weight 0;</li>
 *   <li>{@link LinkKind#NUMA_LOCAL} NUMA node to a host bridge, or to a device when the source has no PCIe tree,
 *       weight 0.</li>
 * </ul>
 * Vertices and edges are kept in insertion order (GPUs by index, HCAs in the source's order), so the DOT output is
 * deterministic. Immutable after construction; safe to share between threads.
 */
public final class NodeGraph {
    /** The ID of the graph in {@link #toDot()}'s output. */
    public static final String DOT_GRAPH_ID = "node_topology";

    /** A vertex of the node graph. */
    public sealed interface Vertex permits GpuVertex, HcaVertex, BridgeVertex, NumaVertex {
        /** @return an identifier usable in DOT without quoting ({@code gpu0}, {@code hca_mlx5_0}) */
        String id();

        /** @return the name a person reads ({@code GPU0}, {@code mlx5_0}) */
        String label();
    }

    /** @param index GPU index */
    public record GpuVertex(int index) implements Vertex {
        @Override
        public String id() {
            return "gpu" + index;
        }

        @Override
        public String label() {
            return "GPU" + index;
        }
    }

    /** @param name HCA name */
    public record HcaVertex(String name) implements Vertex {
        @Override
        public String id() {
            return "hca_" + safe(name);
        }

        @Override
        public String label() {
            return name;
        }
    }

    /**
     * @param busId bridge id as in {@link PcieBridge#id()}
     * @param kind  kind of bridge, or null when only referenced by a device's {@code pcieParent}
     */
    public record BridgeVertex(String busId, PcieBridge.Kind kind) implements Vertex {
        @Override
        public String id() {
            return "bridge_" + safe(busId);
        }

        @Override
        public String label() {
            return busId;
        }
    }

    /** @param numaId NUMA node id */
    public record NumaVertex(int numaId) implements Vertex {
        @Override
        public String id() {
            return "numa" + numaId;
        }

        @Override
        public String label() {
            return "NUMA " + numaId;
        }
    }

    /** What an edge stands for. */
    public enum LinkKind { PCIE_PATH, NVLINK, PCIE_UPLINK, NUMA_LOCAL }

    /**
     * An edge. Compared by identity, as JGraphT requires of edge objects.
     */
    public static final class Link {
        private final LinkKind kind;
        private final PcieDistance distance;
        private final int nvlinks;

        private Link(LinkKind kind, PcieDistance distance, int nvlinks) {
            this.kind = kind;
            this.distance = distance;
            this.nvlinks = nvlinks;
        }

        /** @return what the edge stands for */
        public LinkKind kind() {
            return kind;
        }

        /** @return the distance class of a {@link LinkKind#PCIE_PATH} edge, else null */
        public PcieDistance distance() {
            return distance;
        }

        /** @return number of bonded NVLinks of an {@link LinkKind#NVLINK} edge, else 0 */
        public int nvlinks() {
            return nvlinks;
        }
    }

    private final Graph<Vertex, Link> graph;
    private final Map<String, Map<Integer, PcieDistance>> distanceByHca;
    private final Map<Link, GpuHcaPair> railEdges;
    private final Set<String> excluded;

    private NodeGraph(Graph<Vertex, Link> graph, Map<String, Map<Integer, PcieDistance>> distanceByHca,
                      Map<Link, GpuHcaPair> railEdges, Set<String> excluded) {
        this.graph = graph;
        this.distanceByHca = distanceByHca;
        this.railEdges = railEdges;
        this.excluded = excluded;
    }

    /**
     * Builds the graph of a node.
     *
     * @param spec the node model; its {@code distances}, NVLinks, PCIe tree and NUMA nodes become edges, its
     *             {@code pairs} and {@code excluded} (when filled) are marked in the DOT output
     * @return the graph
     */
    public static NodeGraph of(NodeTopologySpec spec) {
        Graph<Vertex, Link> g = GraphTypeBuilder.<Vertex, Link>undirected()
                .allowingMultipleEdges(false).allowingSelfLoops(false).weighted(true).buildGraph();
        Map<String, BridgeVertex> bridges = new HashMap<>();
        for (PcieBridge b : spec.pcieBridges()) {
            BridgeVertex v = new BridgeVertex(b.id(), b.kind());
            bridges.put(b.id(), v);
            g.addVertex(v);
        }
        for (NumaNode n : spec.numaNodes()) {
            g.addVertex(new NumaVertex(n.id()));
        }
        for (Gpu gpu : spec.gpus()) {
            g.addVertex(new GpuVertex(gpu.index()));
        }
        for (Hca hca : spec.hcas()) {
            g.addVertex(new HcaVertex(hca.name()));
        }
        for (PcieBridge b : spec.pcieBridges()) {
            if (b.parent() != null) {
                link(g, bridges.get(b.id()), bridge(g, bridges, b.parent()), LinkKind.PCIE_UPLINK, null, 0);
            } else if (b.numaNode() != null) {
                link(g, bridges.get(b.id()), numa(g, b.numaNode()), LinkKind.NUMA_LOCAL, null, 0);
            }
        }
        for (Gpu gpu : spec.gpus()) {
            Vertex v = new GpuVertex(gpu.index());
            attach(g, bridges, v, gpu.pcieParent(), gpu.numaNode());
            for (NvLink nv : gpu.nvlinks()) {
                Vertex peer = new GpuVertex(nv.peer());
                if (g.containsVertex(peer)) {
                    link(g, v, peer, LinkKind.NVLINK, null, nv.links());
                }
            }
        }
        for (Hca hca : spec.hcas()) {
            attach(g, bridges, new HcaVertex(hca.name()), hca.pcieParent(), hca.numaNode());
        }
        Map<String, Map<Integer, PcieDistance>> byHca = new HashMap<>();
        for (GpuHcaDistance d : spec.distances()) {
            Vertex gv = new GpuVertex(d.gpu());
            Vertex hv = new HcaVertex(d.hca());
            if (g.containsVertex(gv) && g.containsVertex(hv)
                    && link(g, gv, hv, LinkKind.PCIE_PATH, d.distance(), 0)) {
                byHca.computeIfAbsent(d.hca(), k -> new HashMap<>()).put(d.gpu(), d.distance());
            }
        }
        Map<Link, GpuHcaPair> rails = new HashMap<>();
        for (GpuHcaPair p : spec.pairs()) {
            Link e = g.getEdge(new GpuVertex(p.gpu()), new HcaVertex(p.hca()));
            if (e != null) {
                rails.put(e, p);
            }
        }
        Set<String> out = new HashSet<>();
        for (ExcludedHca x : spec.excluded()) {
            out.add(x.hca());
        }
        return new NodeGraph(new AsUnmodifiableGraph<>(g), byHca, rails, out);
    }

    /**
     * @param distance a distance class
     * @return the edge weight used for it: PIX 1, PXB 2, P2C 2.5 (NCCL ranks it between PXB and PHB), PHB 3, NODE 4,
     *         SYS 5
     */
    public static double weight(PcieDistance distance) {
        return switch (distance) {
            case PIX -> 1;
            case PXB -> 2;
            case P2C -> 2.5;
            case PHB -> 3;
            case NODE -> 4;
            case SYS -> 5;
        };
    }

    /** @return the underlying JGraphT graph, unmodifiable */
    public Graph<Vertex, Link> graph() {
        return graph;
    }

    /**
     * @param gpu GPU index
     * @param hca HCA name
     * @return the distance class between them, or null when unknown (or either device is not in the graph)
     */
    public PcieDistance distance(int gpu, String hca) {
        Map<Integer, PcieDistance> column = distanceByHca.get(hca);
        return column == null ? null : column.get(gpu);
    }

    /**
     * Draws the graph in Graphviz DOT: GPUs as boxes, HCAs as ellipses (dashed when excluded), bridges as
     * diamonds, NUMA nodes as octagons; PCIe paths labelled with their class, rails in red with their rail index,
     * SYS paths grey and dotted, NVLinks green and bold. The graph is named {@value #DOT_GRAPH_ID} ({@code node},
     * {@code edge}, {@code graph}, {@code digraph}, {@code subgraph} and {@code strict} are DOT keywords and cannot be
     * a graph's ID, Graphviz's grammar at https://graphviz.org/doc/info/lang.html).
     *
     * @return the DOT text
     */
    public String toDot() {
        DOTExporter<Vertex, Link> exporter = new DOTExporter<>(Vertex::id);
        exporter.setGraphIdProvider(() -> DOT_GRAPH_ID);
        exporter.setGraphAttributeProvider(() -> attrs("rankdir", "LR", "fontname", "Helvetica"));
        exporter.setVertexAttributeProvider(this::vertexAttributes);
        exporter.setEdgeAttributeProvider(this::edgeAttributes);
        StringWriter out = new StringWriter();
        exporter.exportGraph(graph, out);
        return out.toString();
    }

    private Map<String, Attribute> vertexAttributes(Vertex v) {
        return switch (v) {
            case GpuVertex g -> attrs("label", g.label(), "shape", "box", "style", "filled", "fillcolor", "palegreen");
            case HcaVertex h -> excluded.contains(h.name())
                    ? attrs("label", h.label() + "\\n(excluded)", "shape", "ellipse", "style", "dashed")
                    : attrs("label", h.label(), "shape", "ellipse", "style", "filled", "fillcolor", "lightblue");
            case BridgeVertex b -> attrs("label", b.label() + (b.kind() == null ? "" : "\\n" + b.kind()),
                    "shape", "diamond");
            case NumaVertex n -> attrs("label", n.label(), "shape", "octagon");
        };
    }

    private Map<String, Attribute> edgeAttributes(Link e) {
        return switch (e.kind()) {
            case PCIE_PATH -> {
                GpuHcaPair rail = railEdges.get(e);
                if (rail != null) {
                    yield attrs("label", e.distance() + " rail " + rail.rail(), "color", "red", "penwidth", "2");
                }
                yield e.distance() == PcieDistance.SYS
                        ? attrs("label", "SYS", "color", "grey", "style", "dotted")
                        : attrs("label", e.distance().name());
            }
            case NVLINK -> attrs("label", "NV" + e.nvlinks(), "color", "darkgreen", "style", "bold");
            case PCIE_UPLINK -> attrs("style", "solid", "color", "black");
            case NUMA_LOCAL -> attrs("style", "dashed", "color", "grey");
        };
    }

    private static Map<String, Attribute> attrs(String... kv) {
        Map<String, Attribute> m = new LinkedHashMap<>();
        for (int i = 0; i + 1 < kv.length; i += 2) {
            m.put(kv[i], DefaultAttribute.createAttribute(kv[i + 1]));
        }
        return m;
    }

    private static void attach(Graph<Vertex, Link> g, Map<String, BridgeVertex> bridges, Vertex device,
                               String pcieParent, Integer numaNode) {
        if (pcieParent != null) {
            link(g, device, bridge(g, bridges, pcieParent), LinkKind.PCIE_UPLINK, null, 0);
        } else if (numaNode != null) {
            link(g, device, numa(g, numaNode), LinkKind.NUMA_LOCAL, null, 0);
        }
    }

    private static BridgeVertex bridge(Graph<Vertex, Link> g, Map<String, BridgeVertex> bridges, String id) {
        return bridges.computeIfAbsent(id, k -> {
            BridgeVertex v = new BridgeVertex(k, null);
            g.addVertex(v);
            return v;
        });
    }

    private static NumaVertex numa(Graph<Vertex, Link> g, int id) {
        NumaVertex v = new NumaVertex(id);
        g.addVertex(v);
        return v;
    }

    /** Adds an edge unless it is a loop or the two vertices are already linked; @return true when added */
    private static boolean link(Graph<Vertex, Link> g, Vertex a, Vertex b, LinkKind kind, PcieDistance d, int nv) {
        if (a.equals(b)) {
            return false;
        }
        Link e = new Link(kind, d, nv);
        if (!g.addEdge(a, b, e)) {
            return false;
        }
        if (d != null) {
            g.setEdgeWeight(e, weight(d));
        } else {
            g.setEdgeWeight(e, 0);
        }
        return true;
    }

    private static String safe(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            b.append(Character.isLetterOrDigit(c) ? c : '_');
        }
        return b.toString();
    }
}
