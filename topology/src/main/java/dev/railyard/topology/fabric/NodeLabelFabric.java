package dev.railyard.topology.fabric;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Builds a {@link FabricModel} from node labels (topograph, Kueue-style rack/block labels, or keys of your own).
 *
 * <p>A label value names a domain at its tier; the same value under two different parents is two domains (a domain
 * is identified by its value and the values above it, as Kueue does). Labels carry one switch per node, so every
 * rail of a node hangs under the same tier-1 domain: rail-optimised leaves are not visible through labels. NVLink
 * domains come from {@value NvlinkDomains#CLIQUE_LABEL} ({@link NvlinkDomains}).
 */
public final class NodeLabelFabric {
    private NodeLabelFabric() {
    }

    /**
     * @param nodeLabels node name → labels, for every node to consider
     * @param keys       label-key schemes
     * @return the model; empty (with a notice) when no node carries any of the keys
     */
    public static FabricModel build(Map<String, Map<String, String>> nodeLabels, FabricLabelKeys keys) {
        FabricModel.Builder b = FabricModel.builder(FabricModel.Source.LABELS, "node labels");
        int without = 0;
        NvlinkDomains.fromLabels(nodeLabels).forEach(b::nvlinkDomain);
        for (var e : new TreeMap<>(nodeLabels).entrySet()) {
            Map<String, String> labels = e.getValue() == null ? Map.of() : e.getValue();
            List<String> values = null;
            for (List<String> scheme : keys.schemes()) {
                String v = labels.get(scheme.get(0));
                if (v != null && !v.isBlank()) {
                    values = new ArrayList<>();
                    for (String k : scheme) {
                        String val = labels.get(k);
                        if (val == null || val.isBlank()) {
                            break;
                        }
                        values.add(val);
                    }
                    break;
                }
            }
            if (values == null) {
                without++;
                continue;
            }
            // switch name = path from the top down to this tier, so equal values under different parents differ
            String parent = null;
            for (int t = values.size(); t >= 1; t--) {
                String path = parent == null ? values.get(t - 1) : parent + "/" + values.get(t - 1);
                if (!b.hasSwitch(path)) {
                    b.addSwitch(path, values.get(t - 1), t, parent == null ? List.of() : List.of(parent));
                }
                parent = path;
            }
            b.attachAllRails(e.getKey(), parent);
        }
        if (without > 0 && without < nodeLabels.size()) {
            b.notice(without + " of " + nodeLabels.size() + " nodes carry no fabric labels and are treated as "
                    + "farthest from every other node");
        }
        return b.build();
    }
}
