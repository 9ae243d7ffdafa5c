package dev.railyard.topology.fabric;

import java.util.List;

/**
 * One switch (or switch group) of the fabric.
 *
 * @param name    unique name in the fabric
 * @param label   short name for people and pictures (the switch's own name; for label sources the label value)
 * @param tier    1 = leaf (nodes attach here), 2 = spine, 3 = core, ...
 * @param uplinks names of switches one or more tiers up this switch connects to; several are allowed (a fabric is
 *                not a tree)
 */
public record FabricSwitch(String name, String label, int tier, List<String> uplinks) {
    public FabricSwitch {
        uplinks = uplinks == null ? List.of() : List.copyOf(uplinks);
        label = label == null ? name : label;
    }
}
