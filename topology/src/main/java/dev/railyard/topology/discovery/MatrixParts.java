package dev.railyard.topology.discovery;

import dev.railyard.api.topology.PcieDistance;

import java.util.List;

/**
 * The pieces {@code nvidia-smi topo -m} text is read into ({@link NvidiaSmiTopoParser}): cell values, row tokens,
 * header columns and rows being aligned. Package-private; immutable except {@link RowDraft}, which one parse fills.
 */
final class MatrixParts {
    private MatrixParts() {
    }

    /** One matrix cell value. {@code distance} for PCIe classes, {@code nvlinks > 0} for NV#, {@code self} for X. */
    record Cell(PcieDistance distance, int nvlinks, boolean self) {
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
    record Tok(String text, int col, Cell cell) {
        boolean isSelf() {
            return cell != null && cell.self();
        }

        int endCol() {
            return col + text.length();
        }
    }

    /** A header column: device name, position, GPU index or -1. */
    record Column(String name, int index, int gpuIndex, int col) {
        boolean isGpu() {
            return gpuIndex >= 0;
        }
    }

    record Header(int lineIdx, List<Column> columns, List<String> tailNames) {
    }

    static final Header NO_HEADER = new Header(-1, List.of(), List.of());

    static final class RowDraft {
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

    record Pending(RowDraft row, List<Tok> toks, int[] cols) {
    }
}
