package dev.railyard.topology.fabric;

import dev.railyard.api.volcano.HyperNode;
import dev.railyard.topology.InputException;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Builds a {@link FabricModel} from Volcano {@link HyperNode}s: each HyperNode becomes a switch domain at its tier,
 * HyperNode members become uplinks, and each node hangs (all rails) under the lowest-tier HyperNode that selects it
 * by exact name, regular expression (unanchored, as Go's {@code regexp.MatchString}) or labels.
 *
 * <p>Volcano requires a strict tree; this model also accepts a HyperNode listed under two parents (both become
 * uplinks). A node selected by two HyperNodes of its lowest tier is attached to the first by name, with a notice.
 * HyperNode tiers start at 1 in Volcano's examples; when the lowest tier is 0 every tier is shifted up by one and
 * {@link FabricModel#fromVolcanoTier(int)} maps {@code highestTierAllowed} accordingly. NVLink domains: a node's
 * {@value NvlinkDomains#CLIQUE_LABEL} label, else a HyperNode selecting nodes by that label ({@link NvlinkDomains});
 * such a HyperNode also stays a switch domain at its tier, as Volcano sees it.
 */
public final class HyperNodeFabric {
    private HyperNodeFabric() {
    }

    /**
     * @param hyperNodes the HyperNodes
     * @param nodeLabels node name → labels, for every node to consider (labels are needed for {@code labelMatch})
     * @return the model; empty (with a notice) when there are no HyperNodes
     * @throws InputException naming the HyperNode when a member names an unknown HyperNode, a HyperNode member uses a
     *                        selector other than exactMatch, a selector is not exactly one of the three, a regex does
     *                        not compile, or a name is used twice
     */
    public static FabricModel build(List<HyperNode> hyperNodes, Map<String, Map<String, String>> nodeLabels) {
        FabricModel.Builder b = FabricModel.builder(FabricModel.Source.HYPERNODES, "Volcano HyperNodes");
        if (hyperNodes.isEmpty()) {
            return b.build();
        }
        Map<String, HyperNode> byName = byName(hyperNodes);
        int minTier = byName.values().stream().mapToInt(HyperNode::tier).min().orElseThrow();
        int offset = minTier == 0 ? 1 : 0;
        b.volcanoTierOffset(offset);
        List<HyperNode> sorted = new ArrayList<>(byName.values());
        sorted.sort(Comparator.comparingInt(HyperNode::tier).thenComparing(HyperNode::name));
        for (HyperNode h : sorted) {
            b.addSwitch(h.name(), h.name(), h.tier() + offset, List.of());
            b.tierName(h.tier() + offset, h.tierName());
        }
        // child HyperNode -> parent uplinks
        for (HyperNode h : sorted) {
            for (HyperNode.Member m : h.members()) {
                checkSelector(h, m);
                if (m.type() == HyperNode.MemberType.HYPER_NODE) {
                    String child = m.selector().exactMatch();
                    HyperNode c = byName.get(child);
                    if (c == null) {
                        throw new InputException("HyperNode " + h.name() + ": member HyperNode " + child
                                + " does not exist");
                    }
                    if (c.tier() >= h.tier()) {
                        throw new InputException("HyperNode " + h.name() + " (tier " + h.tier() + "): member "
                                + child + " is tier " + c.tier() + ", not lower");
                    }
                    b.addUplink(child, h.name());
                }
            }
        }
        Map<HyperNode, List<Pattern>> patterns = compilePatterns(sorted);
        List<String> ambiguous = new ArrayList<>();
        for (var e : new TreeMap<>(nodeLabels).entrySet()) {
            String node = e.getKey();
            Map<String, String> labels = e.getValue() == null ? Map.of() : e.getValue();
            HyperNode home = null;
            for (HyperNode h : sorted) {
                if (home != null && h.tier() > home.tier()) {
                    break;
                }
                if (selects(h, patterns.get(h), node, labels)) {
                    if (home == null) {
                        home = h;
                    } else {
                        ambiguous.add(node + " (" + home.name() + ", " + h.name() + ")");
                    }
                }
            }
            if (home != null) {
                b.attachAllRails(node, home.name());
            }
        }
        nvlinkDomains(b, sorted, patterns, nodeLabels);
        if (!ambiguous.isEmpty()) {
            b.notice("nodes selected by two HyperNodes of the same tier, attached to the first: "
                    + String.join(", ", ambiguous));
        }
        if (offset == 1) {
            b.notice("HyperNode tiers start at 0; Railyard counts them from 1 (tier t is shown as t+1)");
        }
        return b.build();
    }

    /** @return the HyperNodes by name, checked: named, once each, tier ≥ 0, with members */
    private static Map<String, HyperNode> byName(List<HyperNode> hyperNodes) {
        Map<String, HyperNode> byName = new LinkedHashMap<>();
        for (HyperNode h : hyperNodes) {
            if (h.name() == null || h.name().isBlank()) {
                throw new InputException("a HyperNode has no name");
            }
            if (byName.put(h.name(), h) != null) {
                throw new InputException("HyperNode " + h.name() + " is defined twice");
            }
            if (h.tier() < 0) {
                throw new InputException("HyperNode " + h.name() + ": tier " + h.tier() + " is negative");
            }
            if (h.members().isEmpty()) {
                throw new InputException("HyperNode " + h.name() + " has no members");
            }
        }
        return byName;
    }

    /** @return each HyperNode's compiled node {@code regexMatch} selectors */
    private static Map<HyperNode, List<Pattern>> compilePatterns(List<HyperNode> sorted) {
        Map<HyperNode, List<Pattern>> patterns = new HashMap<>();
        for (HyperNode h : sorted) {
            List<Pattern> ps = new ArrayList<>();
            for (HyperNode.Member m : h.members()) {
                if (m.type() == HyperNode.MemberType.NODE && m.selector().regexMatch() != null) {
                    try {
                        ps.add(Pattern.compile(m.selector().regexMatch()));
                    } catch (PatternSyntaxException e) {
                        throw new InputException("HyperNode " + h.name() + ": regexMatch '"
                                + m.selector().regexMatch() + "' does not compile: " + e.getDescription());
                    }
                }
            }
            patterns.put(h, ps);
        }
        return patterns;
    }

    /**
     * NVLink domains: a node's {@value NvlinkDomains#CLIQUE_LABEL} value, else the name of a HyperNode that selects
     * it by that label (a HyperNode standing for an NVL72 rack).
     */
    private static void nvlinkDomains(FabricModel.Builder b, List<HyperNode> sorted,
                                      Map<HyperNode, List<Pattern>> patterns,
                                      Map<String, Map<String, String>> nodeLabels) {
        NvlinkDomains.fromLabels(nodeLabels).forEach(b::nvlinkDomain);
        for (HyperNode h : sorted) {
            if (!NvlinkDomains.carriesClique(h)) {
                continue;
            }
            for (var e : new TreeMap<>(nodeLabels).entrySet()) {
                Map<String, String> labels = e.getValue() == null ? Map.of() : e.getValue();
                if (selects(h, patterns.get(h), e.getKey(), labels)) {
                    b.nvlinkDomain(e.getKey(), h.name());
                }
            }
        }
    }

    private static void checkSelector(HyperNode h, HyperNode.Member m) {
        HyperNode.Selector s = m.selector();
        if (s == null || m.type() == null) {
            throw new InputException("HyperNode " + h.name() + ": a member has no type or selector");
        }
        int set = (s.exactMatch() != null ? 1 : 0) + (s.regexMatch() != null ? 1 : 0) + (s.labelMatch() != null ? 1 : 0);
        if (set != 1) {
            throw new InputException("HyperNode " + h.name() + ": a member selector must set exactly one of "
                    + "exactMatch, regexMatch, labelMatch (has " + set + ")");
        }
        if (m.type() == HyperNode.MemberType.HYPER_NODE && s.exactMatch() == null) {
            throw new InputException("HyperNode " + h.name() + ": HyperNode members support exactMatch only");
        }
    }

    private static boolean selects(HyperNode h, List<Pattern> patterns, String node, Map<String, String> labels) {
        int regex = 0;
        for (HyperNode.Member m : h.members()) {
            if (m.type() != HyperNode.MemberType.NODE) {
                continue;
            }
            HyperNode.Selector s = m.selector();
            if (s.exactMatch() != null && s.exactMatch().equals(node)) {
                return true;
            }
            if (s.regexMatch() != null) {
                if (patterns.get(regex++).matcher(node).find()) {
                    return true;
                }
            }
            if (s.labelMatch() != null && matches(s.labelMatch(), labels)) {
                return true;
            }
        }
        return false;
    }

    /** Kubernetes label-selector semantics: all matchLabels and all matchExpressions must hold. */
    static boolean matches(HyperNode.LabelMatch sel, Map<String, String> labels) {
        for (var e : sel.matchLabels().entrySet()) {
            if (!e.getValue().equals(labels.get(e.getKey()))) {
                return false;
            }
        }
        for (HyperNode.LabelRequirement r : sel.matchExpressions()) {
            String v = labels.get(r.key());
            boolean ok = switch (r.operator() == null ? "" : r.operator().toLowerCase(Locale.ROOT)) {
                case "in" -> v != null && r.values().contains(v);
                case "notin" -> v == null || !r.values().contains(v);
                case "exists" -> labels.containsKey(r.key());
                case "doesnotexist" -> !labels.containsKey(r.key());
                default -> throw new InputException("label selector operator '" + r.operator()
                        + "' is not In, NotIn, Exists or DoesNotExist");
            };
            if (!ok) {
                return false;
            }
        }
        return !sel.matchLabels().isEmpty() || !sel.matchExpressions().isEmpty();
    }
}
