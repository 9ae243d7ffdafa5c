package dev.railyard.scheduler.cluster;

import dev.railyard.api.volcano.HyperNode;
import dev.railyard.api.volcano.PodGroup;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Volcano objects in generic form → the {@code api} records the engine reads: {@code PodGroup}
 * ({@code scheduling.volcano.sh/v1beta1}: {@code spec.minMember}, {@code spec.networkTopology}, annotations) and
 * {@code HyperNode} ({@code topology.volcano.sh/v1alpha1}: {@code spec.tier}, {@code spec.tierName},
 * {@code spec.members[]} with one of {@code exactMatch.name}, {@code regexMatch.pattern}, {@code labelMatch}). Field
 * names follow upstream's {@code hypernode_types.go} and {@code podgroup types.go} (docs/formats/volcano-job.md §2,
 * docs/formats/volcano-network-topology.md §1).
 */
public final class VolcanoObjectConverter {
    private VolcanoObjectConverter() {
    }

    /**
     * @return PodGroups by {@code namespace/name}; one with an unreadable field is skipped with a warning naming it
     */
    public static Converted<Map<String, PodGroup>> podGroups(ClusterObjects objects) {
        List<String> warnings = new ArrayList<>();
        Map<String, PodGroup> out = new LinkedHashMap<>();
        for (GenericKubernetesResource r : objects.of(WatchedKind.POD_GROUP)) {
            try {
                PodGroup pg = podGroup(r);
                out.put(pg.namespace() + "/" + pg.name(), pg);
            } catch (IllegalArgumentException e) {
                warnings.add(ObjectFields.describe(r) + ": " + e.getMessage() + "; skipped");
            }
        }
        return new Converted<>(out, warnings);
    }

    /**
     * @param r a PodGroup in generic form
     * @return the record; {@code minMember} 1 when unset (Volcano's default)
     * @throws IllegalArgumentException naming the field when {@code minMember} or {@code networkTopology} is malformed
     */
    public static PodGroup podGroup(GenericKubernetesResource r) {
        String ns = r.getMetadata().getNamespace() == null ? "default" : r.getMetadata().getNamespace();
        Object spec = ObjectFields.at(r, "spec");
        int min = integer(ObjectFields.at(spec, "minMember"), "spec.minMember", 1);
        if (min < 0) {
            throw new IllegalArgumentException("spec.minMember " + min + " is negative");
        }
        PodGroup.NetworkTopology nt = networkTopology(ObjectFields.at(spec, "networkTopology"), "spec.networkTopology");
        return new PodGroup(ns, r.getMetadata().getName(), min, nt, ObjectFields.annotations(r));
    }

    /**
     * @param raw  a {@code networkTopology} object (PodGroup or Volcano Job spec), or null
     * @param path its field path, for messages
     * @return the record, or null when {@code raw} is null
     * @throws IllegalArgumentException naming the field when it is malformed
     */
    public static PodGroup.NetworkTopology networkTopology(Object raw, String path) {
        if (raw == null) {
            return null;
        }
        if (!(raw instanceof Map<?, ?>)) {
            throw new IllegalArgumentException(path + " is not an object");
        }
        PodGroup.NetworkTopologyMode mode;
        try {
            mode = PodGroup.NetworkTopologyMode.parse(ObjectFields.text(ObjectFields.at(raw, "mode")));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(path + ".mode: " + e.getMessage());
        }
        Object tier = ObjectFields.at(raw, "highestTierAllowed");
        Integer highest = tier == null ? null : integer(tier, path + ".highestTierAllowed", 0);
        return new PodGroup.NetworkTopology(mode, highest, ObjectFields.text(ObjectFields.at(raw, "highestTierName")));
    }

    /** @return HyperNodes; one with an unreadable field is skipped with a warning naming it */
    public static Converted<List<HyperNode>> hyperNodes(ClusterObjects objects) {
        List<String> warnings = new ArrayList<>();
        List<HyperNode> out = new ArrayList<>();
        for (GenericKubernetesResource r : objects.of(WatchedKind.HYPER_NODE)) {
            try {
                out.add(hyperNode(r));
            } catch (IllegalArgumentException e) {
                warnings.add(ObjectFields.describe(r) + ": " + e.getMessage() + "; skipped");
            }
        }
        return new Converted<>(out, warnings);
    }

    /**
     * @throws IllegalArgumentException naming the field when {@code spec.tier} is missing, a member has an unknown
     *                                  type, or its selector is not an object
     */
    static HyperNode hyperNode(GenericKubernetesResource r) {
        Object spec = ObjectFields.at(r, "spec");
        Object tierRaw = ObjectFields.at(spec, "tier");
        if (tierRaw == null) {
            throw new IllegalArgumentException("spec.tier is missing");
        }
        int tier = integer(tierRaw, "spec.tier", 0);
        List<HyperNode.Member> members = new ArrayList<>();
        List<?> raw = ObjectFields.list(ObjectFields.at(spec, "members"));
        for (int i = 0; i < raw.size(); i++) {
            Object m = raw.get(i);
            String where = "spec.members[" + i + "]";
            String type = ObjectFields.text(ObjectFields.at(m, "type"));
            HyperNode.MemberType mt;
            if ("Node".equals(type)) {
                mt = HyperNode.MemberType.NODE;
            } else if ("HyperNode".equals(type)) {
                mt = HyperNode.MemberType.HYPER_NODE;
            } else {
                throw new IllegalArgumentException(where + ".type '" + type + "' is neither Node nor HyperNode");
            }
            Object sel = ObjectFields.at(m, "selector");
            if (!(sel instanceof Map<?, ?>)) {
                throw new IllegalArgumentException(where + ".selector is missing");
            }
            String exact = ObjectFields.text(ObjectFields.at(sel, "exactMatch", "name"));
            String regex = ObjectFields.text(ObjectFields.at(sel, "regexMatch", "pattern"));
            Object lm = ObjectFields.at(sel, "labelMatch");
            HyperNode.LabelMatch labels = null;
            if (lm instanceof Map<?, ?>) {
                List<HyperNode.LabelRequirement> exprs = new ArrayList<>();
                for (Object e : ObjectFields.list(ObjectFields.at(lm, "matchExpressions"))) {
                    List<String> values = new ArrayList<>();
                    for (Object v : ObjectFields.list(ObjectFields.at(e, "values"))) {
                        values.add(ObjectFields.text(v));
                    }
                    exprs.add(new HyperNode.LabelRequirement(ObjectFields.text(ObjectFields.at(e, "key")),
                            ObjectFields.text(ObjectFields.at(e, "operator")), values));
                }
                labels = new HyperNode.LabelMatch(ObjectFields.strings(ObjectFields.at(lm, "matchLabels")), exprs);
            }
            members.add(new HyperNode.Member(mt, new HyperNode.Selector(exact, regex, labels)));
        }
        return new HyperNode(r.getMetadata().getName(), tier, ObjectFields.text(ObjectFields.at(spec, "tierName")),
                members);
    }

    private static int integer(Object v, String field, int dflt) {
        if (v == null) {
            return dflt;
        }
        if (v instanceof Number n) {
            return n.intValue();
        }
        String t = ObjectFields.text(v);
        try {
            return Integer.parseInt(t == null ? "" : t.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(field + " '" + (t == null ? v : t) + "' is not a whole number");
        }
    }
}
