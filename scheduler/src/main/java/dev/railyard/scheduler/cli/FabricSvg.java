package dev.railyard.scheduler.cli;

import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.NodeState;
import dev.railyard.topology.fabric.FabricModel;
import dev.railyard.topology.fabric.FabricPosition;
import dev.railyard.topology.fabric.FabricSwitch;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Draws the fabric and a set of placements as SVG, with plain text templating (Railyard's own output format).
 * Rows from the top: switches by tier (highest first), then nodes grouped by the leaves they hang under. Each node
 * shows its GPUs (grey: busy before the demo, coloured: placed by a job, white: free); each rail cable of a node is
 * drawn to its leaf, coloured when a placed pod uses that rail there.
 */
final class FabricSvg {
    /** Colours for jobs, in order. */
    static final List<String> COLOURS = List.of("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b");
    private static final int NODE_W = 116;
    private static final int NODE_H = 74;
    private static final int GAP = 10;
    private static final int GROUP_GAP = 34;
    private static final int MARGIN = 30;
    private static final int TIER_STEP = 95;
    private static final int SWITCH_SLOT = 72;

    /**
     * A job drawn on the picture.
     *
     * @param label      legend text
     * @param gpus       node → GPUs the job holds there
     * @param rails      node → rails the job uses there
     */
    record Job(String label, Map<String, List<Integer>> gpus, Map<String, List<Integer>> rails) {
    }

    private FabricSvg() {
    }

    static String render(ClusterSnapshot snapshot, Map<String, String> nodeLabel, List<Job> jobs, String title,
                         List<String> notes) {
        FabricModel fabric = snapshot.fabric();
        // group nodes by the leaves they hang under
        Map<String, List<NodeState>> groups = new LinkedHashMap<>();
        for (NodeState n : snapshot.nodes()) {
            FabricPosition p = fabric.position(n.name());
            String key = p == null ? "(no fabric position)" : String.join(",", leaves(p));
            groups.computeIfAbsent(key, k -> new ArrayList<>()).add(n);
        }
        int maxTier = Math.max(1, fabric.maxTier());
        int nodeY = MARGIN + 40 + TIER_STEP * maxTier + 40;
        Map<String, Integer> nodeX = new LinkedHashMap<>();
        Map<String, Double> switchX = new LinkedHashMap<>();
        int x = MARGIN;
        for (var g : groups.entrySet()) {
            int start = x;
            FabricPosition p = fabric.position(g.getValue().get(0).name());
            int leafCount = p == null ? 0 : leaves(p).size();
            int span = Math.max(g.getValue().size() * (NODE_W + GAP) - GAP, leafCount * SWITCH_SLOT);
            int pad = (span - (g.getValue().size() * (NODE_W + GAP) - GAP)) / 2;
            x += pad;
            for (NodeState n : g.getValue()) {
                nodeX.put(n.name(), x);
                x += NODE_W + GAP;
            }
            x = start + span + GAP;
            int end = start + span;
            if (p != null) {
                List<String> ls = leaves(p);
                for (int i = 0; i < ls.size(); i++) {
                    switchX.putIfAbsent(ls.get(i), start + (end - start) * (i + 0.5) / ls.size());
                }
            }
            x += GROUP_GAP - GAP;
        }
        int width = Math.max(x - GROUP_GAP + GAP + MARGIN, 600);
        // higher tiers above the mean of their children, then spread out
        for (int t = 2; t <= fabric.maxTier(); t++) {
            List<FabricSwitch> row = new ArrayList<>();
            for (FabricSwitch s : fabric.switches()) {
                if (s.tier() == t) {
                    row.add(s);
                }
            }
            // order by the leftmost child, then spread evenly over the children's span
            Map<String, Double> first = new LinkedHashMap<>();
            double lo = Double.POSITIVE_INFINITY;
            double hi = Double.NEGATIVE_INFINITY;
            for (FabricSwitch sw : row) {
                double min = Double.POSITIVE_INFINITY;
                for (FabricSwitch c : fabric.switches()) {
                    if (c.uplinks().contains(sw.name()) && switchX.containsKey(c.name())) {
                        min = Math.min(min, switchX.get(c.name()));
                        lo = Math.min(lo, switchX.get(c.name()));
                        hi = Math.max(hi, switchX.get(c.name()));
                    }
                }
                first.put(sw.name(), min);
            }
            List<String> order = new ArrayList<>(first.keySet());
            order.sort(Comparator.<String>comparingDouble(first::get).thenComparing(Comparator.naturalOrder()));
            if (lo > hi) {
                lo = MARGIN + 40;
                hi = width - MARGIN - 40;
            }
            for (int i = 0; i < order.size(); i++) {
                switchX.put(order.get(i), order.size() == 1 ? (lo + hi) / 2 : lo + (hi - lo) * i / (order.size() - 1));
            }
        }
        int height = nodeY + NODE_H + 50 + 18 * (jobs.size() + notes.size() + 1);
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">%n", width, height, width, height));
        b.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"15\" font-weight=\"bold\">%s</text>%n",
                MARGIN, MARGIN, esc(title)));
        // which rails each job uses on each node
        Map<String, Map<Integer, String>> railColour = new TreeMap<>();
        Map<String, Map<Integer, String>> gpuColour = new TreeMap<>();
        for (int j = 0; j < jobs.size(); j++) {
            String c = COLOURS.get(j % COLOURS.size());
            for (var e : jobs.get(j).rails().entrySet()) {
                for (int r : e.getValue()) {
                    railColour.computeIfAbsent(e.getKey(), k -> new TreeMap<>()).put(r, c);
                }
            }
            for (var e : jobs.get(j).gpus().entrySet()) {
                for (int g : e.getValue()) {
                    gpuColour.computeIfAbsent(e.getKey(), k -> new TreeMap<>()).put(g, c);
                }
            }
        }
        // switch uplinks
        for (FabricSwitch s : fabric.switches()) {
            for (String up : s.uplinks()) {
                if (switchX.containsKey(s.name()) && switchX.containsKey(up)) {
                    b.append(line(switchX.get(s.name()), switchY(s.tier(), maxTier), switchX.get(up),
                            switchY(fabric.fabricSwitch(up).tier(), maxTier), "#c8c8c8", 1, false));
                }
            }
        }
        // node cables
        for (NodeState n : snapshot.nodes()) {
            FabricPosition p = fabric.position(n.name());
            if (p == null) {
                continue;
            }
            int nx = nodeX.get(n.name());
            List<Integer> rails = new ArrayList<>(p.explicitRails());
            if (rails.isEmpty()) {
                rails.add(0);
            }
            for (int i = 0; i < rails.size(); i++) {
                String leaf = p.leaf(rails.get(i));
                if (leaf == null || !switchX.containsKey(leaf)) {
                    continue;
                }
                double cx = nx + 10 + (NODE_W - 20) * (i + 0.5) / rails.size();
                String c = railColour.getOrDefault(n.name(), Map.of()).get(rails.get(i));
                b.append(line(cx, nodeY, switchX.get(leaf), switchY(1, maxTier), c == null ? "#dedede" : c,
                        c == null ? 1 : 2.5, c == null));
            }
        }
        // switches
        for (FabricSwitch s : fabric.switches()) {
            Double sx = switchX.get(s.name());
            if (sx == null) {
                continue;
            }
            double sy = switchY(s.tier(), maxTier);
            b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"64\" height=\"20\" rx=\"4\" "
                    + "fill=\"#f3f3f3\" stroke=\"#777\"/>%n", sx - 32, sy - 10));
            b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"9\">"
                    + "%s</text>%n", sx, sy + 3, esc(shorten(s.label(), 13))));
        }
        for (int t = 1; t <= fabric.maxTier(); t++) {
            b.append(String.format(Locale.ROOT, "<text x=\"4\" y=\"%.1f\" font-size=\"9\" fill=\"#777\">%s</text>%n",
                    switchY(t, maxTier) - 14, esc(fabric.tierName(t))));
        }
        // nodes
        for (NodeState n : snapshot.nodes()) {
            int nx = nodeX.get(n.name());
            b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"5\" "
                    + "fill=\"#fafafa\" stroke=\"#444\"/>%n", nx, nodeY, NODE_W, NODE_H));
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>%n", nx + 6,
                    nodeY + 14, esc(n.name())));
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"9\" fill=\"#555\">%s</text>%n",
                    nx + 6, nodeY + 26, esc(nodeLabel.getOrDefault(n.name(), ""))));
            List<Integer> gpus = n.topology() == null ? List.of()
                    : n.topology().gpus().stream().map(g -> g.index()).sorted().toList();
            for (int i = 0; i < gpus.size(); i++) {
                int gx = nx + 6 + (i % 4) * 27;
                int gy = nodeY + 32 + (i / 4) * 19;
                int gpu = gpus.get(i);
                String fill = gpuColour.getOrDefault(n.name(), Map.of()).get(gpu);
                if (fill == null) {
                    fill = n.allocatedGpus().contains(gpu) ? "#b8b8b8" : "white";
                }
                b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"24\" height=\"16\" fill=\"%s\" "
                        + "stroke=\"#666\"/>%n", gx, gy, fill));
                b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"8\" text-anchor=\"middle\" "
                        + "fill=\"%s\">%d</text>%n", gx + 12, gy + 11, "white".equals(fill) ? "#333" : "#fff", gpu));
            }
        }
        // legend
        int ly = nodeY + NODE_H + 30;
        b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"#b8b8b8\" "
                + "stroke=\"#666\"/><text x=\"%d\" y=\"%d\">busy before the demo</text>%n", MARGIN, ly - 10,
                MARGIN + 18, ly));
        for (int j = 0; j < jobs.size(); j++) {
            ly += 18;
            b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                    + "<text x=\"%d\" y=\"%d\">%s</text>%n", MARGIN, ly - 10, COLOURS.get(j % COLOURS.size()),
                    MARGIN + 18, ly, esc(jobs.get(j).label())));
        }
        for (String note : notes) {
            ly += 18;
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"#a00\">%s</text>%n", MARGIN, ly,
                    esc(note)));
        }
        b.append("</svg>\n");
        return b.toString();
    }

    private static List<String> leaves(FabricPosition p) {
        LinkedHashSet<String> s = new LinkedHashSet<>();
        if (p.explicitRails().isEmpty()) {
            s.add(p.leaf(0));
        }
        for (int r : p.explicitRails()) {
            s.add(p.leaf(r));
        }
        return new ArrayList<>(s);
    }

    private static double switchY(int tier, int maxTier) {
        return MARGIN + 40 + TIER_STEP * (maxTier - tier) + 10;
    }

    private static String line(double x1, double y1, double x2, double y2, String colour, double w, boolean dashed) {
        return String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                + "stroke-width=\"%.1f\"%s/>%n", x1, y1, x2, y2, colour, w, dashed ? " stroke-dasharray=\"3,3\"" : "");
    }

    private static String shorten(String s, int n) {
        return s.length() <= n ? s : s.substring(0, n - 1) + "…";
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
