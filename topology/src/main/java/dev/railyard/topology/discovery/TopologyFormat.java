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
    NCCL_XML("nccl-xml");

    /** Bytes read from the start of a file to recognise XML. */
    private static final int SNIFF_BYTES = 4096;

    private final String cliName;

    TopologyFormat(String cliName) {
        this.cliName = cliName;
    }

    /** @return the name used on the command line ({@code nvidia-smi}) */
    public String cliName() {
        return cliName;
    }

    /**
     * @param name a command-line name ({@code auto}, {@code nvidia-smi}, {@code sysfs}, {@code nccl-xml}),
     *             case-insensitive
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
     * {@link #NCCL_XML}; any other file is {@link #NVIDIA_SMI} (whose parser then says precisely what is wrong
     * with it).
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
            head = in.readNBytes(SNIFF_BYTES);
        } catch (IOException e) {
            throw new InputException(input + ": cannot read (" + e.getMessage() + ")", e);
        }
        String start = new String(head, StandardCharsets.UTF_8).replace("\uFEFF", "").stripLeading();
        if (start.startsWith("<?xml") || start.startsWith("<system")) {
            return NCCL_XML;
        }
        return NVIDIA_SMI;
    }
}
