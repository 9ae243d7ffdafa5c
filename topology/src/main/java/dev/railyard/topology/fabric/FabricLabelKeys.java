package dev.railyard.topology.fabric;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Which node labels describe a node's place in the fabric. Each scheme is a list of label keys from tier 1 (the
 * switch closest to the node) upwards; for each node the first scheme whose tier-1 key the node carries is used, and
 * its keys are read upwards until one is missing.
 *
 * @param schemes label-key lists, tried in order
 */
public record FabricLabelKeys(List<List<String>> schemes) {
    /** NVIDIA topograph ≥ v1.0.0: {@code fabric.topograph.run/tier-N}, tier 0 = the switch closest to the node. */
    public static final List<String> TOPOGRAPH_V1 = List.of(
            "fabric.topograph.run/tier-0", "fabric.topograph.run/tier-1", "fabric.topograph.run/tier-2",
            "fabric.topograph.run/tier-3", "fabric.topograph.run/tier-4", "fabric.topograph.run/tier-5");
    /** NVIDIA topograph before v1.0.0: {@code network.topology.nvidia.com/{leaf,spine,core}}. */
    public static final List<String> TOPOGRAPH_TREE = List.of(
            "network.topology.nvidia.com/leaf", "network.topology.nvidia.com/spine",
            "network.topology.nvidia.com/core");
    /** Early topograph releases: {@code network.topology.nvidia.com/{block,spine,datacenter}}. */
    public static final List<String> TOPOGRAPH_EARLY = List.of(
            "network.topology.nvidia.com/block", "network.topology.nvidia.com/spine",
            "network.topology.nvidia.com/datacenter");
    /** Kueue's documentation example for on-premises clusters: rack under block. */
    public static final List<String> KUEUE_RACK_BLOCK = List.of(
            "cloud.provider.com/topology-rack", "cloud.provider.com/topology-block");
    /** GKE's compact-placement labels, as Kueue users reference them: sub-block under block. */
    public static final List<String> GKE_BLOCK = List.of(
            "cloud.google.com/gce-topology-subblock", "cloud.google.com/gce-topology-block");

    public FabricLabelKeys {
        if (schemes == null || schemes.isEmpty()) {
            throw new IllegalArgumentException("at least one label-key scheme is needed");
        }
        List<List<String>> copy = new ArrayList<>();
        for (List<String> s : schemes) {
            if (s == null || s.isEmpty()) {
                throw new IllegalArgumentException("a label-key scheme is empty");
            }
            copy.add(List.copyOf(s));
        }
        schemes = List.copyOf(copy);
    }

    /** @return the defaults: topograph v1, topograph tree, early topograph, Kueue rack/block, GKE block, in that order */
    public static FabricLabelKeys defaults() {
        return new FabricLabelKeys(List.of(TOPOGRAPH_V1, TOPOGRAPH_TREE, TOPOGRAPH_EARLY, KUEUE_RACK_BLOCK, GKE_BLOCK));
    }

    /**
     * @param keys comma-separated label keys from tier 1 upwards ({@code example.com/rack,example.com/block})
     * @return a single scheme
     * @throws IllegalArgumentException when the list is empty
     */
    public static FabricLabelKeys parse(String keys) {
        List<String> list = Arrays.stream(keys.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
        if (list.isEmpty()) {
            throw new IllegalArgumentException("no label keys in '" + keys + "'");
        }
        return new FabricLabelKeys(List.of(list));
    }
}
