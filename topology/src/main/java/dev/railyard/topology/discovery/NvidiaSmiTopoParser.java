package dev.railyard.topology.discovery;

import dev.railyard.api.topology.DiscoverySource;
import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaDistance;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.HcaPort;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.NumaNode;
import dev.railyard.api.topology.NvLink;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.topology.InputException;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code nvidia-smi topo -m} (and {@code topo -mp}) text into the node model: GPUs with NUMA node and NVLink
 * peers, HCAs, and the GPU–HCA distance classes. {@code pairs} and {@code excluded} are left empty.
 *
 * <p>Format (nvidia-smi man page; real outputs in {@code design/data-formats.md} §5.1 and the fixtures): a header
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
 * <p>Stateless and thread-safe; parsing an 8-GPU/8-NIC dump takes tens of microseconds.
 */
public final class NvidiaSmiTopoParser implements TopologyParser {
    /** Largest file accepted, in bytes (64 MiB); real dumps are a few KiB. */
    public static final long MAX_INPUT_BYTES = 64L << 20;

    private static final Pattern HEADER_TOKEN =
            Pattern.compile("CPU\\s+Affinity|NUMA\\s+Affinity|GPU\\s+NUMA\\s+ID|\\S+");
    private static final Pattern TOKEN = Pattern.compile("\\S+");
    private static final Pattern BLANKS = Pattern.compile("\\s+");
    private static final Pattern GPU_COLUMN = Pattern.compile("GPU(\\d+)");
    private static final Pattern NIC_COLUMN = Pattern.compile("NIC(\\d+)");
    private static final Pattern GLUED_HEADINGS = Pattern.compile("(?:(?:GPU|NIC)\\d+){2,}");
    private static final Pattern ONE_HEADING = Pattern.compile("(?:GPU|NIC)\\d+");
    /** A device heading: a name with a digit in it ({@code NIC3}, {@code mlx5_0}, {@code rocep1s0f0}). */
    private static final Pattern DEVICE_NAME =
            Pattern.compile("(?=[^\\d]*\\d)[A-Za-z][A-Za-z0-9]*(?:[_.:-][A-Za-z0-9]+)*");
    private static final Pattern HIDDEN_NICS =
            Pattern.compile("(\\d+) NICs found in the topology, only displaying (\\d+)");
    private static final Pattern LEGEND_ENTRY = Pattern.compile("\\s*NIC(\\d+)\\s*:\\s*(\\S+)\\s*");
    private static final Pattern MLX5 = Pattern.compile("mlx5_(\\d+)");
    private static final Pattern TOPO_MP = Pattern.compile("topo\\s+(?:-mp\\b|--matrix_pci\\b)");
    private static final String FAILED = "Failed to run topology matrix";
    private static final String CPU_AFFINITY = "CPU Affinity";
    private static final String NUMA_AFFINITY = "NUMA Affinity";

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
        return new Pass(source, DumpText.lines(text)).run();
    }

    // ---------------------------------------------------------------------------------------------------------

    /** One matrix cell value. {@code distance} for PCIe classes, {@code nvlinks > 0} for NV#, {@code self} for X. */
    private record Cell(PcieDistance distance, int nvlinks, boolean self) {
        static final Cell SELF = new Cell(null, 0, true);

        private static final Cell PIX = new Cell(PcieDistance.PIX, 0, false);
        private static final Cell PXB = new Cell(PcieDistance.PXB, 0, false);
        private static final Cell PHB = new Cell(PcieDistance.PHB, 0, false);
        private static final Cell NODE = new Cell(PcieDistance.NODE, 0, false);
        private static final Cell SYS = new Cell(PcieDistance.SYS, 0, false);
        private static final String[] WORDS = {"PIX", "PXB", "PHB", "NODE", "SYS", "SOC"};
        private static final Cell[] WORD_CELLS = {PIX, PXB, PHB, NODE, SYS, SYS};

        /**
         * @return the length of the cell token ({@code X}, {@code NV#}, {@code PIX}, {@code PXB}, {@code PHB},
         *         {@code NODE}, {@code SYS}, old {@code SOC}) starting at {@code pos}, or 0 when none starts there
         */
        static int length(String t, int pos) {
            if (t.startsWith("X", pos)) {
                return 1;
            }
            for (String w : WORDS) {
                if (t.startsWith(w, pos)) {
                    return w.length();
                }
            }
            if (t.startsWith("NV", pos)) {
                int end = pos + 2;
                while (end < t.length() && end < pos + 6 && Character.isDigit(t.charAt(end))) {
                    end++;
                }
                return end > pos + 2 ? end - pos : 0;
            }
            return 0;
        }

        /** @return true when the whole text is one cell token */
        static boolean is(String t) {
            return !t.isEmpty() && length(t, 0) == t.length();
        }

        /** @param t exactly one cell token, as checked by {@link #length} */
        static Cell of(String t) {
            if (t.equals("X")) {
                return SELF;
            }
            for (int i = 0; i < WORDS.length; i++) {
                if (t.equals(WORDS[i])) {
                    return WORD_CELLS[i];
                }
            }
            return new Cell(null, Integer.parseInt(t.substring(2)), false);
        }

        /** @return true for the affinity columns' values: CPU lists ({@code 0-47,96-143}), NUMA ids, {@code N/A} */
        static boolean isTailValue(String t) {
            if (t.equals("N/A")) {
                return true;
            }
            if (t.isEmpty() || !Character.isDigit(t.charAt(0)) || !Character.isDigit(t.charAt(t.length() - 1))) {
                return false;
            }
            for (int i = 0; i < t.length(); i++) {
                char c = t.charAt(i);
                if (!Character.isDigit(c) && c != ',' && c != '-') {
                    return false;
                }
            }
            return true;
        }

        @Override
        public String toString() {
            return self ? "X" : distance != null ? distance.name() : "NV" + nvlinks;
        }
    }

    /** A token of a row: text, 1-based column, the cell it denotes (null when not a cell token). */
    private record Tok(String text, int col, Cell cell) {
        boolean isSelf() {
            return cell != null && cell.self();
        }

        int endCol() {
            return col + text.length();
        }
    }

    /** A header column: device name, position, GPU index or -1. */
    private record Column(String name, int index, int gpuIndex, int col) {
        boolean isGpu() {
            return gpuIndex >= 0;
        }
    }

    private record Header(int lineIdx, List<Column> columns, List<String> tailNames) {
    }

    private static final Header NO_HEADER = new Header(-1, List.of(), List.of());

    private static final class RowDraft {
        final Column self;
        final int lineNo;
        final int labelEndCol;
        final List<Tok> matrix;
        final List<Tok> tail;
        final Cell[] cells;
        final int[] cellCols;
        boolean clean = true;

        RowDraft(Column self, int lineNo, int labelEndCol, List<Tok> matrix, List<Tok> tail, int n) {
            this.self = self;
            this.lineNo = lineNo;
            this.labelEndCol = labelEndCol;
            this.matrix = matrix;
            this.tail = tail;
            this.cells = new Cell[n];
            this.cellCols = new int[n];
        }
    }

    private record Pending(RowDraft row, List<Tok> toks, int[] cols) {
    }

    /** One parse of one text; not reused. */
    private static final class Pass {
        private final String source;
        private final List<String> lines;
        private final List<String> warnings = new ArrayList<>();
        private final List<Pending> pending = new ArrayList<>();
        private boolean damaged;
        private boolean hcaNamesFromLegend;
        private List<Column> columns;
        private Map<String, Column> byName;
        private RowDraft[] rows;
        /** header(i) results: null = not computed yet, NO_HEADER = not a header. */
        private final Header[] headers;

        Pass(String source, List<String> lines) {
            this.source = source;
            this.lines = lines;
            this.headers = new Header[lines.size()];
        }

        NodeTopologySpec run() {
            Header header = null;
            Header firstCandidate = null;
            int matrixEnd = -1;
            int lastRowIdx = -1;
            for (int i = 0; i < lines.size() && header == null; i++) {
                Header h = header(i);
                if (h == null) {
                    continue;
                }
                if (firstCandidate == null) {
                    firstCandidate = h;
                }
                int[] end = new int[2];
                if (hasRow(h, end)) {
                    header = h;
                    matrixEnd = end[0];
                    lastRowIdx = end[1];
                }
            }
            if (header == null) {
                throw noMatrix(firstCandidate);
            }
            columns = header.columns();
            byName = new HashMap<>();
            for (Column c : columns) {
                byName.put(c.name(), c);
            }
            readNotes(header.lineIdx());
            rows = new RowDraft[columns.size()];
            readRows(header, matrixEnd);
            for (RowDraft r : rows) {
                if (r != null) {
                    align(r);
                }
            }
            for (Pending p : pending) {
                resolve(p);
            }
            return build(header, lastRowIdx);
        }

        // ----- header ------------------------------------------------------------------------------------

        private Header header(int idx) {
            Header h = headers[idx];
            if (h == null) {
                h = readHeader(idx);
                headers[idx] = h == null ? NO_HEADER : h;
            }
            return h == NO_HEADER ? null : h;
        }

        private Header readHeader(int idx) {
            String line = lines.get(idx);
            int start = 0;
            while (start < line.length() && Character.isWhitespace(line.charAt(start))) {
                start++;
            }
            if (!line.startsWith("GPU0", start)) {
                return null;
            }
            List<String[]> tokens = new ArrayList<>();  // {text, col}
            Matcher m = HEADER_TOKEN.matcher(line);
            while (m.find()) {
                String t = m.group();
                if (t.indexOf(' ') >= 0 || t.indexOf('\t') >= 0) {
                    t = BLANKS.matcher(t).replaceAll(" ");
                }
                if (GLUED_HEADINGS.matcher(t).matches()) {
                    Matcher part = ONE_HEADING.matcher(t);
                    while (part.find()) {
                        tokens.add(new String[]{part.group(), String.valueOf(m.start() + part.start() + 1)});
                    }
                } else {
                    tokens.add(new String[]{t, String.valueOf(m.start() + 1)});
                }
            }
            if (tokens.isEmpty() || !tokens.get(0)[0].equals("GPU0")) {
                return null;
            }
            List<Column> cols = new ArrayList<>();
            List<String> tail = new ArrayList<>();
            boolean gpusDone = false;
            for (String[] tok : tokens) {
                String t = tok[0];
                int col = Integer.parseInt(tok[1]);
                if (!tail.isEmpty() || isTailName(t)) {
                    tail.add(t);
                    continue;
                }
                if (Cell.is(t) || !DEVICE_NAME.matcher(t).matches()) {
                    return null;
                }
                Matcher g = GPU_COLUMN.matcher(t);
                if (g.matches()) {
                    if (gpusDone) {
                        return null;
                    }
                    cols.add(new Column(t, cols.size(), Integer.parseInt(g.group(1)), col));
                } else {
                    gpusDone = true;
                    cols.add(new Column(t, cols.size(), -1, col));
                }
            }
            if (!gpusDone && tail.isEmpty()) {
                // GPU columns only and no affinity columns: another GPU matrix (topo -p2p, nvlink), not topo -m
                return null;
            }
            Map<String, Column> seen = new HashMap<>();
            for (Column c : cols) {
                Column before = seen.putIfAbsent(c.name(), c);
                if (before != null) {
                    throw new InputException(String.format("%s:%d:%d: column heading %s appears twice in the "
                            + "header (first at column %d); the matrix is ambiguous", source, idx + 1, c.col(),
                            c.name(), before.col()));
                }
            }
            return new Header(idx, List.copyOf(cols), List.copyOf(tail));
        }

        private static boolean isTailName(String t) {
            return t.contains("Affinity") || t.equals("GPU NUMA ID");
        }

        /** @return true when a matrix row follows; sets end[0] = first line after the matrix, end[1] = last row */
        private boolean hasRow(Header h, int[] end) {
            Map<String, Column> names = new HashMap<>();
            h.columns().forEach(c -> names.put(c.name(), c));
            int i = h.lineIdx() + 1;
            int last = -1;
            while (i < lines.size()) {
                String line = lines.get(i);
                if (line.isBlank()) {
                    i++;
                    continue;
                }
                String label = firstToken(line);
                if (label != null && names.containsKey(label) && header(i) == null) {
                    last = i;
                    i++;
                    continue;
                }
                if (label != null && ONE_HEADING.matcher(label).matches() && secondIsCell(line)) {
                    last = i;  // a row whose device is not in the header; reported by readRows
                    i++;
                    continue;
                }
                break;
            }
            end[0] = last < 0 ? h.lineIdx() + 1 : last + 1;
            end[1] = last;
            return last >= 0;
        }

        private static String firstToken(String line) {
            Matcher m = TOKEN.matcher(line);
            return m.find() ? m.group() : null;
        }

        private static boolean secondIsCell(String line) {
            Matcher m = TOKEN.matcher(line);
            return m.find() && m.find() && Cell.length(m.group(), 0) > 0;
        }

        private InputException noMatrix(Header candidate) {
            if (candidate != null) {
                int next = candidate.lineIdx() + 1;
                while (next < lines.size() && lines.get(next).isBlank()) {
                    next++;
                }
                String found = next < lines.size() ? "'" + abbreviate(lines.get(next).strip()) + "'" : "end of file";
                return new InputException(String.format("%s:%d:1: expected a matrix row (GPU0 followed by its "
                        + "cells) after the header at line %d; found %s", source, next + 1,
                        candidate.lineIdx() + 1, found));
            }
            for (int i = 0; i < lines.size(); i++) {
                int at = lines.get(i).indexOf(FAILED);
                if (at >= 0) {
                    return new InputException(String.format("%s:%d:%d: nvidia-smi reported \"%s\": the dump has "
                            + "no matrix, GPU-HCA locality is unknown (read the node's sysfs instead)", source, i + 1,
                            at + 1, FAILED));
                }
            }
            if (lines.stream().allMatch(String::isBlank)) {
                return new InputException(source + ":1:1: empty file, no nvidia-smi topo -m matrix");
            }
            return new InputException(String.format("%s:1:1: no nvidia-smi topo -m header row (column headings "
                    + "GPU0 GPU1 ... NIC0 ... CPU Affinity) in %d lines", source, lines.size()));
        }

        private void readNotes(int headerIdx) {
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                Matcher m = line.contains("NICs found") ? HIDDEN_NICS.matcher(line) : null;
                if (m != null && m.find()) {
                    damaged = true;
                    warn(i + 1, m.start() + 1, "nvidia-smi shows only " + m.group(2) + " of " + m.group(1)
                            + " NICs; the hidden NICs' distances are unknown (not absent, not far)");
                }
                if (i < headerIdx && line.contains("topo")) {
                    Matcher mp = TOPO_MP.matcher(line);
                    if (mp.find()) {
                        warn(i + 1, mp.start() + 1, "matrix from nvidia-smi topo -mp: GPU-GPU cells are PCIe "
                                + "classes, so NVLink peers are unknown, not absent");
                    }
                }
            }
        }

        // ----- rows --------------------------------------------------------------------------------------

        private void readRows(Header h, int matrixEnd) {
            for (int i = h.lineIdx() + 1; i < matrixEnd; i++) {
                String line = lines.get(i);
                if (line.isBlank()) {
                    continue;
                }
                Matcher m = TOKEN.matcher(line);
                if (!m.find()) {
                    continue;
                }
                String label = m.group();
                Column self = byName.get(label);
                if (self == null) {
                    damaged = true;
                    warn(i + 1, m.start() + 1, "row " + label + " is not a column of the header; ignored");
                    continue;
                }
                if (rows[self.index()] != null) {
                    damaged = true;
                    warn(i + 1, m.start() + 1, "second row for " + label + " (first at line "
                            + rows[self.index()].lineNo + "); ignored");
                    continue;
                }
                rows[self.index()] = tokenize(line, i + 1, self, m.end());
            }
        }

        private RowDraft tokenize(String line, int lineNo, Column self, int labelEnd) {
            boolean tabbed = line.indexOf('\t') >= 0;
            List<Tok> all = new ArrayList<>();
            List<String> repairs = new ArrayList<>();
            List<Integer> repairCols = new ArrayList<>();
            Matcher m = TOKEN.matcher(line);
            m.region(labelEnd, line.length());
            int prevEnd = labelEnd;
            String prevText = null;
            boolean inTail = false;
            while (m.find()) {
                String text = m.group();
                int start = m.start();
                boolean sharesField = tabbed && prevText != null && !hasTab(line, prevEnd, start);
                prevEnd = m.end();
                if (!inTail && Cell.isTailValue(text)) {
                    inTail = true;
                }
                if (inTail) {
                    all.add(new Tok(text, start + 1, null));
                    prevText = text;
                    continue;
                }
                if (sharesField) {
                    repairs.add("cells '" + prevText + "' and '" + text + "' share one tab-separated field; read "
                            + "as two cells");
                    repairCols.add(start + 1);
                }
                List<Tok> parts = splitCells(text, start + 1);
                if (parts.size() > 1) {
                    repairs.add("cells glued together as '" + text + "'; read as "
                            + String.join(", ", parts.stream().map(Tok::text).toList()));
                    repairCols.add(start + 1);
                }
                all.addAll(parts);
                prevText = text;
            }
            int split = 0;
            while (split < all.size() && (all.get(split).cell() != null
                    || !Cell.isTailValue(all.get(split).text()))) {
                split++;
            }
            RowDraft r = new RowDraft(self, lineNo, labelEnd + 1, List.copyOf(all.subList(0, split)),
                    List.copyOf(all.subList(split, all.size())), columns.size());
            for (int k = 0; k < repairs.size(); k++) {
                damaged = true;
                r.clean = false;
                warn(lineNo, repairCols.get(k), "row " + self.name() + ": " + repairs.get(k));
            }
            return r;
        }

        private static boolean hasTab(String line, int from, int to) {
            for (int i = from; i < to; i++) {
                if (line.charAt(i) == '\t') {
                    return true;
                }
            }
            return false;
        }

        /** Splits a token into known cell tokens; a single invalid token when it is not made of them. */
        private static List<Tok> splitCells(String text, int col) {
            int len = Cell.length(text, 0);
            if (len == text.length()) {
                return List.of(new Tok(text, col, Cell.of(text)));
            }
            List<Tok> parts = new ArrayList<>();
            int pos = 0;
            while (pos < text.length()) {
                len = Cell.length(text, pos);
                if (len == 0) {
                    return List.of(new Tok(text, col, null));
                }
                String part = text.substring(pos, pos + len);
                parts.add(new Tok(part, col + pos, Cell.of(part)));
                pos += len;
            }
            return parts;
        }

        private void align(RowDraft r) {
            int n = columns.size();
            int c = r.self.index();
            List<Tok> t = r.matrix;
            int k = t.size();
            boolean hasTail = !r.tail.isEmpty();
            List<Integer> xs = new ArrayList<>();
            for (int i = 0; i < k; i++) {
                if (t.get(i).isSelf()) {
                    xs.add(i);
                }
            }
            boolean xAtSelf = xs.size() == 1 && xs.getFirst() == c;
            if (k == n && (xAtSelf || (xs.isEmpty() && t.get(c).cell() == null))) {
                for (int i = 0; i < n; i++) {
                    place(r, t.get(i), i);
                }
                return;
            }
            if (k < n && !hasTail && (xAtSelf || (xs.isEmpty() && k <= c))) {
                for (int i = 0; i < k; i++) {
                    place(r, t.get(i), i);
                }
                damaged = true;
                r.clean = false;
                warn(r.lineNo, k == 0 ? r.labelEndCol : t.get(k - 1).endCol(), "row " + r.self.name() + " ends after "
                        + k + " of " + n + " cells (row cut short); " + columnNames(range(k, n)) + " unknown");
                return;
            }
            damaged = true;
            r.clean = false;
            String xNote = xAtSelf ? "" : xs.size() == 1 ? ", its X (self) cell is cell " + (xs.getFirst() + 1)
                    + " instead of " + (c + 1) : xs.isEmpty() ? " and no X (self) cell" : " and " + xs.size()
                    + " X cells";
            warn(r.lineNo, k == 0 ? r.labelEndCol : t.getFirst().col(), "row " + r.self.name() + " has " + k
                    + " cells for " + n + " columns" + xNote + "; aligning on the X cell and the symmetric cells"
                    + " of the other rows");
            if (xs.size() == 1) {
                int p = xs.getFirst();
                r.cells[c] = Cell.SELF;
                r.cellCols[c] = t.get(p).col();
                segment(r, t.subList(0, p), range(0, c), false);
                segment(r, t.subList(p + 1, k), range(c + 1, n), !hasTail);
            } else if (xs.isEmpty()) {
                int[] cols = new int[n - 1];
                for (int i = 0, j = 0; i < n; i++) {
                    if (i != c) {
                        cols[j++] = i;
                    }
                }
                segment(r, t, cols, false);
            }
        }

        private void segment(RowDraft r, List<Tok> toks, int[] cols, boolean mayBeCut) {
            if (toks.size() == cols.length || (mayBeCut && toks.size() < cols.length)) {
                for (int i = 0; i < toks.size(); i++) {
                    place(r, toks.get(i), cols[i]);
                }
                return;
            }
            if (Math.abs(toks.size() - cols.length) == 1) {
                pending.add(new Pending(r, List.copyOf(toks), cols));
                return;
            }
            warn(r.lineNo, toks.isEmpty() ? r.labelEndCol : toks.getFirst().col(), "row " + r.self.name() + ": "
                    + toks.size() + " cells for the " + cols.length + " columns " + columnNames(cols)
                    + " cannot be aligned; left unknown");
        }

        private void place(RowDraft r, Tok tok, int col) {
            if (tok.cell() == null || (tok.isSelf() != (col == r.self.index()))) {
                damaged = true;
                r.clean = false;
                warn(r.lineNo, tok.col(), "row " + r.self.name() + ": unknown cell '" + tok.text() + "' in column "
                        + columns.get(col).name() + "; treated as unknown");
                return;
            }
            r.cells[col] = tok.cell();
            r.cellCols[col] = tok.col();
        }

        /** Aligns a segment one cell short or long using the other rows' symmetric cells. */
        private void resolve(Pending p) {
            RowDraft r = p.row();
            List<Tok> toks = p.toks();
            int[] cols = p.cols();
            int m = toks.size();
            int l = cols.length;
            List<Tok[]> consistent = new ArrayList<>();
            int alternatives = m < l ? l : m;
            for (int q = 0; q < alternatives; q++) {
                Tok[] at = new Tok[l];
                for (int i = 0, j = 0; i < m; i++) {
                    if (m < l) {
                        at[i < q ? i : i + 1] = toks.get(i);
                    } else if (i != q) {
                        at[j++] = toks.get(i);
                    }
                }
                boolean ok = true;
                for (int idx = 0; idx < l && ok; idx++) {
                    Tok tok = at[idx];
                    if (tok == null || tok.cell() == null) {
                        continue;
                    }
                    Cell sym = symmetric(r.self.index(), cols[idx]);
                    ok = !tok.isSelf() && (sym == null || sym.equals(tok.cell()));
                }
                if (ok) {
                    consistent.add(at);
                }
            }
            int first = toks.isEmpty() ? r.labelEndCol : toks.getFirst().col();
            if (consistent.isEmpty()) {
                warn(r.lineNo, first, "row " + r.self.name() + ": no alignment of the cells for "
                        + columnNames(cols) + " agrees with the other rows; left unknown");
                return;
            }
            int placed = 0;
            for (int idx = 0; idx < l; idx++) {
                Tok v = consistent.getFirst()[idx];
                boolean agreed = v != null && v.cell() != null;
                for (int a = 1; a < consistent.size() && agreed; a++) {
                    Tok other = consistent.get(a)[idx];
                    agreed = other != null && Objects.equals(other.cell(), v.cell());
                }
                if (agreed) {
                    r.cells[cols[idx]] = v.cell();
                    r.cellCols[cols[idx]] = v.col();
                    placed++;
                }
            }
            warn(r.lineNo, first, "row " + r.self.name() + ": " + placed + " of " + l + " cells for "
                    + columnNames(cols) + " placed where all " + consistent.size() + " alignments consistent with"
                    + " the other rows agree; the rest unknown");
        }

        private Cell symmetric(int row, int col) {
            RowDraft other = rows[col];
            return other == null ? null : other.cells[row];
        }

        // ----- model ---------------------------------------------------------------------------------------

        private NodeTopologySpec build(Header header, int lastRowIdx) {
            List<Column> gpuCols = columns.stream().filter(Column::isGpu).toList();
            List<Column> hcaCols = columns.stream().filter(c -> !c.isGpu()).toList();
            reportMissingRows(header);

            // NIC Legend and HCA names
            int nextHeader = nextHeaderAfter(lastRowIdx);
            String[] hcaNames = hcaNames(hcaCols, lastRowIdx + 1, nextHeader);

            // distances, reconciling GPU rows with HCA rows
            PcieDistance[][] dist = new PcieDistance[gpuCols.size()][hcaCols.size()];
            for (int gi = 0; gi < gpuCols.size(); gi++) {
                Column g = gpuCols.get(gi);
                List<String> recovered = new ArrayList<>();
                for (int hi = 0; hi < hcaCols.size(); hi++) {
                    Column h = hcaCols.get(hi);
                    PcieDistance a = pcie(g, h);
                    PcieDistance b = pcie(h, g);
                    if (a != null && b != null && a != b) {
                        damaged = true;
                        RowDraft gr = rows[g.index()];
                        RowDraft hr = rows[h.index()];
                        boolean useHcaRow = !gr.clean && hr.clean;
                        String named = h.name().equals(hcaNames[hi]) ? h.name()
                                : h.name() + " (" + hcaNames[hi] + ")";
                        warn(gr.lineNo, gr.cellCols[h.index()], "row " + g.name() + " says " + a + " to " + named
                                + " but row " + h.name() + " (line " + hr.lineNo + ", column " + hr.cellCols[g.index()]
                                + ") says " + b + "; using " + (useHcaRow ? b + " from the undamaged " + h.name()
                                + " row" : a + " from the GPU row"));
                        dist[gi][hi] = useHcaRow ? b : a;
                    } else {
                        dist[gi][hi] = a != null ? a : b;
                        if (a == null && b != null && rows[g.index()] != null) {
                            recovered.add(hcaNames[hi]);
                        }
                    }
                }
                if (!recovered.isEmpty()) {
                    warn(rows[g.index()].lineNo, rows[g.index()].labelEndCol, g.name() + ": distances to "
                            + String.join(", ", recovered) + " taken from the symmetric cells of the HCA rows");
                }
            }

            // NUMA and CPU affinity from the GPU rows' tail columns
            Integer[] gpuNuma = new Integer[gpuCols.size()];
            Map<Integer, String> numaCpus = new TreeMap<>();
            for (int gi = 0; gi < gpuCols.size(); gi++) {
                RowDraft r = rows[gpuCols.get(gi).index()];
                if (r == null) {
                    continue;
                }
                Map<String, String> tail = tail(header, r);
                String numa = tail.get(NUMA_AFFINITY);
                if (numa != null && numa.matches("\\d+")) {
                    gpuNuma[gi] = Integer.valueOf(numa);
                    String cpus = tail.get(CPU_AFFINITY);
                    if (cpus != null && !cpus.equals("N/A")) {
                        numaCpus.putIfAbsent(gpuNuma[gi], cpus);
                    }
                }
            }

            boolean haveLegend = hcaNamesFromLegend;

            // side listings: ibv_devinfo / ibdev2netdev, nvidia-smi -L / --query-gpu
            Map<String, HcaPortListing.Device> portsByHca = portsByHca(hcaCols, hcaNames, haveLegend);
            Map<Integer, GpuListing.Identity> identities = GpuListing.parse(lines);

            List<Gpu> gpus = new ArrayList<>();
            for (int gi = 0; gi < gpuCols.size(); gi++) {
                Column g = gpuCols.get(gi);
                List<NvLink> links = new ArrayList<>();
                for (Column peer : gpuCols) {
                    if (peer == g) {
                        continue;
                    }
                    Cell a = cell(g, peer);
                    Cell b = cell(peer, g);
                    int nv = a != null && a.nvlinks() > 0 ? a.nvlinks()
                            : b != null && b.nvlinks() > 0 ? b.nvlinks() : 0;
                    if (nv > 0) {
                        links.add(new NvLink(peer.gpuIndex(), nv));
                    }
                }
                GpuListing.Identity id = identities.getOrDefault(g.gpuIndex(),
                        new GpuListing.Identity(null, null, null));
                gpus.add(new Gpu(g.gpuIndex(), id.uuid(), id.pciBusId(), gpuNuma[gi], id.model(), links, null));
            }
            gpus.sort((x, y) -> Integer.compare(x.index(), y.index()));

            List<Hca> hcas = new ArrayList<>();
            for (int hi = 0; hi < hcaCols.size(); hi++) {
                HcaPortListing.Device d = portsByHca.get(hcaNames[hi]);
                hcas.add(new Hca(hcaNames[hi], d == null ? null : d.pciBusId(), hcaNuma(dist, gpuNuma, hi),
                        d == null ? List.<HcaPort>of() : d.ports(), null, null));
            }

            List<GpuHcaDistance> distances = new ArrayList<>();
            List<Integer> gpuOrder = new ArrayList<>();
            for (int gi = 0; gi < gpuCols.size(); gi++) {
                gpuOrder.add(gi);
            }
            gpuOrder.sort((x, y) -> Integer.compare(gpuCols.get(x).gpuIndex(), gpuCols.get(y).gpuIndex()));
            for (int gi : gpuOrder) {
                for (int hi = 0; hi < hcaCols.size(); hi++) {
                    if (dist[gi][hi] != null) {
                        distances.add(new GpuHcaDistance(gpuCols.get(gi).gpuIndex(), hcaNames[hi], dist[gi][hi]));
                    }
                }
            }
            List<NumaNode> numaNodes = new ArrayList<>();
            numaCpus.forEach((id, cpus) -> numaNodes.add(new NumaNode(id, null, cpus)));
            for (Integer id : gpuNuma) {
                if (id != null && !numaCpus.containsKey(id)) {
                    numaCpus.put(id, null);
                    numaNodes.add(new NumaNode(id, null, null));
                }
            }
            numaNodes.sort((x, y) -> Integer.compare(x.id(), y.id()));

            return new NodeTopologySpec(DiscoverySource.NVIDIA_SMI, !damaged, warnings, gpus, hcas, List.of(),
                    numaNodes, distances, List.of(), List.of());
        }

        private void reportMissingRows(Header header) {
            List<String> missing = new ArrayList<>();
            for (Column c : columns) {
                if (rows[c.index()] == null) {
                    missing.add(c.name());
                }
            }
            if (!missing.isEmpty()) {
                damaged = true;
                Column first = byName.get(missing.getFirst());
                warn(header.lineIdx() + 1, first.col(), "no row for " + abbreviateList(missing)
                        + "; their cells are known only from the symmetric cells of the other rows");
            }
        }

        private Map<String, String> tail(Header header, RowDraft r) {
            Map<String, String> values = new HashMap<>();
            for (int i = 0; i < header.tailNames().size() && i < r.tail.size(); i++) {
                values.put(header.tailNames().get(i), r.tail.get(i).text());
            }
            return values;
        }

        private static Integer hcaNuma(PcieDistance[][] dist, Integer[] gpuNuma, int hi) {
            Integer numa = null;
            for (int gi = 0; gi < dist.length; gi++) {
                if (dist[gi][hi] != null && dist[gi][hi] != PcieDistance.SYS && gpuNuma[gi] != null) {
                    if (numa != null && !numa.equals(gpuNuma[gi])) {
                        return null;
                    }
                    numa = gpuNuma[gi];
                }
            }
            return numa;
        }

        private PcieDistance pcie(Column row, Column col) {
            Cell c = cell(row, col);
            if (c == null) {
                return null;
            }
            if (c.distance() == null) {
                RowDraft r = rows[row.index()];
                damaged = true;
                warn(r.lineNo, r.cellCols[col.index()], "row " + row.name() + ": cell '" + c + "' for " + col.name()
                        + " is not a PCIe class; treated as unknown");
                r.cells[col.index()] = null;
                return null;
            }
            return c.distance();
        }

        private Cell cell(Column row, Column col) {
            RowDraft r = rows[row.index()];
            return r == null ? null : r.cells[col.index()];
        }

        private int nextHeaderAfter(int lastRowIdx) {
            for (int i = lastRowIdx + 1; i < lines.size(); i++) {
                if (header(i) != null) {
                    warn(i + 1, 1, "another matrix starts here; only the first matrix of a file is read");
                    return i;
                }
            }
            return lines.size();
        }

        private String[] hcaNames(List<Column> hcaCols, int from, int to) {
            String[] names = new String[hcaCols.size()];
            Map<Integer, Integer> nicToHca = new HashMap<>();
            for (int hi = 0; hi < hcaCols.size(); hi++) {
                names[hi] = hcaCols.get(hi).name();
                Matcher m = NIC_COLUMN.matcher(names[hi]);
                if (m.matches()) {
                    nicToHca.put(Integer.parseInt(m.group(1)), hi);
                }
            }
            if (nicToHca.isEmpty()) {
                return names;
            }
            Map<Integer, String> legend = new LinkedHashMap<>();
            Map<Integer, Integer> legendLine = new HashMap<>();
            for (int i = from; i < to; i++) {
                Matcher m = lines.get(i).contains("NIC") ? LEGEND_ENTRY.matcher(lines.get(i)) : null;
                if (m != null && m.matches()) {
                    int nic = Integer.parseInt(m.group(1));
                    if (legend.putIfAbsent(nic, m.group(2)) == null) {
                        legendLine.put(nic, i + 1);
                    }
                }
            }
            if (legend.isEmpty()) {
                warnNoPos("no NIC Legend: HCAs keep the column names " + names[nicToHca.values().iterator().next()]
                        + ".. (nvidia-smi gives the RDMA device names only in the NIC Legend)");
                return names;
            }
            hcaNamesFromLegend = true;
            Map<String, Integer> used = new HashMap<>();
            for (String n : names) {
                used.put(n, -1);
            }
            List<String> unnamed = new ArrayList<>();
            for (Map.Entry<Integer, Integer> e : new TreeMap<>(nicToHca).entrySet()) {
                String name = legend.get(e.getKey());
                if (name == null) {
                    unnamed.add(names[e.getValue()]);
                    continue;
                }
                if (used.containsKey(name) && !name.equals(names[e.getValue()])) {
                    warn(legendLine.get(e.getKey()), 1, "NIC Legend gives " + name + " to NIC" + e.getKey()
                            + " but that name is already taken; keeping NIC" + e.getKey());
                    continue;
                }
                used.put(name, e.getValue());
                names[e.getValue()] = name;
            }
            for (Integer nic : legend.keySet()) {
                if (!nicToHca.containsKey(nic)) {
                    warn(legendLine.get(nic), 1, "NIC Legend entry NIC" + nic + " has no column in the matrix");
                }
            }
            if (!unnamed.isEmpty()) {
                warnNoPos("NIC Legend has no entry for " + abbreviateList(unnamed) + "; they keep their column names");
            }
            return names;
        }

        private Map<String, HcaPortListing.Device> portsByHca(List<Column> hcaCols, String[] names, boolean legend) {
            HcaPortListing listing = HcaPortListing.parse(lines);
            Map<String, HcaPortListing.Device> result = new HashMap<>();
            if (listing.isEmpty()) {
                return result;
            }
            List<String> known = Arrays.asList(names);
            boolean assumed = false;
            for (HcaPortListing.Device d : listing.devices().values()) {
                if (known.contains(d.hca())) {
                    result.put(d.hca(), d);
                    continue;
                }
                Matcher m = MLX5.matcher(d.hca());
                String nic = m.matches() ? "NIC" + m.group(1) : null;
                if (!legend && nic != null && known.contains(nic)) {
                    if (!assumed) {
                        warn(d.line(), 1, "no NIC Legend: assuming NICk = mlx5_k to apply the port states listed"
                                + " for " + d.hca() + " and the other mlx5 devices (nvidia-smi usually numbers NICs"
                                + " in RDMA device order, but only the NIC Legend says so)");
                        assumed = true;
                    }
                    result.put(nic, d);
                    continue;
                }
                warn(d.line(), 1, d.hca() + " is not an HCA of the matrix; its port state is ignored");
            }
            return result;
        }

        // ----- helpers -------------------------------------------------------------------------------------

        private static int[] range(int from, int to) {
            int[] r = new int[Math.max(0, to - from)];
            for (int i = 0; i < r.length; i++) {
                r[i] = from + i;
            }
            return r;
        }

        private String columnNames(int[] cols) {
            if (cols.length == 0) {
                return "no columns";
            }
            if (cols.length <= 3) {
                List<String> names = new ArrayList<>();
                for (int c : cols) {
                    names.add(columns.get(c).name());
                }
                return String.join(", ", names);
            }
            return columns.get(cols[0]).name() + ".." + columns.get(cols[cols.length - 1]).name();
        }

        private static String abbreviateList(List<String> names) {
            if (names.size() <= 6) {
                return String.join(", ", names);
            }
            return String.join(", ", names.subList(0, 5)) + " and " + (names.size() - 5) + " more";
        }

        private static String abbreviate(String s) {
            return s.length() <= 60 ? s : s.substring(0, 57) + "...";
        }

        private void warn(int line, int col, String message) {
            warnings.add(source + ":" + line + ":" + col + ": " + message);
        }

        private void warnNoPos(String message) {
            warnings.add(source + ": " + message);
        }
    }
}
