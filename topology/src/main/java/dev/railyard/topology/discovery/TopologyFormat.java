package dev.railyard.topology.discovery;

import dev.railyard.topology.InputException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The discovery source formats Railyard reads, with their command-line names, and detection of the format of a
 * given path.
 */
public enum TopologyFormat {
    /** Detect from the path: see {@link #detect(Path)}. */
    AUTO("auto"),
    /** {@code nvidia-smi topo -m} or {@code topo -mp} text, possibly with other transcript lines around it. */
    NVIDIA_SMI("nvidia-smi"),
    /** A sysfs snapshot: a directory, or a {@code .tar.gz} written by {@code railyard topology collect}. */
    SYSFS("sysfs"),
    /** NCCL topology XML ({@code NCCL_TOPO_DUMP_FILE}). */
    NCCL_XML("nccl-xml"),
    /** {@code lspci -tv} bus tree text ({@code -t}, {@code -tvn}, {@code -tvnn} too). */
    LSPCI("lspci");

    /** A line of an {@code lspci -t} drawing that opens a top-level bus: {@code -[0000:00]-} or {@code -+-[0000:00]-}. */
    private static final java.util.regex.Pattern LSPCI_ROOT =
            java.util.regex.Pattern.compile("(?m)^\\s*-(?:\\+-)?\\[[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}\\]-");
    /** An nvidia-smi topo -m header: a line whose first heading is GPU0. */
    private static final java.util.regex.Pattern SMI_HEADER = java.util.regex.Pattern.compile("(?m)^\\s*GPU0\\s");

    /** Bytes read from the start of a file to recognise XML. */
    private static final int SNIFF_BYTES = 4096;
    /** Bytes read from the start of a text file to tell lspci trees from nvidia-smi matrices. */
    private static final int TEXT_SNIFF_BYTES = 256 * 1024;

    private final String cliName;

    TopologyFormat(String cliName) {
        this.cliName = cliName;
    }

    /** @return the name used on the command line ({@code nvidia-smi}) */
    public String cliName() {
        return cliName;
    }

    /**
     * @param name a command-line name ({@code auto}, {@code nvidia-smi}, {@code sysfs}, {@code nccl-xml},
     *             {@code lspci}), case-insensitive
     * @return the format
     * @throws InputException for any other name, listing the accepted ones
     */
    public static TopologyFormat fromCliName(String name) {
        for (TopologyFormat f : values()) {
            if (f.cliName.equalsIgnoreCase(name == null ? "" : name.strip())) {
                return f;
            }
        }
        throw new InputException("unknown topology format '" + name + "'; expected one of "
                + Arrays.stream(values()).map(TopologyFormat::cliName).collect(Collectors.joining(", ")));
    }

    /**
     * Detects the format of a path: a directory, {@code .tar.gz}, {@code .tgz} or {@code .tar} is
     * {@link #SYSFS}; a file whose first non-blank characters are {@code <?xml} or {@code <system} is
     * {@link #NCCL_XML}; a file with an {@code lspci -t} top-level bus line ({@code -[0000:00]-...}) and no
     * {@code nvidia-smi topo -m} header (a line starting {@code GPU0}) in its first 256 KiB is {@link #LSPCI} (a
     * paste with both is read as nvidia-smi, the richer source); any other file is {@link #NVIDIA_SMI} (whose
     * parser then says precisely what is wrong with it).
     *
     * @param input path given by the user
     * @return the format, never {@link #AUTO}
     * @throws InputException when the path does not exist or cannot be read
     */
    public static TopologyFormat detect(Path input) {
        if (!Files.exists(input)) {
            throw new InputException(input + ": no such file or directory");
        }
        if (Files.isDirectory(input)) {
            return SYSFS;
        }
        String name = input.getFileName() == null ? "" : input.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".tar.gz") || name.endsWith(".tgz") || name.endsWith(".tar")) {
            return SYSFS;
        }
        byte[] head;
        try (InputStream in = Files.newInputStream(input)) {
            head = in.readNBytes(TEXT_SNIFF_BYTES);
        } catch (IOException e) {
            throw new InputException(input + ": cannot read (" + e.getMessage() + ")", e);
        }
        String text = new String(head, StandardCharsets.UTF_8).replace("\uFEFF", "");
        String start = text.substring(0, Math.min(text.length(), SNIFF_BYTES)).stripLeading();
        if (start.startsWith("<?xml") || start.startsWith("<system")) {
            return NCCL_XML;
        }
        if (LSPCI_ROOT.matcher(text).find() && !SMI_HEADER.matcher(text).find()) {
            return LSPCI;
        }
        return NVIDIA_SMI;
    }
}
