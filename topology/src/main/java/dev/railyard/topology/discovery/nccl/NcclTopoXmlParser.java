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
import dev.railyard.topology.discovery.HcaNameOrder;
import dev.railyard.topology.discovery.PciBusId;
import dev.railyard.topology.discovery.PcieDistanceClassifier;
import dev.railyard.topology.discovery.PciePath;
import dev.railyard.topology.discovery.TopologyParser;
import org.xml.sax.Attributes;
import org.xml.sax.Locator;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.helpers.DefaultHandler;

import javax.xml.XMLConstants;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.parsers.SAXParser;
import javax.xml.parsers.SAXParserFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Reads NCCL's topology XML, as written with {@code NCCL_TOPO_DUMP_FILE=<path>}: {@code <system version="1">}
 * holding one {@code <cpu numaid=.. affinity=..>} per NUMA node, under it nested {@code <pci busid=.. class=..>}
 * elements (a switch is named by its upstream port; root ports and host bridges are not represented), GPUs as
 * {@code <pci><gpu dev=..><nvlink target=.. count=.. tclass=../></gpu></pci>} and NICs as
 * {@code <pci><nic><net name="mlx5_0" port=.. speed=../></nic></pci>}. Source: NVIDIA/nccl {@code src/graph/xml.cc},
 * {@code xml.h}, {@code topo.cc} (summary in {@code docs/formats/node-topology.md} §2).
 *
 * <p>Distance classes come from {@link PcieDistanceClassifier}, with each top-level {@code <pci>} under a
 * {@code <cpu>} standing for its own root port and host bridge. Because NCCL drops root ports and host bridges,
 * two devices under different top-level {@code <pci>} elements of one {@code <cpu>} are classed
 * {@link dev.railyard.api.topology.PcieDistance#NODE} (what nvidia-smi prints when every x16 slot has its own host
 * bridge, the common case on current servers such as case-01's DGX H100; NCCL itself calls this PHB). A machine
 * whose devices share one host bridge through different root ports (nvidia-smi PHB, as in case-11) therefore reads
 * as NODE from this source. Devices under different {@code <cpu>} elements are SYS. A {@code <nic>} directly under
 * a {@code <cpu>} (no PCI device) is NODE to that NUMA node's GPUs and SYS to the others.
 *
 * <p>Model mapping: {@code gpu@dev} is the GPU index; {@code net} elements with one {@code name} become one HCA
 * with a port per {@code port} ({@code speed} Mb/s to Gbit/s); port state and link layer are not in the dump and
 * stay null (NCCL lists only ports it could use). NVLinks: a {@code nvlink} to a GPU bus id counts toward that
 * peer; links to NVSwitches ({@code tclass 0x068000}) connect every pair of such GPUs with the smaller of the two
 * GPUs' switch link totals (18 on an H100 HGX board, printed {@code NV18} by nvidia-smi). Each {@code <cpu>}
 * becomes a {@link PcieBridge.Kind#HOST_BRIDGE} named {@code cpu<numaid>}, standing for all of that NUMA node's
 * host bridges; each {@code <pci>} with {@code <pci>} children becomes a {@link PcieBridge.Kind#SWITCH}.
 * HCAs are ordered like {@link HcaNameOrder}.
 *
 * <p>Grace hosts: a {@code <gpu>} with a {@code <c2c>} child (NCCL writes it when NVML reports active C2C links,
 * {@code src/graph/xml.cc}) reaches its CPU over NVLink-C2C; its distance to a NIC under the same {@code <cpu>} and
 * not under a shared switch is {@link PcieDistance#P2C}, NCCL's own class for that path ({@code src/graph/paths.cc}).
 * A {@code plane} attribute on {@code <net>} (net plugin v12, NCCL ≥ 2.30) becomes {@link Hca#plane()}.
 *
 * <p>A dump that ends early (bug reports often cut it mid-element) is read as far as it goes: when the XML error is
 * on the file's last line and {@code <system>} is open, the elements read so far are used and a warning names the
 * element the file ends in, with {@code complete == false}. See {@code docs/formats/nccl-topology.md}.
 *
 * <p>The XML is read with the JDK's SAX parser with secure processing on and DOCTYPE declarations, external
 * entities and XInclude refused. Malformed XML, a root other than {@code <system>}, or a dump without any
 * {@code <gpu>} throws {@link InputException} naming file, line and column; a bad attribute on one element adds a
 * warning with line and column, skips that element and yields {@code complete == false}. Stateless, thread-safe.
 */
public final class NcclTopoXmlParser implements TopologyParser {
    private static final String NVSWITCH_CLASS = "0x068000";
    private static final int MAX_DEPTH = 64;

    /** Creates a parser; it holds no state. */
    public NcclTopoXmlParser() {
    }

    /**
     * @param input an NCCL topology dump
     * @throws InputException when the file is missing, empty, not well-formed XML, not an NCCL topology or has no
     *                        GPU; the message names file, line and column
     */
    @Override
    public NodeTopologySpec parse(Path input) {
        if (!Files.isRegularFile(input)) {
            throw new InputException(input + (Files.exists(input) ? ": not a regular file" : ": no such file"));
        }
        Element root;
        String cut = null;
        TreeBuilder builder = new TreeBuilder(input);
        try (InputStream in = Files.newInputStream(input)) {
            if (Files.size(input) == 0) {
                throw new InputException(input + ": empty file, expected NCCL topology XML (<system version=\"1\">)");
            }
            newParser().parse(in, builder);
            root = builder.root;
        } catch (SAXParseException e) {
            cut = builder.truncation(e, lastLine(input));
            if (cut == null) {
                throw new InputException(input + ":" + e.getLineNumber() + ":" + e.getColumnNumber() + ": not NCCL "
                        + "topology XML: " + e.getMessage(), e);
            }
            root = builder.root;
        } catch (SAXException e) {
            throw new InputException(input + ": not NCCL topology XML: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new InputException(input + ": cannot read (" + e.getMessage() + ")", e);
        }
        if (root == null || !root.name.equals("system")) {
            String where = root == null ? "" : ":" + root.line + ":" + root.column;
            throw new InputException(input + where + ": root element is <" + (root == null ? "" : root.name)
                    + ">, expected <system> (NCCL_TOPO_DUMP_FILE format)");
        }
        return new Pass(input, cut).run(root);
    }

    /** @return the number of the file's last line that holds anything but blanks (1-based), 0 when none */
    private static int lastLine(Path input) {
        try {
            List<String> lines = Files.readAllLines(input, java.nio.charset.StandardCharsets.UTF_8);
            for (int i = lines.size() - 1; i >= 0; i--) {
                if (!lines.get(i).isBlank()) {
                    return i + 1;
                }
            }
            return 0;
        } catch (IOException | java.io.UncheckedIOException e) {
            return -1;
        }
    }

    private static SAXParser newParser() throws SAXException {
        try {
            SAXParserFactory factory = SAXParserFactory.newInstance();
            factory.setNamespaceAware(false);
            factory.setValidating(false);
            factory.setXIncludeAware(false);
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            factory.setFeature("http://xml.org/sax/features/external-general-entities", false);
            factory.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            return factory.newSAXParser();
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("the JDK's SAX parser lacks a secure-processing feature", e);
        }
    }

    /** One element with its attributes and where it starts. */
    private static final class Element {
        final String name;
        final Map<String, String> attributes;
        final int line;
        final int column;
        final List<Element> children = new ArrayList<>();

        Element(String name, Map<String, String> attributes, int line, int column) {
            this.name = name;
            this.attributes = attributes;
            this.line = line;
            this.column = column;
        }

        String attr(String key) {
            return attributes.get(key);
        }

        List<Element> children(String childName) {
            return children.stream().filter(c -> c.name.equals(childName)).toList();
        }
    }

    /** Builds the element tree with positions. */
    private static final class TreeBuilder extends DefaultHandler {
        private final Path file;
        private Locator locator;
        private final List<Element> stack = new ArrayList<>();
        Element root;

        TreeBuilder(Path file) {
            this.file = file;
        }

        @Override
        public void setDocumentLocator(Locator locator) {
            this.locator = locator;
        }

        @Override
        public void startElement(String uri, String localName, String qName, Attributes attributes)
                throws SAXException {
            Map<String, String> attrs = new LinkedHashMap<>();
            for (int i = 0; i < attributes.getLength(); i++) {
                attrs.put(attributes.getQName(i), attributes.getValue(i));
            }
            int line = locator == null ? -1 : locator.getLineNumber();
            int column = locator == null ? -1 : locator.getColumnNumber();
            if (stack.size() >= MAX_DEPTH) {
                throw new SAXParseException("elements nested deeper than " + MAX_DEPTH + " in " + file, locator);
            }
            Element element = new Element(qName, attrs, line, column);
            if (stack.isEmpty()) {
                root = element;
            } else {
                stack.getLast().children.add(element);
            }
            stack.add(element);
        }

        @Override
        public void endElement(String uri, String localName, String qName) {
            stack.removeLast();
        }

        /**
         * @return when {@code error} is the file ending early (on its last non-blank line, with {@code <system>}
         *         open), the warning that says so; null for any other error
         */
        String truncation(SAXParseException error, int lastLine) {
            if (root == null || !root.name.equals("system") || stack.isEmpty() || lastLine <= 0
                    || error.getLineNumber() < lastLine) {
                return null;
            }
            Element open = stack.getLast();
            String id = open.attr("busid") != null ? " busid=\"" + open.attr("busid") + "\""
                    : open.attr("numaid") != null ? " numaid=\"" + open.attr("numaid") + "\"" : "";
            return file + ":" + error.getLineNumber() + ":" + error.getColumnNumber() + ": the file ends inside <"
                    + open.name + id + "> (opened at line " + open.line + ") and " + (stack.size() - 1)
                    + " enclosing element" + (stack.size() == 2 ? "" : "s") + ": a cut dump, read as far as it goes;"
                    + " devices after the cut are missing";
        }
    }

    /** State of one parse. */
    private static final class Pass {
        private final Path file;
        private final List<String> warnings = new ArrayList<>();
        /** Elements skipped or read in part as damaged, and the warning of the first. */
        private int damages;
        private String firstDamage;
        private boolean damaged;
        private final Map<String, PcieBridge> bridges = new LinkedHashMap<>();
        private final List<NumaNode> numaNodes = new ArrayList<>();
        private final Map<Integer, GpuFound> gpus = new TreeMap<>();
        private final Map<String, HcaFound> hcas = new TreeMap<>(HcaNameOrder.INSTANCE);

        private record GpuFound(int index, String busId, Integer numa, String parent, PciePath path,
                                List<Element> nvlinks, boolean c2c) {
        }

        private static final class HcaFound {
            final String busId;
            final Integer numa;
            final String parent;
            final PciePath path;
            final Map<Integer, HcaPort> ports = new TreeMap<>();
            Integer plane;

            HcaFound(String busId, Integer numa, String parent, PciePath path) {
                this.busId = busId;
                this.numa = numa;
                this.parent = parent;
                this.path = path;
            }
        }

        /** Where the walk is: NUMA node, the branch (top-level pci) and the bridge units above. */
        private record Context(Integer numa, String cpuId, String branch, List<String> units, String parentId) {
        }

        Pass(Path file, String cut) {
            this.file = file;
            if (cut != null) {
                damage(cut);
            }
        }

        NodeTopologySpec run(Element system) {
            String version = system.attr("version");
            if (version != null && !version.strip().equals("1")) {
                warnings.add(where(system) + "<system version=\"" + version
                        + "\">: NCCL writes version 1; read anyway");
            }
            int ordinal = 0;
            for (Element cpu : system.children("cpu")) {
                Integer numa = intAttr(cpu, "numaid", true);
                if (numa != null && numa < 0) {
                    numa = null;
                }
                String cpuId = numa == null ? "cpu?" + ordinal : "cpu" + numa;
                ordinal++;
                bridges.putIfAbsent(cpuId, new PcieBridge(cpuId, PcieBridge.Kind.HOST_BRIDGE, null, numa));
                if (numa != null) {
                    numaNodes.add(new NumaNode(numa, null, cpuList(cpu.attr("affinity"))));
                }
                Context context = new Context(numa, cpuId, null, List.of(), cpuId);
                for (Element child : cpu.children) {
                    switch (child.name) {
                        case "pci" -> walkPci(child, context);
                        case "nic" -> addNets(child, null,
                                new PciePath(cpuId + "/nic", List.of(), numa), context);
                        default -> {
                            // other children of <cpu> carry no GPU or NIC
                        }
                    }
                }
            }
            if (gpus.isEmpty() && damaged) {
                // the GPUs may be in the parts skipped as damaged: say so instead of "not a dump"
                throw new InputException(file + ": no <gpu> element could be read (" + damages
                        + (damages == 1 ? " damaged element" : " damaged elements") + ", first: " + firstDamage + ")");
            }
            if (gpus.isEmpty()) {
                throw new InputException(file + ": no <gpu> element: not an NCCL_TOPO_DUMP_FILE dump (a file made "
                        + "for NCCL_TOPO_FILE carries only <cpu> and <pci>)");
            }
            return assemble();
        }

        private void walkPci(Element pci, Context context) {
            String busText = pci.attr("busid");
            Optional<PciBusId> parsed = PciBusId.parse(busText);
            if (parsed.isEmpty()) {
                damage(where(pci) + "<pci> busid \"" + busText + "\" is not a PCI bus id; element and its children "
                        + "skipped");
                return;
            }
            String id = parsed.get().toString();
            String branch = context.branch() == null ? parsed.get().device0().toString() : context.branch();
            List<String> base = context.units().isEmpty() ? List.of("rp:" + branch) : context.units();
            List<Element> childPcis = pci.children("pci");
            String cls = Optional.ofNullable(pci.attr("class")).orElse("").toLowerCase(Locale.ROOT);
            if (!childPcis.isEmpty()) {
                bridges.putIfAbsent(id, new PcieBridge(id, PcieBridge.Kind.SWITCH, context.parentId(),
                        context.numa()));
                List<String> below = new ArrayList<>(base);
                below.add(id);
                Context inner = new Context(context.numa(), context.cpuId(), branch, below, id);
                for (Element child : childPcis) {
                    walkPci(child, inner);
                }
            }
            if (cls.equals(NVSWITCH_CLASS)) {
                return;
            }
            PciePath path = new PciePath("hb:" + branch, base, context.numa());
            for (Element gpu : pci.children("gpu")) {
                Integer dev = intAttr(gpu, "dev", false);
                if (dev == null) {
                    continue;
                }
                if (gpus.containsKey(dev)) {
                    damage(where(gpu) + "<gpu dev=\"" + dev + "\"> appears a second time (first at "
                            + gpus.get(dev).busId() + "); skipped");
                    continue;
                }
                gpus.put(dev, new GpuFound(dev, id, context.numa(), context.parentId(), path,
                        gpu.children("nvlink"), !gpu.children("c2c").isEmpty()));
            }
            for (Element nic : pci.children("nic")) {
                addNets(nic, id, path, context);
            }
        }

        private void addNets(Element nic, String busId, PciePath path, Context context) {
            for (Element net : nic.children("net")) {
                String name = net.attr("name");
                if (name == null || name.isBlank()) {
                    damage(where(net) + "<net> has no name; skipped");
                    continue;
                }
                Integer port = net.attributes.containsKey("port") ? intAttr(net, "port", false) : Integer.valueOf(1);
                if (port == null) {
                    continue;
                }
                Integer speedMbps = net.attributes.containsKey("speed") ? intAttr(net, "speed", false) : null;
                Integer rate = speedMbps == null ? null : (int) Math.round(speedMbps / 1000.0);
                HcaFound hca = hcas.computeIfAbsent(name, n -> new HcaFound(busId, context.numa(),
                        busId == null ? context.cpuId() : context.parentId(), path));
                if (!java.util.Objects.equals(hca.busId, busId)) {
                    damage(where(net) + "<net name=\"" + name + "\"> also appears under " + hca.busId
                            + "; this one skipped");
                    continue;
                }
                if (hca.ports.containsKey(port)) {
                    damage(where(net) + "<net name=\"" + name + "\" port=\"" + port + "\"> appears twice; skipped");
                    continue;
                }
                hca.ports.put(port, new HcaPort(port, null, null, rate, List.of(), null));
                if (net.attributes.containsKey("plane")) {
                    Integer plane = intAttr(net, "plane", true);
                    hca.plane = plane == null || plane < 0 ? hca.plane : plane;
                }
            }
        }

        private NodeTopologySpec assemble() {
            Map<String, Integer> gpuByBus = new HashMap<>();
            gpus.values().forEach(g -> gpuByBus.put(g.busId(), g.index()));
            Map<Integer, Map<Integer, Integer>> direct = new TreeMap<>();
            Map<Integer, Integer> toSwitches = new TreeMap<>();
            for (GpuFound gpu : gpus.values()) {
                for (Element link : gpu.nvlinks()) {
                    Integer count = intAttr(link, "count", false);
                    if (count == null) {
                        continue;
                    }
                    String tclass = Optional.ofNullable(link.attr("tclass")).orElse("").toLowerCase(Locale.ROOT);
                    if (tclass.equals(NVSWITCH_CLASS)) {
                        toSwitches.merge(gpu.index(), count, Integer::sum);
                        continue;
                    }
                    Integer peer = PciBusId.parse(link.attr("target")).map(b -> gpuByBus.get(b.toString()))
                            .orElse(null);
                    if (peer != null && peer != gpu.index()) {
                        direct.computeIfAbsent(gpu.index(), k -> new TreeMap<>()).merge(peer, count, Integer::sum);
                    }
                }
            }
            List<Gpu> gpuList = new ArrayList<>();
            for (GpuFound gpu : gpus.values()) {
                Map<Integer, Integer> peers = new TreeMap<>(direct.getOrDefault(gpu.index(), Map.of()));
                Integer mine = toSwitches.get(gpu.index());
                if (mine != null) {
                    for (Map.Entry<Integer, Integer> other : toSwitches.entrySet()) {
                        if (other.getKey() != gpu.index()) {
                            peers.merge(other.getKey(), Math.min(mine, other.getValue()), Integer::sum);
                        }
                    }
                }
                List<NvLink> nvlinks = peers.entrySet().stream().map(e -> new NvLink(e.getKey(), e.getValue()))
                        .toList();
                gpuList.add(new Gpu(gpu.index(), null, gpu.busId(), gpu.numa(), null, nvlinks, gpu.parent(),
                        gpu.c2c() ? Boolean.TRUE : null));
            }
            List<Hca> hcaList = new ArrayList<>();
            List<GpuHcaDistance> distances = new ArrayList<>();
            for (Map.Entry<String, HcaFound> e : hcas.entrySet()) {
                HcaFound h = e.getValue();
                hcaList.add(new Hca(e.getKey(), h.busId, h.numa, List.copyOf(h.ports.values()), null, h.parent,
                        h.plane));
            }
            for (GpuFound gpu : gpus.values()) {
                for (Map.Entry<String, HcaFound> e : hcas.entrySet()) {
                    PcieDistance d = PcieDistanceClassifier.classify(gpu.path(), e.getValue().path);
                    if (gpu.c2c() && d != PcieDistance.SYS && !d.isAtMost(PcieDistance.PXB)) {
                        d = PcieDistance.P2C;  // GPU over C2C to its CPU, NIC on that CPU's root ports
                    }
                    distances.add(new GpuHcaDistance(gpu.index(), e.getKey(), d));
                }
            }
            return new NodeTopologySpec(DiscoverySource.NCCL_XML, !damaged, warnings, gpuList, hcaList,
                    List.copyOf(bridges.values()), numaNodes, distances, List.of(), List.of());
        }

        private Integer intAttr(Element element, String name, boolean optional) {
            String text = element.attr(name);
            if (text == null) {
                if (!optional) {
                    damage(where(element) + "<" + element.name + "> has no " + name + " attribute; skipped");
                }
                return null;
            }
            try {
                return Integer.parseInt(text.strip());
            } catch (NumberFormatException e) {
                damage(where(element) + "<" + element.name + "> " + name + "=\"" + text
                        + "\" is not an integer; " + (optional ? "treated as unknown" : "skipped"));
                return null;
            }
        }

        private void damage(String warning) {
            damaged = true;
            if (damages++ == 0) {
                firstDamage = warning;
            }
            warnings.add(warning);
        }

        private String where(Element element) {
            return file + ":" + element.line + ":" + element.column + ": ";
        }
    }

    /**
     * Converts a Linux cpumask as NCCL writes it (comma-separated 32-bit hex words, most significant first, from
     * {@code /sys/devices/system/node/node<N>/cpumap}) to a CPU list as the kernel prints {@code cpulist}.
     *
     * @return e.g. {@code 0-47,96-143}; null when the mask is null, empty or not hex
     */
    static String cpuList(String mask) {
        if (mask == null || mask.isBlank()) {
            return null;
        }
        String[] words = mask.strip().split(",");
        BitSet cpus = new BitSet();
        for (int w = 0; w < words.length; w++) {
            long value;
            try {
                value = Long.parseLong(words[words.length - 1 - w].strip(), 16);
            } catch (NumberFormatException e) {
                return null;
            }
            for (int bit = 0; bit < 32; bit++) {
                if ((value >>> bit & 1) != 0) {
                    cpus.set(w * 32 + bit);
                }
            }
        }
        if (cpus.isEmpty()) {
            return null;
        }
        StringBuilder out = new StringBuilder();
        int start = cpus.nextSetBit(0);
        while (start >= 0) {
            int end = cpus.nextClearBit(start) - 1;
            if (!out.isEmpty()) {
                out.append(',');
            }
            out.append(start);
            if (end > start) {
                out.append('-').append(end);
            }
            start = cpus.nextSetBit(end + 1);
        }
        return out.toString();
    }
}
