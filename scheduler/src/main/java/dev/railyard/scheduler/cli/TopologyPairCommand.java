package dev.railyard.scheduler.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.railyard.api.topology.DiscoverySource;
import dev.railyard.api.topology.ExcludedHca;
import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.topology.InputException;
import dev.railyard.topology.TopologyReader;
import dev.railyard.topology.discovery.TopologyFormat;
import dev.railyard.topology.graph.NodeGraph;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code railyard topology pair FILE [--format auto|nvidia-smi|sysfs|nccl-xml|lspci] [--output table|json|dot]}:
 * reads a node's discovery data, pairs every GPU with its nearest rail HCA and prints the rail map.
 *
 * <p>JSON shape: {@code {"file", "source", "complete", "locality": {"basis", "reason"}, "gpus": [index],
 * "hcas": [name], "pairs": [{"gpu", "hca", "distance", "rail", "gpuDirect"}], "excluded": [{"hca", "reason"}],
 * "unpairedGpus": [index], "unpairedHcas": [name], "warnings": [text]}}; {@code gpuDirect} is true when NCCL uses
 * GPUDirect RDMA for the pair under its defaults (PXB or nearer; P2C with NCCL ≥ 2.27). {@code locality.basis} is
 * {@code PCIE}, {@code NUMA} (C2C-attached GPUs paired by NUMA node) or {@code UNDETERMINED} (this source cannot
 * tell: no pairs, the reason says which source to use). {@code unpairedHcas} are HCAs neither paired nor excluded.
 *
 * <p>Exit codes: 0 when the input was usable, also when damaged ({@code complete: false}, warnings say where);
 * 2 with one line on stderr when nothing usable could be read.
 */
@Command(name = "pair", mixinStandardHelpOptions = true,
        description = {"Pair every GPU of a node with its nearest rail HCA.",
                "FILE is nvidia-smi topo -m (or -mp) text, a sysfs snapshot (directory or .tar.gz), NCCL "
                        + "topology XML or lspci -tv text."})
final class TopologyPairCommand implements Callable<Integer> {

    /** Output formats. */
    enum Output { TABLE, JSON, DOT }

    @Parameters(index = "0", paramLabel = "FILE", description = "Discovery data of one node.")
    Path file;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "auto", converter = FormatConverter.class,
            description = "auto, nvidia-smi, sysfs, nccl-xml or lspci (default: ${DEFAULT-VALUE}).")
    TopologyFormat format;

    @Option(names = "--output", paramLabel = "OUTPUT", defaultValue = "table", converter = OutputConverter.class,
            description = "table (for people), json or dot (Graphviz drawing of the node graph); default: "
                    + "${DEFAULT-VALUE}.")
    Output output;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        NodeTopologySpec node = new TopologyReader().read(file, format);
        PrintWriter out = spec.commandLine().getOut();
        switch (output) {
            case JSON -> out.println(json(node));
            case DOT -> out.print(NodeGraph.of(node).toDot());
            case TABLE -> out.print(table(node));
        }
        out.flush();
        return 0;
    }

    private String json(NodeTopologySpec node) {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        root.put("file", file.toString());
        root.put("source", sourceName(node.source()));
        root.put("complete", node.complete());
        ObjectNode locality = root.putObject("locality");
        locality.put("basis", node.locality().basis().name());
        locality.put("reason", node.locality().reason());
        ArrayNode gpus = root.putArray("gpus");
        node.gpus().forEach(g -> gpus.add(g.index()));
        ArrayNode hcas = root.putArray("hcas");
        node.hcas().forEach(h -> hcas.add(h.name()));
        ArrayNode pairs = root.putArray("pairs");
        for (GpuHcaPair p : node.pairs()) {
            pairs.addObject().put("gpu", p.gpu()).put("hca", p.hca()).put("distance", p.distance().name())
                    .put("rail", p.rail()).put("gpuDirect", p.distance().gpuDirectByDefault());
        }
        ArrayNode excluded = root.putArray("excluded");
        for (ExcludedHca x : node.excluded()) {
            excluded.addObject().put("hca", x.hca()).put("reason", x.reason());
        }
        ArrayNode unpairedGpus = root.putArray("unpairedGpus");
        unpairedGpus(node).forEach(unpairedGpus::add);
        ArrayNode unpairedHcas = root.putArray("unpairedHcas");
        unpairedHcas(node).forEach(unpairedHcas::add);
        ArrayNode warnings = root.putArray("warnings");
        node.warnings().forEach(warnings::add);
        try {
            return mapper.writeValueAsString(root);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON", e);
        }
    }

    private String table(NodeTopologySpec node) {
        StringBuilder b = new StringBuilder();
        b.append(file).append(": ").append(sourceName(node.source())).append(", ").append(node.gpus().size())
                .append(node.gpus().size() == 1 ? " GPU, " : " GPUs, ").append(node.hcas().size())
                .append(node.hcas().size() == 1 ? " HCA, " : " HCAs, ")
                .append(node.complete() ? "complete" : "INCOMPLETE (damaged dump, see warnings)").append('\n');
        if (!node.locality().determined()) {
            b.append("This source cannot tell which HCA is near which GPU: ").append(node.locality().reason())
                    .append('\n');
        } else if (node.pairs().isEmpty()) {
            b.append("No GPU could be paired with an HCA.\n");
        } else {
            int hcaWidth = Math.max(3, node.pairs().stream().mapToInt(p -> p.hca().length()).max().orElse(3));
            String row = "%-4s  %-5s  %-" + hcaWidth + "s  %-8s  %s%n";
            b.append(String.format(Locale.ROOT, row, "RAIL", "GPU", "HCA", "DISTANCE", "GPUDIRECT"));
            for (GpuHcaPair p : node.pairs()) {
                b.append(String.format(Locale.ROOT, row, p.rail(), "GPU" + p.gpu(), p.hca(), p.distance(),
                        gpuDirect(p.distance())));
            }
        }
        if (node.locality().basis() == dev.railyard.api.topology.Locality.Basis.NUMA) {
            b.append(node.locality().reason()).append('\n');
        }
        if (!node.excluded().isEmpty()) {
            int w = node.excluded().stream().mapToInt(x -> x.hca().length()).max().orElse(0);
            b.append("\nExcluded HCAs:\n");
            for (ExcludedHca x : node.excluded()) {
                b.append(String.format(Locale.ROOT, "  %-" + w + "s  %s%n", x.hca(), x.reason()));
            }
        }
        List<Integer> gpus = unpairedGpus(node);
        List<String> hcas = unpairedHcas(node);
        if (!gpus.isEmpty() || !hcas.isEmpty()) {
            b.append("\nNot paired:");
            if (!gpus.isEmpty()) {
                b.append(' ').append(gpus.stream().map(i -> "GPU" + i).collect(Collectors.joining(", ")));
            }
            if (!hcas.isEmpty()) {
                b.append(gpus.isEmpty() ? " " : "; ").append(String.join(", ", hcas));
            }
            b.append('\n');
        }
        if (!node.warnings().isEmpty()) {
            b.append("\nWarnings:\n");
            node.warnings().forEach(w -> b.append("  ").append(w).append('\n'));
        }
        return b.toString();
    }

    private static String gpuDirect(PcieDistance d) {
        if (d == PcieDistance.P2C) {
            return "yes (over C2C: NCCL >= 2.27, or NCCL_NET_GDR_C2C=1 on 2.26)";
        }
        return d.gpuDirectByDefault() ? "yes" : "no (beyond PXB)";
    }

    private static List<Integer> unpairedGpus(NodeTopologySpec node) {
        Set<Integer> paired = node.pairs().stream().map(GpuHcaPair::gpu).collect(Collectors.toSet());
        List<Integer> out = new ArrayList<>();
        for (Gpu g : node.gpus()) {
            if (!paired.contains(g.index())) {
                out.add(g.index());
            }
        }
        return out;
    }

    private static List<String> unpairedHcas(NodeTopologySpec node) {
        Set<String> taken = node.pairs().stream().map(GpuHcaPair::hca)
                .collect(Collectors.toCollection(HashSet::new));
        node.excluded().forEach(x -> taken.add(x.hca()));
        List<String> out = new ArrayList<>();
        for (Hca h : node.hcas()) {
            if (!taken.contains(h.name())) {
                out.add(h.name());
            }
        }
        return out;
    }

    private static String sourceName(DiscoverySource source) {
        return switch (source) {
            case NVIDIA_SMI -> TopologyFormat.NVIDIA_SMI.cliName();
            case SYSFS -> TopologyFormat.SYSFS.cliName();
            case NCCL_XML -> TopologyFormat.NCCL_XML.cliName();
            case LSPCI -> TopologyFormat.LSPCI.cliName();
        };
    }

    /** Converts {@code --format} values, naming the accepted ones on error. */
    static final class FormatConverter implements CommandLine.ITypeConverter<TopologyFormat> {
        @Override
        public TopologyFormat convert(String value) {
            try {
                return TopologyFormat.fromCliName(value);
            } catch (InputException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /** Converts {@code --output} values, case-insensitively. */
    static final class OutputConverter implements CommandLine.ITypeConverter<Output> {
        @Override
        public Output convert(String value) {
            for (Output o : Output.values()) {
                if (o.name().equalsIgnoreCase(value.strip())) {
                    return o;
                }
            }
            throw new CommandLine.TypeConversionException("unknown output '" + value
                    + "'; expected one of table, json, dot");
        }
    }
}
