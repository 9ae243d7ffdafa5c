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
    /** Fill of a GPU busy before the demo. */
    private static final String BUSY = "#b8b8b8";

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

    /**
     * @param snapshot  the cluster before the jobs
     * @param nodeLabel node → a short label under its name (its machine)
     * @param jobs      the jobs placed, coloured in order
     * @param title     the picture's title
     * @param legend    lines explaining the symbols, rails, HCAs and pools
     * @param notes     lines in red (jobs not placed)
     * @return the SVG document
     */
    static String render(ClusterSnapshot snapshot, Map<String, String> nodeLabel, List<Job> jobs, String title,
                         List<String> legend, List<String> notes) {
        return new Drawing(snapshot, jobs).draw(nodeLabel, jobs, title, legend, notes);
    }

    /** One picture: the layout (x of every node and switch) and the colours of the placed GPUs and rails. */
    private static final class Drawing {
        private final ClusterSnapshot snapshot;
        private final FabricModel fabric;
        private final int maxTier;
        private final int nodeY;
        private final Map<String, Integer> nodeX = new LinkedHashMap<>();
        private final Map<String, Double> switchX = new LinkedHashMap<>();
        private final Map<String, Map<Integer, String>> railColour = new TreeMap<>();
        private final Map<String, Map<Integer, String>> gpuColour = new TreeMap<>();
        private int width;

        Drawing(ClusterSnapshot snapshot, List<Job> jobs) {
            this.snapshot = snapshot;
            this.fabric = snapshot.fabric();
            this.maxTier = Math.max(1, fabric.maxTier());
            this.nodeY = MARGIN + 40 + TIER_STEP * maxTier + 40;
            layoutNodes();
            layoutUpperTiers();
            colour(jobs);
        }

        /** Nodes grouped by the leaves they hang under; each group's leaves spread over the group. */
        private void layoutNodes() {
            Map<String, List<NodeState>> groups = new LinkedHashMap<>();
            for (NodeState n : snapshot.nodes()) {
                FabricPosition p = fabric.position(n.name());
                String key = p == null ? "(no fabric position)" : String.join(",", leaves(p));
                groups.computeIfAbsent(key, k -> new ArrayList<>()).add(n);
            }
            int x = MARGIN;
            for (var g : groups.entrySet()) {
                int start = x;
                FabricPosition p = fabric.position(g.getValue().get(0).name());
                int leafCount = p == null ? 0 : leaves(p).size();
                int nodesSpan = g.getValue().size() * (NODE_W + GAP) - GAP;
                int span = Math.max(nodesSpan, leafCount * SWITCH_SLOT);
                x += (span - nodesSpan) / 2;
                for (NodeState n : g.getValue()) {
                    nodeX.put(n.name(), x);
                    x += NODE_W + GAP;
                }
                if (p != null) {
                    List<String> ls = leaves(p);
                    for (int i = 0; i < ls.size(); i++) {
                        switchX.putIfAbsent(ls.get(i), start + span * (i + 0.5) / ls.size());
                    }
                }
                x = start + span + GROUP_GAP;
            }
            width = Math.max(x - GROUP_GAP + GAP + MARGIN, 600);
        }

        /** Higher tiers ordered by their leftmost child, spread evenly over their children's span. */
        private void layoutUpperTiers() {
            for (int t = 2; t <= fabric.maxTier(); t++) {
                Map<String, Double> first = new LinkedHashMap<>();
                double lo = Double.POSITIVE_INFINITY;
                double hi = Double.NEGATIVE_INFINITY;
                for (FabricSwitch sw : fabric.switches()) {
                    if (sw.tier() != t) {
                        continue;
                    }
                    double min = Double.POSITIVE_INFINITY;
                    for (FabricSwitch c : fabric.switches()) {
                        Double cx = c.uplinks().contains(sw.name()) ? switchX.get(c.name()) : null;
                        if (cx != null) {
                            min = Math.min(min, cx);
                            lo = Math.min(lo, cx);
                            hi = Math.max(hi, cx);
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
                    switchX.put(order.get(i), order.size() == 1 ? (lo + hi) / 2
                            : lo + (hi - lo) * i / (order.size() - 1));
                }
            }
        }

        private void colour(List<Job> jobs) {
            for (int j = 0; j < jobs.size(); j++) {
                String c = COLOURS.get(j % COLOURS.size());
                jobs.get(j).rails().forEach((node, rails) -> rails.forEach(r -> railColour
                        .computeIfAbsent(node, k -> new TreeMap<>()).put(r, c)));
                jobs.get(j).gpus().forEach((node, gpus) -> gpus.forEach(g -> gpuColour
                        .computeIfAbsent(node, k -> new TreeMap<>()).put(g, c)));
            }
        }

        String draw(Map<String, String> nodeLabel, List<Job> jobs, String title, List<String> legend,
                    List<String> notes) {
            int height = nodeY + NODE_H + 50 + 18 * (jobs.size() + legend.size() + notes.size() + 2);
            StringBuilder b = new StringBuilder();
            b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                    + "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">%n",
                    width, height, width, height));
            b.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width,
                    height));
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"15\" "
                    + "font-weight=\"bold\">%s</text>%n", MARGIN, MARGIN, esc(title)));
            uplinks(b);
            cables(b);
            switches(b);
            nodes(b, nodeLabel);
            legend(b, jobs, legend, notes);
            b.append("</svg>\n");
            return b.toString();
        }

        private void uplinks(StringBuilder b) {
            for (FabricSwitch s : fabric.switches()) {
                for (String up : s.uplinks()) {
                    if (switchX.containsKey(s.name()) && switchX.containsKey(up)) {
                        b.append(line(switchX.get(s.name()), switchY(s.tier(), maxTier), switchX.get(up),
                                switchY(fabric.fabricSwitch(up).tier(), maxTier), "#c8c8c8", 1, false));
                    }
                }
            }
        }

        /** One cable per rail from each node to that rail's leaf, coloured when a placed pod uses the rail there. */
        private void cables(StringBuilder b) {
            for (NodeState n : snapshot.nodes()) {
                FabricPosition p = fabric.position(n.name());
                if (p == null) {
                    continue;
                }
                List<Integer> rails = new ArrayList<>(p.explicitRails());
                if (rails.isEmpty()) {
                    rails.add(0);
                }
                for (int i = 0; i < rails.size(); i++) {
                    String leaf = p.leaf(rails.get(i));
                    if (leaf == null || !switchX.containsKey(leaf)) {
                        continue;
                    }
                    double cx = nodeX.get(n.name()) + 10 + (NODE_W - 20) * (i + 0.5) / rails.size();
                    String c = railColour.getOrDefault(n.name(), Map.of()).get(rails.get(i));
                    b.append(line(cx, nodeY, switchX.get(leaf), switchY(1, maxTier), c == null ? "#dedede" : c,
                            c == null ? 1 : 2.5, c == null));
                }
            }
        }

        private void switches(StringBuilder b) {
            for (FabricSwitch s : fabric.switches()) {
                Double sx = switchX.get(s.name());
                if (sx == null) {
                    continue;
                }
                double sy = switchY(s.tier(), maxTier);
                b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"64\" height=\"20\" "
                        + "rx=\"4\" fill=\"#f3f3f3\" stroke=\"#777\"/>%n", sx - 32, sy - 10));
                b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                        + "font-size=\"9\">%s</text>%n", sx, sy + 3, esc(shorten(s.label(), 13))));
            }
            for (int t = 1; t <= fabric.maxTier(); t++) {
                b.append(String.format(Locale.ROOT, "<text x=\"4\" y=\"%.1f\" font-size=\"9\" "
                        + "fill=\"#777\">%s</text>%n", switchY(t, maxTier) - 14, esc(fabric.tierName(t))));
            }
        }

        /** Each node with its GPUs: grey busy before, coloured placed, white free. */
        private void nodes(StringBuilder b, Map<String, String> nodeLabel) {
            for (NodeState n : snapshot.nodes()) {
                int nx = nodeX.get(n.name());
                b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                        + "rx=\"5\" fill=\"#fafafa\" stroke=\"#444\"/>%n", nx, nodeY, NODE_W, NODE_H));
                b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>%n",
                        nx + 6, nodeY + 14, esc(n.name())));
                b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"9\" fill=\"#555\">"
                        + "%s</text>%n", nx + 6, nodeY + 26, esc(nodeLabel.getOrDefault(n.name(), ""))));
                List<Integer> gpus = n.topology() == null ? List.of()
                        : n.topology().gpus().stream().map(g -> g.index()).sorted().toList();
                for (int i = 0; i < gpus.size(); i++) {
                    int gx = nx + 6 + (i % 4) * 27;
                    int gy = nodeY + 32 + (i / 4) * 19;
                    int gpu = gpus.get(i);
                    String fill = gpuColour.getOrDefault(n.name(), Map.of()).get(gpu);
                    if (fill == null) {
                        fill = n.allocatedGpus().contains(gpu) ? BUSY : "white";
                    }
                    b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"24\" height=\"16\" "
                            + "fill=\"%s\" stroke=\"#666\"/>%n", gx, gy, fill));
                    b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"8\" "
                                    + "text-anchor=\"middle\" fill=\"%s\">%d</text>%n", gx + 12, gy + 11,
                            "white".equals(fill) ? "#333" : "#fff", gpu));
                }
            }
        }

        /** The legend: busy GPUs, each job's colour, the legend lines (rails, HCAs, pools), the notes in red. */
        private void legend(StringBuilder b, List<Job> jobs, List<String> legend, List<String> notes) {
            int ly = nodeY + NODE_H + 30;
            b.append(swatch(ly, BUSY, "busy before the demo"));
            for (int j = 0; j < jobs.size(); j++) {
                ly += 18;
                b.append(swatch(ly, COLOURS.get(j % COLOURS.size()), jobs.get(j).label()));
            }
            ly += 8;
            for (String line : legend) {
                ly += 18;
                b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", MARGIN, ly,
                        esc(line)));
            }
            for (String note : notes) {
                ly += 18;
                b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"#a00\">%s</text>%n",
                        MARGIN, ly, esc(note)));
            }
        }

        private static String swatch(int y, String colour, String label) {
            return String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" "
                    + "fill=\"%s\" stroke=\"#666\"/><text x=\"%d\" y=\"%d\">%s</text>%n", MARGIN, y - 10,
                    colour, MARGIN + 18, y, esc(label));
        }
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
