package dev.railyard.topology.fabric;

import dev.railyard.api.volcano.HyperNode;

import java.util.Map;
import java.util.TreeMap;

/**
 * Multi-node NVLink domains (an NVL72 rack's 18 trays are one) as Kubernetes shows them: GPU feature discovery (in
 * the NVIDIA device plugin) labels each node whose GPUs are attached to an NVLink fabric with
 * {@value #CLIQUE_LABEL}{@code =<cluster UUID>.<clique id>} (NVML's GPU fabric info; the label is left off when the
 * GPUs disagree), so nodes with equal values share one NVLink domain. A Volcano HyperNode that selects its nodes by
 * that label stands for the domain too. Format notes: {@code docs/formats/nvlink-clique.md}. Stateless.
 */
public final class NvlinkDomains {
    /** GPU feature discovery's label: {@code <cluster UUID>.<clique id>}. */
    public static final String CLIQUE_LABEL = "nvidia.com/gpu.clique";

    /** Last overlay per base model (weak keys, by identity), so an unchanged fabric keeps one model instance. */
    private static final Map<FabricModel, Overlaid> LAST =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    private record Overlaid(Map<String, String> domains, FabricModel model) {
    }

    private NvlinkDomains() {
    }

    /**
     * @param nodeLabels node name → labels
     * @return node name → NVLink domain (the label value) for every node that carries the label
     */
    public static Map<String, String> fromLabels(Map<String, Map<String, String>> nodeLabels) {
        Map<String, String> out = new TreeMap<>();
        nodeLabels.forEach((node, labels) -> {
            String v = labels == null ? null : labels.get(CLIQUE_LABEL);
            if (v != null && !v.isBlank()) {
                out.put(node, v.strip());
            }
        });
        return out;
    }

    /**
     * @param model      a fabric from any source
     * @param nodeLabels node name → labels
     * @return the model with the labelled nodes' NVLink domains added (the same instance when there are none)
     */
    public static FabricModel overlay(FabricModel model, Map<String, Map<String, String>> nodeLabels) {
        Map<String, String> domains = fromLabels(nodeLabels);
        if (domains.isEmpty()) {
            return model;
        }
        Overlaid last = LAST.get(model);
        if (last != null && last.domains().equals(domains)) {
            return last.model();  // same instance: caches keyed by the model (the planner's domain trees) keep hitting
        }
        FabricModel out = model.withNvlinkDomains(domains);
        LAST.put(model, new Overlaid(domains, out));
        return out;
    }

    /** @return true when one of the HyperNode's node selectors matches on {@value #CLIQUE_LABEL} */
    static boolean carriesClique(HyperNode h) {
        for (HyperNode.Member m : h.members()) {
            HyperNode.LabelMatch lm = m.selector() == null ? null : m.selector().labelMatch();
            if (m.type() == HyperNode.MemberType.NODE && lm != null && (lm.matchLabels().containsKey(CLIQUE_LABEL)
                    || lm.matchExpressions().stream().anyMatch(r -> CLIQUE_LABEL.equals(r.key())))) {
                return true;
            }
        }
        return false;
    }
}
