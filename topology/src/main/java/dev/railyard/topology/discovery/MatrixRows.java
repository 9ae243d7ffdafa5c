package dev.railyard.topology.discovery;

import dev.railyard.topology.discovery.MatrixParts.Cell;
import dev.railyard.topology.discovery.MatrixParts.Column;
import dev.railyard.topology.discovery.MatrixParts.Header;
import dev.railyard.topology.discovery.MatrixParts.Pending;
import dev.railyard.topology.discovery.MatrixParts.RowDraft;
import dev.railyard.topology.discovery.MatrixParts.Tok;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;

/**
 * Reads the rows of an {@code nvidia-smi topo -m} matrix into cells, column by column, for one {@link MatrixPass}:
 * tokenising (tabs and spaces alike, known tokens glued together split apart), then aligning each row on its
 * {@code X} (self) cell, and a side that is one cell short or long on the symmetric cells of the other rows, keeping
 * only the values every consistent alignment agrees on. A cell that cannot be placed with certainty stays unknown.
 */
final class MatrixRows {
    private final MatrixPass p;

    MatrixRows(MatrixPass pass) {
        this.p = pass;
    }

    
    void readRows(Header h, int matrixEnd) {
        for (int i = h.lineIdx() + 1; i < matrixEnd; i++) {
            String line = p.lines.get(i);
            if (line.isBlank()) {
                continue;
            }
            Matcher m = MatrixPass.TOKEN.matcher(line);
            if (!m.find()) {
                continue;
            }
            String label = m.group();
            Column self = p.byName.get(label);
            if (self == null) {
                p.damaged = true;
                p.warn(i + 1, m.start() + 1, "row " + label + " is not a column of the header; ignored");
                continue;
            }
            if (p.rows[self.index()] != null) {
                p.damaged = true;
                p.warn(i + 1, m.start() + 1, "second row for " + label + " (first at line "
                        + p.rows[self.index()].lineNo + "); ignored");
                continue;
            }
            p.rows[self.index()] = tokenize(line, i + 1, self, m.end());
        }
    }

    private RowDraft tokenize(String line, int lineNo, Column self, int labelEnd) {
        boolean tabbed = line.indexOf('\t') >= 0;
        List<Tok> all = new ArrayList<>();
        List<String> repairs = new ArrayList<>();
        List<Integer> repairCols = new ArrayList<>();
        Matcher m = MatrixPass.TOKEN.matcher(line);
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
                List.copyOf(all.subList(split, all.size())), p.columns.size());
        for (int k = 0; k < repairs.size(); k++) {
            p.damaged = true;
            r.clean = false;
            p.warn(lineNo, repairCols.get(k), "row " + self.name() + ": " + repairs.get(k));
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

    void align(RowDraft r) {
        int n = p.columns.size();
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
            p.damaged = true;
            r.clean = false;
            p.warn(r.lineNo, k == 0 ? r.labelEndCol : t.get(k - 1).endCol(), "row " + r.self.name() + " ends after "
                    + k + " of " + n + " cells (row cut short); " + p.columnNames(MatrixPass.range(k, n)) + " unknown");
            return;
        }
        p.damaged = true;
        r.clean = false;
        String xNote = xAtSelf ? "" : xs.size() == 1 ? ", its X (self) cell is cell " + (xs.getFirst() + 1)
                + " instead of " + (c + 1) : xs.isEmpty() ? " and no X (self) cell" : " and " + xs.size()
                + " X cells";
        p.warn(r.lineNo, k == 0 ? r.labelEndCol : t.getFirst().col(), "row " + r.self.name() + " has " + k
                + " cells for " + n + " columns" + xNote + "; aligning on the X cell and the symmetric cells"
                + " of the other rows");
        if (xs.size() == 1) {
            int p = xs.getFirst();
            r.cells[c] = Cell.SELF;
            r.cellCols[c] = t.get(p).col();
            segment(r, t.subList(0, p), MatrixPass.range(0, c), false);
            segment(r, t.subList(p + 1, k), MatrixPass.range(c + 1, n), !hasTail);
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
            p.pending.add(new Pending(r, List.copyOf(toks), cols));
            return;
        }
        p.warn(r.lineNo, toks.isEmpty() ? r.labelEndCol : toks.getFirst().col(), "row " + r.self.name() + ": "
                + toks.size() + " cells for the " + cols.length + " columns " + p.columnNames(cols)
                + " cannot be aligned; left unknown");
    }

    private void place(RowDraft r, Tok tok, int col) {
        if (tok.cell() == null || (tok.isSelf() != (col == r.self.index()))) {
            p.damaged = true;
            r.clean = false;
            p.warn(r.lineNo, tok.col(), "row " + r.self.name() + ": unknown cell '" + tok.text() + "' in column "
                    + p.columns.get(col).name() + "; treated as unknown");
            return;
        }
        r.cells[col] = tok.cell();
        r.cellCols[col] = tok.col();
    }

    /** Aligns a segment one cell short or long using the other rows' symmetric cells. */
    void resolve(Pending pend) {
        RowDraft r = pend.row();
        List<Tok> toks = pend.toks();
        int[] cols = pend.cols();
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
            p.warn(r.lineNo, first, "row " + r.self.name() + ": no alignment of the cells for "
                    + p.columnNames(cols) + " agrees with the other rows; left unknown");
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
        p.warn(r.lineNo, first, "row " + r.self.name() + ": " + placed + " of " + l + " cells for "
                + p.columnNames(cols) + " placed where all " + consistent.size() + " alignments consistent with"
                + " the other rows agree; the rest unknown");
    }

    private Cell symmetric(int row, int col) {
        RowDraft other = p.rows[col];
        return other == null ? null : other.cells[row];
    }
}
