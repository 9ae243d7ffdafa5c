package dev.railyard.scheduler.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * Text output that keeps every line at most {@link #WIDTH} characters: long lines wrap at spaces with a hanging
 * indent, and tables size their columns to their content and wrap the last column under itself.
 */
final class DemoText {
    /** The widest line the demo prints. */
    static final int WIDTH = 150;
    private final PrintWriter out;

    DemoText(PrintWriter out) {
        this.out = out;
    }

    void println(String line) {
        out.println(line);
    }

    /**
     * Prints {@code text}, wrapped at spaces; continuation lines start with {@code indent}. A word longer than a
     * line is cut.
     */
    void wrap(String text, String indent) {
        for (String line : lines(text, WIDTH, indent)) {
            out.println(line);
        }
    }

    static List<String> lines(String text, int width, String indent) {
        List<String> out = new ArrayList<>();
        String rest = text;
        String prefix = "";
        while (prefix.length() + rest.length() > width) {
            int room = width - prefix.length();
            int cut = rest.lastIndexOf(' ', room);
            if (cut <= 0) {
                cut = room;
            }
            out.add(prefix + rest.substring(0, cut).stripTrailing());
            rest = rest.substring(cut).stripLeading();
            prefix = indent;
        }
        out.add(prefix + rest);
        return out;
    }

    /** Prints rows (the first is the header) in columns two spaces apart; the last column wraps under itself. */
    void table(List<List<String>> rows) {
        int cols = rows.get(0).size();
        int[] w = new int[cols];
        for (List<String> r : rows) {
            for (int c = 0; c < cols - 1; c++) {
                w[c] = Math.max(w[c], r.get(c).length());
            }
        }
        StringBuilder pad = new StringBuilder();
        for (int c = 0; c < cols - 1; c++) {
            pad.append(" ".repeat(w[c] + 2));
        }
        int last = Math.max(20, WIDTH - pad.length());
        for (List<String> r : rows) {
            StringBuilder b = new StringBuilder();
            for (int c = 0; c < cols - 1; c++) {
                b.append(r.get(c)).append(" ".repeat(w[c] + 2 - r.get(c).length()));
            }
            List<String> tail = lines(r.get(cols - 1), last, "");
            out.println((b + tail.get(0)).stripTrailing());
            for (int i = 1; i < tail.size(); i++) {
                out.println(pad + tail.get(i));
            }
        }
    }

    /** @return {@code 0,1,5}: the numbers joined by commas */
    static String join(List<Integer> xs) {
        List<String> s = new ArrayList<>();
        for (int x : xs) {
            s.add(Integer.toString(x));
        }
        return String.join(",", s);
    }

    /** @return {@code 0-3,6}: sorted numbers with runs of three or more written as ranges */
    static String ranges(List<Integer> xs) {
        List<Integer> s = new ArrayList<>(xs);
        s.sort(null);
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < s.size(); ) {
            int j = i;
            while (j + 1 < s.size() && s.get(j + 1) == s.get(j) + 1) {
                j++;
            }
            parts.add(j - i >= 2 ? s.get(i) + "-" + s.get(j) : join(s.subList(i, j + 1)));
            i = j + 1;
        }
        return String.join(",", parts);
    }

    /** @return the node names joined, or {@code first..last (n)} for three or more */
    static String nodes(List<String> names) {
        return names.size() < 3 ? String.join(", ", names)
                : names.get(0) + ".." + names.get(names.size() - 1) + " (" + names.size() + ")";
    }
}
