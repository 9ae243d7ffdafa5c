package dev.railyard.topology.fabric;

import dev.railyard.api.volcano.HyperNode;
import dev.railyard.topology.InputException;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FabricModelTest {
    /** Two scalable units of two nodes, two rails; leaves of rail r go to spine-r; both spines to core. */
    static final String RAIL_OPTIMISED = """
            apiVersion: railyard.dev/v1alpha1
            kind: Fabric
            switches:
              - {name: core, tier: 3}
              - {name: spine-r0, tier: 2, uplinks: [core]}
              - {name: spine-r1, tier: 2, uplinks: [core]}
              - {name: su1-leaf-r0, tier: 1, uplinks: [spine-r0]}
              - {name: su1-leaf-r1, tier: 1, uplinks: [spine-r1]}
              - {name: su2-leaf-r0, tier: 1, uplinks: [spine-r0]}
              - {name: su2-leaf-r1, tier: 1, uplinks: [spine-r1]}
            nodes:
              - names: [a1, a2]
                rails: [su1-leaf-r0, su1-leaf-r1]
              - names: [b1, b2]
                rails: [su2-leaf-r0, su2-leaf-r1]
              - name: cpu
                leaf: su1-leaf-r0
            """;

    static FabricModel read(String yaml) {
        return FabricFile.read(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), "fabric.yaml");
    }

    @Test
    void railOptimisedFabricCountsSwitchHopsPerRail() {
        FabricModel f = read(RAIL_OPTIMISED);
        assertThat(f.maxTier()).isEqualTo(3);
        assertThat(f.tierNames()).containsExactly("leaf", "spine", "core");
        // same node: 0; same SU: through the rail's leaf, 1 switch; other SU: leaf-spine-leaf, 3 switches
        assertThat(f.hops("a1", "a1", 0)).isZero();
        assertThat(f.hops("a1", "a2", 0)).isEqualTo(1);
        assertThat(f.hops("a1", "b1", 1)).isEqualTo(3);
        assertThat(f.commonTier("a1", "b2", 0)).isEqualTo(2);
        // the cpu node hangs all rails on su1-leaf-r0: on rail 1 it meets a1 only at the core (r0 and r1 planes
        // join there): leaf-spine-core-spine-leaf = 5 switches
        assertThat(f.hops("cpu", "a1", 0)).isEqualTo(1);
        assertThat(f.hops("cpu", "a1", 1)).isEqualTo(5);
        // a node the fabric does not know is maxTier + 1 = 4 tiers away: 7
        assertThat(f.hops("a1", "ghost", 0)).isEqualTo(7);
        assertThat(f.position("a1").leaf(1)).isEqualTo("su1-leaf-r1");
        assertThat(f.domainName(2, f.position("b1").domain(0, 2))).isEqualTo("spine-r0");
        assertThat(f.notices()).isEmpty();
    }

    @Test
    void leavesWithSeveralSpinesJoinThroughAnyOfThem() {
        // not a tree: l1 has two spines, l2 shares one of them
        FabricModel f = read("""
                switches:
                  - {name: s1, tier: 2}
                  - {name: s2, tier: 2}
                  - {name: l1, tier: 1, uplinks: [s1, s2]}
                  - {name: l2, tier: 1, uplinks: [s2]}
                  - {name: l3, tier: 1, uplinks: [s1]}
                nodes:
                  - {name: x, leaf: l1}
                  - {name: y, leaf: l2}
                  - {name: z, leaf: l3}
                """);
        assertThat(f.hops("x", "y", 0)).isEqualTo(3);
        assertThat(f.hops("x", "z", 0)).isEqualTo(3);
        // y and z share no spine; through l1's two spines they are one tier-2 domain (documented approximation)
        assertThat(f.commonTier("y", "z", 0)).isEqualTo(2);
    }

    @Test
    void noFabricDataMeansEquidistantAndSaysSo() {
        FabricModel f = FabricModel.empty();
        assertThat(f.isEmpty()).isTrue();
        assertThat(f.hops("a", "b", 0)).isEqualTo(1);
        assertThat(f.hops("a", "c", 3)).isEqualTo(1);
        assertThat(f.notices()).containsExactly("no fabric data (no fabric data): all nodes are treated as equidistant");
    }

    @Test
    void badFilesGiveOneLineNamingWhere() {
        assertThatThrownBy(() -> read("switches:\n  - {name: a, tier: 1, color: red}\nnodes: []\n"))
                .isInstanceOf(InputException.class)
                .hasMessage("fabric.yaml: unknown key \"switches[0].color\" (known here: name, tier, uplinks)");
        assertThatThrownBy(() -> read("switches:\n  - {name: l, tier: 1, uplinks: [nowhere]}\n"
                + "nodes:\n  - {name: x, leaf: l}\n"))
                .isInstanceOf(InputException.class)
                .hasMessage("fabric.yaml: switch l: uplink nowhere is not defined");
        assertThatThrownBy(() -> read("switches:\n  - {name: s, tier: 1}\n  - {name: l, tier: 1, uplinks: [s]}\n"
                + "nodes:\n  - {name: x, leaf: l}\n"))
                .hasMessage("fabric.yaml: switch l (tier 1): uplink s is tier 1, not higher");
        assertThatThrownBy(() -> read("switches:\n  - {name: l, tier: 1}\nnodes:\n  - {name: x, leaf: l}\n"
                + "  - {name: x, leaf: l}\n"))
                .hasMessage("fabric.yaml: node x is listed twice");
        assertThatThrownBy(() -> read("switches:\n  - {name: l, tier: 1}\nnodes:\n  - {name: x, leaf: l, rails: [l]}\n"))
                .hasMessage("fabric.yaml: node x: give exactly one of leaf and rails");
        assertThatThrownBy(() -> read("kind: HyperNode\nswitches:\n  - {name: l, tier: 1}\nnodes:\n  - {name: x, leaf: l}\n"))
                .hasMessage("fabric.yaml: kind 'HyperNode' is not Fabric");
        assertThatThrownBy(() -> read("switches:\n  - {name: l, tier: 1}\n  - {name: l, tier: 2}\n"
                + "nodes:\n  - {name: x, leaf: l}\n"))
                .hasMessage("fabric.yaml: switch l is defined twice");
    }

    @Test
    void topographLabelsBuildTiersAndEqualValuesUnderDifferentParentsDiffer() {
        Map<String, Map<String, String>> labels = new LinkedHashMap<>();
        labels.put("n1", Map.of("fabric.topograph.run/tier-0", "leaf1", "fabric.topograph.run/tier-1", "spineA"));
        labels.put("n2", Map.of("fabric.topograph.run/tier-0", "leaf1", "fabric.topograph.run/tier-1", "spineA"));
        labels.put("n3", Map.of("fabric.topograph.run/tier-0", "leaf2", "fabric.topograph.run/tier-1", "spineA"));
        // older topograph keys; "leaf1" again but under another spine: a different leaf
        labels.put("n4", Map.of("network.topology.nvidia.com/leaf", "leaf1", "network.topology.nvidia.com/spine",
                "spineB"));
        labels.put("n5", Map.of("kubernetes.io/hostname", "n5"));
        FabricModel f = NodeLabelFabric.build(labels, FabricLabelKeys.defaults());
        assertThat(f.hops("n1", "n2", 0)).isEqualTo(1);
        assertThat(f.hops("n1", "n3", 5)).isEqualTo(3);
        // spineA and spineB have no common parent: whole-cluster distance, tier 3
        assertThat(f.commonTier("n1", "n4", 0)).isEqualTo(3);
        assertThat(f.position("n5")).isNull();
        assertThat(f.notices()).containsExactly(
                "1 of 5 nodes carry no fabric labels and are treated as farthest from every other node");
        assertThat(f.position("n1").leaf(0)).isEqualTo("spineA/leaf1");
        assertThat(f.fabricSwitch("spineA/leaf1").label()).isEqualTo("leaf1");
    }

    @Test
    void kueueRackBlockLabelsAndCustomKeys() {
        Map<String, Map<String, String>> labels = Map.of(
                "a", Map.of("cloud.provider.com/topology-block", "b1", "cloud.provider.com/topology-rack", "r1"),
                "b", Map.of("cloud.provider.com/topology-block", "b1", "cloud.provider.com/topology-rack", "r2"));
        FabricModel f = NodeLabelFabric.build(labels, FabricLabelKeys.defaults());
        assertThat(f.commonTier("a", "b", 0)).isEqualTo(2);
        FabricModel custom = NodeLabelFabric.build(Map.of("a", Map.of("example.com/rack", "x"),
                "b", Map.of("example.com/rack", "x")), FabricLabelKeys.parse("example.com/rack, example.com/row"));
        assertThat(custom.hops("a", "b", 0)).isEqualTo(1);
    }

    /** case-40 Example 1 in the final API shape: s0..s3 tier 1 (2 nodes each), s4/s5 tier 2, s6 tier 3. */
    @Test
    void volcanoHyperNodesFromCase40() {
        List<HyperNode> h = List.of(
                new HyperNode("s0", 1, "leaf", List.of(HyperNode.Member.node("node0"), HyperNode.Member.node("node1"))),
                new HyperNode("s1", 1, "leaf", List.of(HyperNode.Member.nodesMatching("^node[23]$"))),
                new HyperNode("s2", 1, "leaf", List.of(HyperNode.Member.nodesLabelled(new HyperNode.LabelMatch(
                        Map.of("rack", "r2"), List.of())))),
                new HyperNode("s3", 1, "leaf", List.of(HyperNode.Member.nodesLabelled(new HyperNode.LabelMatch(
                        Map.of(), List.of(new HyperNode.LabelRequirement("rack", "In", List.of("r3"))))))),
                new HyperNode("s4", 2, "spine", List.of(HyperNode.Member.hyperNode("s0"), HyperNode.Member.hyperNode("s1"))),
                new HyperNode("s5", 2, "spine", List.of(HyperNode.Member.hyperNode("s2"), HyperNode.Member.hyperNode("s3"))),
                new HyperNode("s6", 3, "zone", List.of(HyperNode.Member.hyperNode("s4"), HyperNode.Member.hyperNode("s5"))));
        Map<String, Map<String, String>> labels = new LinkedHashMap<>();
        for (int i = 0; i < 8; i++) {
            labels.put("node" + i, Map.of("rack", "r" + (i / 2)));
        }
        FabricModel f = HyperNodeFabric.build(h, labels);
        assertThat(f.tierNames()).containsExactly("leaf", "spine", "zone");
        assertThat(f.tierByName("zone")).contains(3);
        assertThat(f.commonTier("node0", "node1", 0)).isEqualTo(1);
        assertThat(f.commonTier("node0", "node3", 0)).isEqualTo(2);
        assertThat(f.commonTier("node4", "node7", 0)).isEqualTo(2);
        assertThat(f.commonTier("node1", "node6", 0)).isEqualTo(3);
        assertThat(f.position("node5").leaf(3)).isEqualTo("s2");
    }

    @Test
    void badHyperNodesAreRejectedByName() {
        Map<String, Map<String, String>> labels = Map.of("n", Map.of());
        assertThatThrownBy(() -> HyperNodeFabric.build(List.of(new HyperNode("s4", 2, null,
                List.of(HyperNode.Member.hyperNode("s9")))), labels))
                .isInstanceOf(InputException.class).hasMessage("HyperNode s4: member HyperNode s9 does not exist");
        assertThatThrownBy(() -> HyperNodeFabric.build(List.of(new HyperNode("s0", 1, null,
                List.of(new HyperNode.Member(HyperNode.MemberType.NODE, new HyperNode.Selector("a", "b", null))))),
                labels))
                .hasMessage("HyperNode s0: a member selector must set exactly one of exactMatch, regexMatch, "
                        + "labelMatch (has 2)");
        assertThatThrownBy(() -> HyperNodeFabric.build(List.of(new HyperNode("s0", 1, null,
                List.of(HyperNode.Member.nodesMatching("(")))), labels))
                .hasMessageStartingWith("HyperNode s0: regexMatch '(' does not compile");
    }

    @Test
    void hyperNodesStartingAtTierZeroAreShifted() {
        FabricModel f = HyperNodeFabric.build(List.of(
                new HyperNode("leaf", 0, null, List.of(HyperNode.Member.node("a"), HyperNode.Member.node("b")))),
                Map.of("a", Map.of(), "b", Map.of()));
        assertThat(f.commonTier("a", "b", 0)).isEqualTo(1);
        assertThat(f.fromVolcanoTier(0)).isEqualTo(1);
    }
}
