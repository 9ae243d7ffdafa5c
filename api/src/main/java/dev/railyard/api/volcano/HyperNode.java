package dev.railyard.api.volcano;

import java.util.List;
import java.util.Map;

/**
 * A Volcano {@code HyperNode} ({@code topology.volcano.sh/v1alpha1}, cluster-scoped): one network performance domain
 * (a switch or a group of switches) and its members. The subset Railyard reads, as plain data.
 *
 * <p>Upstream: {@code volcano-sh/volcano} {@code staging/src/volcano.sh/apis/pkg/apis/topology/v1alpha1/hypernode_types.go}
 * (v1.12+; {@code tierName} v1.14+). A smaller tier is a closer, higher-bandwidth domain; tier 1 is usually the leaf
 * switch. Volcano itself insists on a strict tree (one parent per HyperNode).
 *
 * @param name     {@code metadata.name}
 * @param tier     {@code spec.tier} (≥ 0; smaller is closer)
 * @param tierName {@code spec.tierName}, or null
 * @param members  {@code spec.members}, at least one
 */
public record HyperNode(String name, int tier, String tierName, List<Member> members) {
    public HyperNode {
        members = members == null ? List.of() : List.copyOf(members);
    }

    /** {@code spec.members[].type}. */
    public enum MemberType { NODE, HYPER_NODE }

    /**
     * One member: a Kubernetes node or a child HyperNode, chosen by exactly one selector.
     *
     * @param type     Node or HyperNode
     * @param selector how the member is selected; HyperNode members support {@code exactMatch} only
     */
    public record Member(MemberType type, Selector selector) {
        /** @return a Node member selected by exact name */
        public static Member node(String name) {
            return new Member(MemberType.NODE, new Selector(name, null, null));
        }

        /** @return a Node member selected by a regular expression on the node name */
        public static Member nodesMatching(String pattern) {
            return new Member(MemberType.NODE, new Selector(null, pattern, null));
        }

        /** @return a Node member selected by node labels */
        public static Member nodesLabelled(LabelMatch labels) {
            return new Member(MemberType.NODE, new Selector(null, null, labels));
        }

        /** @return a HyperNode member (exact name) */
        public static Member hyperNode(String name) {
            return new Member(MemberType.HYPER_NODE, new Selector(name, null, null));
        }
    }

    /**
     * {@code spec.members[].selector}: exactly one of the three is set.
     *
     * @param exactMatch {@code exactMatch.name}, or null
     * @param regexMatch {@code regexMatch.pattern} (matched against node names, unanchored as Go's
     *                   {@code regexp.MatchString}), or null
     * @param labelMatch {@code labelMatch} (Node members only, v1.12+), or null
     */
    public record Selector(String exactMatch, String regexMatch, LabelMatch labelMatch) {
    }

    /**
     * A Kubernetes label selector ({@code matchLabels} AND {@code matchExpressions}).
     *
     * @param matchLabels      labels that must be present with these values
     * @param matchExpressions further requirements
     */
    public record LabelMatch(Map<String, String> matchLabels, List<LabelRequirement> matchExpressions) {
        public LabelMatch {
            matchLabels = matchLabels == null ? Map.of() : Map.copyOf(matchLabels);
            matchExpressions = matchExpressions == null ? List.of() : List.copyOf(matchExpressions);
        }
    }

    /**
     * One {@code matchExpressions} entry.
     *
     * @param key      label key
     * @param operator {@code In}, {@code NotIn}, {@code Exists} or {@code DoesNotExist}
     * @param values   values for {@code In}/{@code NotIn}
     */
    public record LabelRequirement(String key, String operator, List<String> values) {
        public LabelRequirement {
            values = values == null ? List.of() : List.copyOf(values);
        }
    }
}
