package dev.railyard.topology.discovery;

import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.topology.InputException;

import java.nio.file.Path;

/**
 * Reads {@code nvidia-smi topo -m} (and {@code topo -mp}) text into the node model: GPUs with NUMA node and NVLink
 * peers, HCAs, and the GPU–HCA distance classes. {@code pairs} and {@code excluded} are left empty.
 *
 * <p>Format (nvidia-smi man page; real outputs in {@code docs/formats/node-topology.md} §1 and the fixtures): a header
 * row of column headings ({@code GPU0 .. GPUn}, then {@code NIC0 ..} or, in older drivers, the HCA names
 * {@code mlx5_0 ..}, then {@code CPU Affinity}, {@code NUMA Affinity}, {@code GPU NUMA ID} as present), one row per
 * device with {@code X} on the diagonal and {@code NV#}, {@code PIX}, {@code PXB}, {@code PHB}, {@code NODE},
 * {@code SYS} (old drivers: {@code SOC} = SYS) elsewhere, then a {@code Legend:} and, in newer drivers, a
 * {@code NIC Legend:} mapping {@code NICk} to the RDMA device name.
 *
 * <p>How the text is read:
 * <ul>
 *   <li>The header is the first line whose first heading is {@code GPU0} followed by column headings (not cells)
 *       that is followed by at least one matrix row; everything before it (prompts, warnings) is ignored except
 *       nvidia-smi's {@code "N NICs found in the topology, only displaying M"} note. The matrix ends at the first
 *       line that is neither blank nor a row. <b>Only the first matrix of a file is read</b>; a later one is
 *       reported in a warning.</li>
 *   <li>Columns are mapped by heading name, never by assumed order. Cells are split on tabs and spaces alike;
 *       multi-word headings are recognised by name. Known tokens glued together ({@code PIXNODE}) are split.
 *       ANSI escapes and carriage returns are removed first.</li>
 *   <li>A row is placed cell by cell only when its cell count and its {@code X} (self) cell agree with the header.
 *       A row that simply stops early is placed as far as it goes. Otherwise the cells on each side of the
 *       {@code X} are aligned separately; a side off by one cell is aligned using the symmetric cells of the other
 *       rows, keeping only the values every consistent alignment agrees on. Nothing is ever shifted into a wrong
 *       column: a cell that cannot be placed with certainty stays unknown.</li>
 *   <li>GPU–HCA distances come from the GPU row, or from the HCA row's symmetric cell when the GPU row lacks
 *       it; when both exist and disagree, a warning names both places and the value from an undamaged row
 *       (else the GPU row) is used.</li>
 *   <li>{@code ibv_devinfo} / {@code ibdev2netdev} lines anywhere in the file give HCA port state, link layer,
 *       netdevs and bus ids ({@link HcaPortListing}); {@code nvidia-smi -L} and {@code --query-gpu} CSV lines give
 *       GPU models, UUIDs and bus ids (normalized to sysfs form). Without a NIC Legend, HCAs keep the column
 *       names {@code NICk}; port states of {@code mlx5_k} are then applied to {@code NICk}, an assumption the
 *       warnings state.</li>
 *   <li>HCA NUMA nodes are inferred from GPUs at PIX..NODE distance (same NUMA node by definition of those
 *       classes).</li>
 * </ul>
 * Any damage (row cut short, unknown token, glued or misaligned cells, missing or duplicate row, disagreeing
 * rows, NICs hidden by nvidia-smi) yields {@code complete == false} with one warning per problem in the form
 * {@code file:line:column: message}; columns count characters of the line after ANSI escapes are removed.
 *
 * <p>Affinity columns: {@code NUMA Affinity} gives each GPU's NUMA node (on Grace hosts a list whose first entry is
 * the CPU's node); a number in {@code GPU NUMA ID} marks a GPU attached over NVLink-C2C ({@link MatrixModel}).
 * nvidia-smi prints SYS between such a GPU and every NIC and no NIC affinity, so on Grace hosts this source cannot
 * tell which NIC is near which GPU: the pairing says so ({@code dev.railyard.topology.pairing.RailPairing}).
 *
 * <p>The work is split by job: {@link MatrixPass} finds the header and the matrix and holds the state,
 * {@link MatrixRows} reads and aligns rows, {@link MatrixModel} builds the node model. Stateless and thread-safe;
 * parsing an 8-GPU/8-NIC dump takes tens of microseconds.
 */
public final class NvidiaSmiTopoParser implements TopologyParser {
    /** Largest file accepted, in bytes (64 MiB); real dumps are a few KiB. */
    public static final long MAX_INPUT_BYTES = 64L << 20;

    @Override
    public NodeTopologySpec parse(Path input) {
        byte[] bytes = DumpText.read(input, MAX_INPUT_BYTES);
        return parseText(input.toString(), DumpText.decode(input.toString(), bytes));
    }

    /**
     * Parses dump text already in memory.
     *
     * @param source name used in warnings and errors (normally the file path)
     * @param text   the dump
     * @return the parsed model, {@code pairs} and {@code excluded} empty
     * @throws InputException when there is no usable matrix; the message names source, line and column
     */
    public NodeTopologySpec parseText(String source, String text) {
        return new MatrixPass(source, DumpText.lines(text)).run();
    }
}
