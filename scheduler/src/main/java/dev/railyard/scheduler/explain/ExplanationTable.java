package dev.railyard.scheduler.explain;

import java.util.ArrayList;
import java.util.List;

/**
 * Renders an {@link Explanation} for people: per gang the verdict, the placements as a table, the node reasons
 * aggregated kube-scheduler style with the nodes named under each reason (every node's reasons with
 * {@code nodeDetail}), then the pools as a table with their stale holders, then warnings and notes.
 */
public final class ExplanationTable {
    /** Stale holders listed per pool before "and N more". */
    static final int STALE_SHOWN = 10;

    private ExplanationTable() {
    }

    /**
     * @param e          the explanation
     * @param nodeDetail true to list every node's reasons, not only the aggregate
     * @return the text, lines ending in {@code \n}
     */
    public static String render(Explanation e, boolean nodeDetail) {
        StringBuilder b = new StringBuilder();
        b.append("cluster: ").append(e.source().kind()).append(' ').append(e.source().location())
                .append(" (fabric: ").append(e.source().fabric()).append(")\n");
        for (Explanation.Gang g : e.gangs()) {
            b.append('\n');
            gang(b, g, nodeDetail);
        }
        if (e.command().equals(ExplainRequest.POOLS)) {
            b.append('\n');
            if (e.pools().isEmpty()) {
                b.append("no networks (NetworkAttachmentDefinitions, MacvlanNetworks) or IPPools found\n");
            } else {
                b.append("pools:\n");
                pools(b, e.pools(), false);
            }
        }
        if (!e.warnings().isEmpty()) {
            b.append("\nwarnings:\n");
            e.warnings().forEach(w -> b.append("  ").append(w).append('\n'));
        }
        if (!e.notices().isEmpty()) {
            b.append("\nnotes:\n");
            e.notices().forEach(w -> b.append("  ").append(w).append('\n'));
        }
        return b.toString();
    }

    private static void gang(StringBuilder b, Explanation.Gang g, boolean nodeDetail) {
        title(b, g);
        if (g.domain() != null && g.cost() != null) {
            planLine(b, g);
        }
        if (!g.reasons().isEmpty()) {
            b.append("why not:\n");
            for (Explanation.ReasonEntry r : g.reasons()) {
                b.append("  ").append(r.summary());
                if (r.detail() != null && !r.detail().isEmpty()) {
                    b.append(": ").append(r.detail());
                }
                b.append('\n');
            }
        }
        if (!g.placements().isEmpty()) {
            placementTable(b, g);
        }
        if (!g.status().equals(Explanation.Gang.PLACED)) {
            b.append("nodes: ").append(g.nodes().isEmpty()
                    ? "not examined (the gang was refused before any node)" : nodesLine(g)).append('\n');
            for (Explanation.ReasonGroup r : g.reasonGroups()) {
                b.append("  ").append(r.summary()).append(" (").append(r.count()).append("): ")
                        .append(String.join(", ", r.nodes())).append('\n');
            }
            if (nodeDetail) {
                nodeLines(b, g);
            } else if (!g.reasonGroups().isEmpty()) {
                b.append("  (--nodes lists every node's reasons)\n");
            }
        } else {
            b.append(g.summary()).append('\n');
        }
        if (!g.pools().isEmpty()) {
            b.append("pools:\n");
            pools(b, g.pools(), true);
        }
        for (String n : g.notices()) {
            b.append("note: ").append(n).append('\n');
        }
    }

    /** {@code == Volcano Job ns/name (PodGroup ..., minMember N): verdict}, then the policy line. */
    private static void title(StringBuilder b, Explanation.Gang g) {
        String what = switch (g.kind()) {
            case "VolcanoJob" -> "Volcano Job";
            default -> g.kind();
        };
        String verdict = switch (g.status()) {
            case Explanation.Gang.PLACED -> "placed";
            case Explanation.Gang.SCHEDULABLE -> "would be placed";
            default -> "UNSCHEDULABLE";
        };
        b.append("== ").append(what).append(' ').append(g.gang());
        if (g.podGroup() != null && !g.kind().equals("PodGroup")) {
            b.append(" (PodGroup ").append(g.podGroup());
            if (g.minMember() != null) {
                b.append(", minMember ").append(g.minMember());
            }
            b.append(')');
        } else if (g.minMember() != null) {
            b.append(" (minMember ").append(g.minMember()).append(')');
        }
        b.append(": ").append(verdict).append('\n');
        if (g.policy() != null) {
            b.append("policy: ").append(g.policy());
            if (!g.policySources().isEmpty()) {
                b.append(" (").append(String.join("; ", g.policySources())).append(')');
            }
            b.append('\n');
        }
    }

    /** The plan's domain, switch hops, local cost, slack and relaxed preferences on one line. */
    private static void planLine(StringBuilder b, Explanation.Gang g) {
        long nodes = g.placements().stream().filter(p -> p.source().equals("plan")).map(Explanation.Placement::node)
                .distinct().count();
        b.append("plan: ").append(nodes).append(nodes == 1 ? " node" : " nodes").append(" in ")
                .append(g.domain().name()).append(" (tier ").append(g.domain().tier()).append(", ")
                .append(g.domain().tierName()).append("); ").append(g.cost().hops())
                .append(g.cost().hops() == 1 ? " switch hop" : " switch hops").append(" between pods, local cost ")
                .append(g.cost().local()).append(", ").append(g.cost().slack())
                .append(g.cost().slack() == 1 ? " GPU" : " GPUs").append(" left free in the domain");
        if (!g.cost().relaxed().isEmpty()) {
            b.append("; relaxed: ").append(String.join(", ", g.cost().relaxed()));
        }
        b.append('\n');
    }

    /** One row per pod: rank, pod, node, GPUs, HCAs, rails, GPU–HCA pairs. */
    private static void placementTable(StringBuilder b, Explanation.Gang g) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[]{"RANK", "POD", "NODE", "GPUS", "HCAS", "RAILS", "PAIRS"});
        for (Explanation.Placement p : g.placements()) {
            List<String> gpus = new ArrayList<>();
            for (Explanation.GpuEntry x : p.gpus()) {
                gpus.add(Integer.toString(x.gpu()));
            }
            String gpuText = gpus.isEmpty() ? p.gpuCount() + " (indices unknown)" : String.join(",", gpus);
            String pairs = pairs(p);
            rows.add(new String[]{p.rank() == null ? "-" : p.rank().toString(), p.pod(),
                    p.node() + (p.source().equals("plan") ? "" : " (bound)"), gpuText,
                    p.hcas().isEmpty() ? "-" : String.join(",", p.hcas()),
                    p.railSet() == null ? "-" : p.railSet(), pairs.isEmpty() ? "-" : pairs});
        }
        table(b, rows, "  ");
    }

    /** Every node's verdict on its own line: fits with its free GPUs, or its reasons. */
    private static void nodeLines(StringBuilder b, Explanation.Gang g) {
        for (Explanation.NodeEntry n : g.nodes()) {
            b.append("  ").append(n.node()).append(": ");
            if (n.feasible()) {
                b.append("fits (").append(n.freeGpus()).append(" GPUs free)");
            } else {
                List<String> rs = new ArrayList<>();
                for (Explanation.ReasonEntry r : n.reasons()) {
                    rs.add(r.detail() == null || r.detail().isEmpty() ? r.summary()
                            : r.summary() + ": " + r.detail());
                }
                b.append(String.join("; ", rs));
            }
            if (n.gpuAccounting() != null) {
                b.append(" [GPUs held: ").append(n.gpuAccounting()).append(']');
            }
            b.append('\n');
        }
    }

    /**
     * @return the GPU–HCA pairs grouped by HCA in local-rank order, each with the farthest distance of the group:
     *         {@code GPU0,1→mlx5_0 PIX  GPU2,3→mlx5_1 PIX} (the form {@code railyard demo} prints)
     */
    public static String pairs(Explanation.Placement p) {
        java.util.Map<String, List<String>> gpus = new java.util.LinkedHashMap<>();
        java.util.Map<String, String> worst = new java.util.HashMap<>();
        for (Explanation.GpuEntry x : p.gpus()) {
            if (x.hca() == null) {
                continue;
            }
            gpus.computeIfAbsent(x.hca(), k -> new ArrayList<>()).add(Integer.toString(x.gpu()));
            if (x.distance() != null) {
                worst.merge(x.hca(), x.distance(), (a, c) -> rank(a) >= rank(c) ? a : c);
            }
        }
        List<String> parts = new ArrayList<>();
        gpus.forEach((h, g) -> parts.add("GPU" + String.join(",", g) + "→" + h
                + (worst.containsKey(h) ? " " + worst.get(h) : "")));
        return String.join("  ", parts);
    }

    private static int rank(String distance) {
        try {
            return dev.railyard.api.topology.PcieDistance.valueOf(distance).ordinal();
        } catch (IllegalArgumentException e) {
            return -1;
        }
    }

    /** The engine's node summary: the part of {@code summary} that counts nodes, without the gang reasons. */
    private static String nodesLine(Explanation.Gang g) {
        String s = g.summary();
        int i = s.lastIndexOf(" nodes available");
        if (i < 0) {
            return s;
        }
        int start = s.lastIndexOf("; ", i);
        return start < 0 ? s : s.substring(start + 2);
    }

    /** At most this many holders are named per pool; the rest are counted. */
    static final int HOLDS_SHOWN = 10;

    /**
     * @return {@code job/w-0 (kube bind, gpu-a1, since 2026-12-01T17:40:00Z, until 2026-12-01T17:45:00Z, on the pod),
     *         job/w-1 (bound, address not recorded yet, gpu-a2)}
     */
    static String holders(List<Explanation.HoldLine> holds) {
        // holders taken together (one gang's plan, one kube filter) share who, since and until: said once per run
        List<String> groups = new ArrayList<>();
        String lastKey = null;
        List<String> pods = new ArrayList<>();
        for (int i = 0; i < Math.min(HOLDS_SHOWN, holds.size()); i++) {
            Explanation.HoldLine h = holds.get(i);
            List<String> parts = new ArrayList<>(List.of(h.by()));
            if (h.since() != null) {
                parts.add("since " + seconds(h.since()));
            }
            if (h.until() != null) {
                parts.add("until " + seconds(h.until()));
            }
            if (h.persisted()) {
                parts.add("on the pod");
            }
            String key = String.join(", ", parts);
            if (!key.equals(lastKey) && lastKey != null) {
                groups.add(lastKey + ": " + String.join(", ", pods));
                pods = new ArrayList<>();
            }
            lastKey = key;
            pods.add(h.podRef() + (h.addresses() > 1 ? " ×" + h.addresses() : "")
                    + (h.node() == null ? "" : " on " + h.node()));
        }
        if (lastKey != null) {
            groups.add(lastKey + ": " + String.join(", ", pods));
        }
        int more = holds.size() - HOLDS_SHOWN;
        return String.join("; ", groups) + (more > 0 ? " and " + more + " more" : "");
    }

    /** An RFC 3339 time to whole seconds, as a person reads it (the JSON keeps the exact one). */
    private static String seconds(String rfc3339) {
        try {
            return java.time.Instant.parse(rfc3339).truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
        } catch (java.time.format.DateTimeParseException e) {
            return rfc3339;
        }
    }

    private static void pools(StringBuilder b, List<Explanation.PoolLine> pools, boolean needed) {
        List<String[]> rows = new ArrayList<>();
        List<String> head = new ArrayList<>(List.of("NETWORK", "MASTER", "POOL", "NAMESPACE", "USABLE", "ALLOCATED",
                "RESERVED", "IN-FLIGHT", "STALE", "FREE"));
        if (needed) {
            head.add("NEEDED");
        }
        head.add("STATUS");
        rows.add(head.toArray(String[]::new));
        List<String> details = new ArrayList<>();
        java.util.Map<String, String> sameHolders = new java.util.HashMap<>();
        for (Explanation.PoolLine l : pools) {
            List<String> row = new ArrayList<>(List.of(or(l.network(), "(none)"), or(l.master(), "-"),
                    or(l.pool(), "-") + (l.node() == null ? "" : " @" + l.node()),
                    l.pool() == null ? "-" : or(l.poolNamespace(), "(not created)"), num(l.usable()),
                    num(l.allocated()), num(l.reservedElsewhere()), num(l.inFlight()), num(l.stale()),
                    num(l.free())));
            if (needed) {
                row.add(num(l.needed()));
            }
            row.add(l.status());
            rows.add(row.toArray(String[]::new));
            if (!l.status().equals("ok") && !l.status().equals("unused") && l.message() != null) {
                details.add("  " + l.message());
            }
            if (!l.staleHolders().isEmpty()) {
                List<String> hs = new ArrayList<>();
                for (int i = 0; i < Math.min(STALE_SHOWN, l.staleHolders().size()); i++) {
                    Explanation.StaleHolder h = l.staleHolders().get(i);
                    hs.add(h.address() + (h.podRef() == null ? "" : " (" + h.podRef()
                            + (h.ifname() == null ? "" : " " + h.ifname()) + ")"));
                }
                int more = l.staleHolders().size() - STALE_SHOWN;
                details.add("  stale in " + l.pool() + ": " + String.join(", ", hs)
                        + (more > 0 ? " and " + more + " more" : ""));
            }
            for (String inc : l.inconsistencies()) {
                details.add("  inconsistent " + l.pool() + ": " + inc);
            }
            if (!l.holds().isEmpty()) {
                String text = holders(l.holds());
                // a pod on several networks holds one address in each pool: said once, then referred to
                String earlier = sameHolders.putIfAbsent(text, l.pool());
                details.add("  in flight in " + l.pool() + ": " + (earlier == null ? text : "the same as in " + earlier));
            }
        }
        table(b, rows, "  ");
        details.forEach(d -> b.append(d).append('\n'));
    }

    private static String or(String s, String dflt) {
        return s == null ? dflt : s;
    }

    private static String num(Long n) {
        return n == null ? "-" : n == Long.MAX_VALUE ? "unlimited" : n.toString();
    }

    /** Left-aligned columns separated by two spaces; numbers are not right-aligned so that columns stay greppable. */
    private static void table(StringBuilder b, List<String[]> rows, String indent) {
        int cols = rows.get(0).length;
        int[] w = new int[cols];
        for (String[] r : rows) {
            for (int c = 0; c < cols; c++) {
                w[c] = Math.max(w[c], r[c].length());
            }
        }
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder(indent);
            for (int c = 0; c < cols; c++) {
                line.append(r[c]);
                if (c < cols - 1) {
                    line.append(" ".repeat(w[c] - r[c].length() + 2));
                }
            }
            b.append(line.toString().stripTrailing()).append('\n');
        }
    }
}
