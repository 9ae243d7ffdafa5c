package dev.railyard.topology;

import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.topology.discovery.DumpText;
import dev.railyard.topology.discovery.NvidiaSmiTopoParser;
import dev.railyard.topology.discovery.TopologyFormat;
import dev.railyard.topology.discovery.TopologyParser;
import dev.railyard.topology.discovery.lspci.LspciTopologyParser;
import dev.railyard.topology.discovery.nccl.NcclTopoXmlParser;
import dev.railyard.topology.discovery.sysfs.SysfsTopologyParser;
import dev.railyard.topology.pairing.RailPairing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Reads a node's discovery data into a paired node model: detect the format, parse, pair GPUs with HCAs.
 *
 * <pre>{@code
 * NodeTopologySpec node = new TopologyReader().read(Path.of("topo.txt"), TopologyFormat.AUTO);
 * node.pairs();     // the rail map
 * node.excluded();  // HCAs that are not rails, with the reason
 * }</pre>
 * Thread-safe: parsers are created per call.
 */
public final class TopologyReader {
    private final Map<TopologyFormat, Supplier<TopologyParser>> parsers;
    private final RailPairing pairing = new RailPairing();

    /** A reader with every parser this build has. */
    public TopologyReader() {
        this(defaultParsers());
    }

    /**
     * @param parsers a parser factory per format (tests, or a build with more formats)
     */
    public TopologyReader(Map<TopologyFormat, Supplier<TopologyParser>> parsers) {
        Map<TopologyFormat, Supplier<TopologyParser>> copy = new EnumMap<>(TopologyFormat.class);
        copy.putAll(parsers);
        this.parsers = Collections.unmodifiableMap(copy);
    }

    /** @return the parser factory per format of this build */
    public static Map<TopologyFormat, Supplier<TopologyParser>> defaultParsers() {
        Map<TopologyFormat, Supplier<TopologyParser>> m = new EnumMap<>(TopologyFormat.class);
        m.put(TopologyFormat.NVIDIA_SMI, NvidiaSmiTopoParser::new);
        m.put(TopologyFormat.SYSFS, SysfsTopologyParser::new);
        m.put(TopologyFormat.NCCL_XML, NcclTopoXmlParser::new);
        m.put(TopologyFormat.LSPCI, LspciTopologyParser::new);
        return m;
    }

    /**
     * Detects, parses and pairs.
     *
     * @param input  a file (nvidia-smi text, NCCL XML, lspci -tv text), a directory or {@code .tar.gz} (sysfs
     *               snapshot)
     * @param format the format, or {@link TopologyFormat#AUTO} to detect it ({@link TopologyFormat#detect(Path)})
     * @return the node model with {@code pairs} and {@code excluded} filled in; {@code complete == false} with
     *         warnings when the input was damaged but usable
     * @throws InputException when nothing usable can be read (the message names file, line and column), or this
     *                        build has no parser for the format
     */
    public NodeTopologySpec read(Path input, TopologyFormat format) {
        Objects.requireNonNull(input, "input");
        if (Files.exists(input) && !Files.isRegularFile(input) && !Files.isDirectory(input)) {
            return readStream(input, format);
        }
        return readFile(input, format);
    }

    private NodeTopologySpec readFile(Path input, TopologyFormat format) {
        TopologyFormat f = format == null || format == TopologyFormat.AUTO ? TopologyFormat.detect(input) : format;
        Supplier<TopologyParser> parser = parsers.get(f);
        if (parser == null) {
            throw new InputException(input + ": the " + f.cliName() + " format is not supported by this build");
        }
        return pairing.pair(parser.get().parse(input));
    }

    /**
     * A pipe or device ({@code nvidia-smi topo -m | railyard topology pair /dev/stdin}, {@code <(cmd)}) can be read
     * only once, and detecting the format reads its start: it is read once, up to the text limit, into a temporary
     * file that is detected and parsed in its place; messages and warnings name the input, not the copy.
     */
    private NodeTopologySpec readStream(Path input, TopologyFormat format) {
        byte[] bytes = DumpText.read(input, NvidiaSmiTopoParser.MAX_INPUT_BYTES);
        Path dir = null;
        try {
            dir = Files.createTempDirectory("railyard-topology-");
            // a gzip stream (a `topology collect` archive) is detected by name, so the copy gets the archive's
            boolean gzip = bytes.length > 1 && bytes[0] == (byte) 0x1f && bytes[1] == (byte) 0x8b;
            Path copy = Files.write(dir.resolve(gzip ? "input.tar.gz" : "input"), bytes);
            String from = copy.toString();
            try {
                NodeTopologySpec s = readFile(copy, format);
                List<String> warnings = s.warnings().stream().map(w -> w.replace(from, input.toString())).toList();
                return new NodeTopologySpec(s.source(), s.complete(), warnings, s.gpus(), s.hcas(), s.pcieBridges(),
                        s.numaNodes(), s.distances(), s.pairs(), s.excluded(), s.locality());
            } catch (InputException e) {
                throw new InputException(e.getMessage().replace(from, input.toString()), e);
            }
        } catch (IOException e) {
            throw new InputException(input + ": cannot copy it for reading (" + InputException.reason(e) + ")", e);
        } finally {
            deleteQuietly(dir);
        }
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null) {
            return;
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException | java.io.UncheckedIOException e) {
            // a temporary directory left behind is not worth failing the read for
        }
    }
}
