package dev.railyard.topology.discovery;

import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.topology.InputException;
import dev.railyard.topology.discovery.MatrixParts.Cell;
import dev.railyard.topology.discovery.MatrixParts.Column;
import dev.railyard.topology.discovery.MatrixParts.Header;
import dev.railyard.topology.discovery.MatrixParts.Pending;
import dev.railyard.topology.discovery.MatrixParts.RowDraft;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One parse of one {@code nvidia-smi topo -m} text ({@link NvidiaSmiTopoParser}): finds the header and the matrix,
 * reads nvidia-smi's notes, and holds the state the row reader ({@link MatrixRows}) and the model builder
 * ({@link MatrixModel}) share. Not reused; not thread-safe.
 */
final class MatrixPass {
    static final Pattern TOKEN = Pattern.compile("\\S+");
    static final Pattern ONE_HEADING = Pattern.compile("(?:GPU|NIC)\\d+");
    static final Pattern NIC_COLUMN = Pattern.compile("NIC(\\d+)");
    static final Pattern LEGEND_ENTRY = Pattern.compile("\\s*NIC(\\d+)\\s*:\\s*(\\S+)\\s*");
    static final Pattern MLX5 = Pattern.compile("mlx5_(\\d+)");
    static final String CPU_AFFINITY = "CPU Affinity";
    static final String NUMA_AFFINITY = "NUMA Affinity";
    static final String GPU_NUMA_ID = "GPU NUMA ID";
    private static final Pattern HEADER_TOKEN =
            Pattern.compile("CPU\\s+Affinity|NUMA\\s+Affinity|GPU\\s+NUMA\\s+ID|\\S+");
    private static final Pattern BLANKS = Pattern.compile("\\s+");
    private static final Pattern GPU_COLUMN = Pattern.compile("GPU(\\d+)");
    private static final Pattern GLUED_HEADINGS = Pattern.compile("(?:(?:GPU|NIC)\\d+){2,}");
    /** A device heading: a name with a digit in it ({@code NIC3}, {@code mlx5_0}, {@code rocep1s0f0}). */
    private static final Pattern DEVICE_NAME =
            Pattern.compile("(?=[^\\d]*\\d)[A-Za-z][A-Za-z0-9]*(?:[_.:-][A-Za-z0-9]+)*");
    private static final Pattern HIDDEN_NICS =
            Pattern.compile("(\\d+) NICs found in the topology, only displaying (\\d+)");
    private static final Pattern TOPO_MP = Pattern.compile("topo\\s+(?:-mp\\b|--matrix_pci\\b)");
    private static final String FAILED = "Failed to run topology matrix";

    final String source;
    final List<String> lines;
    final List<String> warnings = new ArrayList<>();
    final List<Pending> pending = new ArrayList<>();
    boolean damaged;
    boolean hcaNamesFromLegend;
    List<Column> columns;
    Map<String, Column> byName;
    RowDraft[] rows;
    /** header(i) results: null = not computed yet, NO_HEADER = not a header. */
    private final Header[] headers;

    MatrixPass(String source, List<String> lines) {
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
        MatrixRows reader = new MatrixRows(this);
        reader.readRows(header, matrixEnd);
        for (RowDraft r : rows) {
            if (r != null) {
                reader.align(r);
            }
        }
        for (Pending p : pending) {
            reader.resolve(p);
        }
        return new MatrixModel(this).build(header, lastRowIdx);
    }

    // ----- header ------------------------------------------------------------------------------------

    Header header(int idx) {
        Header h = headers[idx];
        if (h == null) {
            h = readHeader(idx);
            headers[idx] = h == null ? MatrixParts.NO_HEADER : h;
        }
        return h == MatrixParts.NO_HEADER ? null : h;
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
        return t.contains("Affinity") || t.equals(GPU_NUMA_ID);
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
                        + " NICs; the hidden NICs' distances are unknown (not absent, not far): a sysfs snapshot "
                        + "(railyard topology collect) shows them all");
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

    // ----- helpers -------------------------------------------------------------------------------------

    static int[] range(int from, int to) {
        int[] r = new int[Math.max(0, to - from)];
        for (int i = 0; i < r.length; i++) {
            r[i] = from + i;
        }
        return r;
    }

    String columnNames(int[] cols) {
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

    static String abbreviateList(List<String> names) {
        if (names.size() <= 6) {
            return String.join(", ", names);
        }
        return String.join(", ", names.subList(0, 5)) + " and " + (names.size() - 5) + " more";
    }

    static String abbreviate(String s) {
        return s.length() <= 60 ? s : s.substring(0, 57) + "...";
    }

    void warn(int line, int col, String message) {
        warnings.add(source + ":" + line + ":" + col + ": " + message);
    }

    void warnNoPos(String message) {
        warnings.add(source + ": " + message);
    }

    /** @return the index of the next header line after the matrix (a second matrix, reported), or the line count */
    int nextHeaderAfter(int lastRowIdx) {
        for (int i = lastRowIdx + 1; i < lines.size(); i++) {
            if (header(i) != null) {
                warn(i + 1, 1, "another matrix starts here; only the first matrix of a file is read");
                return i;
            }
        }
        return lines.size();
    }
}
