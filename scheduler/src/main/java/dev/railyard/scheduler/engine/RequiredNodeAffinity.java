package dev.railyard.scheduler.engine;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The nodes a pod may run on by its own spec: {@code spec.nodeSelector} and
 * {@code spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution}, matched the way the scheduler
 * matches them (Kubernetes {@code k8s.io/component-helpers/scheduling/corev1/nodeaffinity},
 * {@code GetRequiredNodeAffinity(pod).Match(node)}):
 * <ul>
 *   <li>every {@code nodeSelector} entry must equal the node's label of that key;</li>
 *   <li>when the required node affinity is given, at least one of its terms must match (terms are ORed); a term
 *       without expressions and fields matches nothing, so an empty term list matches no node;</li>
 *   <li>inside a term every label expression and every field expression must hold (ANDed). Label operators:
 *       {@code In} (label present with one of the values), {@code NotIn} (label absent or none of the values),
 *       {@code Exists}, {@code DoesNotExist}, {@code Gt}/{@code Lt} (exactly one integer value; the label must be
 *       present and parse as a 64-bit integer greater / less than it). Field expressions: key {@code metadata.name},
 *       operator {@code In} or {@code NotIn} with exactly one value;</li>
 *   <li>a term with an expression Kubernetes would not parse (unknown operator, wrong number of values, a
 *       non-integer {@code Gt}/{@code Lt} value, a field other than {@code metadata.name}) matches nothing, as the
 *       scheduler's lazy parser skips it.</li>
 * </ul>
 * The preferred node affinity, pod (anti-)affinity and taints are not part of this: they do not decide which nodes
 * a pod may use at all, or (taints) are the scheduler's own Filter.
 *
 * @param nodeSelector {@code spec.nodeSelector}; empty when none
 * @param terms        the required terms, or null when the pod has no required node affinity (any node matches)
 */
public record RequiredNodeAffinity(Map<String, String> nodeSelector, List<Term> terms) {
    /** No constraint: every node matches. */
    public static final RequiredNodeAffinity ANY = new RequiredNodeAffinity(Map.of(), null);

    public RequiredNodeAffinity {
        nodeSelector = nodeSelector == null ? Map.of() : Map.copyOf(nodeSelector);
        terms = terms == null ? null : List.copyOf(terms);
    }

    /**
     * One {@code nodeSelectorTerms} entry.
     *
     * @param labels {@code matchExpressions}
     * @param fields {@code matchFields}
     */
    public record Term(List<Requirement> labels, List<Requirement> fields) {
        public Term {
            labels = labels == null ? List.of() : List.copyOf(labels);
            fields = fields == null ? List.of() : List.copyOf(fields);
        }

        boolean matches(String nodeName, Map<String, String> nodeLabels) {
            if (labels.isEmpty() && fields.isEmpty()) {
                return false;
            }
            for (Requirement r : labels) {
                if (!r.validForLabels() || !r.matches(nodeLabels.get(r.key()), nodeLabels.containsKey(r.key()))) {
                    return false;
                }
            }
            for (Requirement r : fields) {
                if (!r.validForFields() || !r.matches(nodeName, nodeName != null && !nodeName.isEmpty())) {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * One {@code NodeSelectorRequirement}.
     *
     * @param key      label key, or the field name ({@code metadata.name})
     * @param operator {@code In}, {@code NotIn}, {@code Exists}, {@code DoesNotExist}, {@code Gt}, {@code Lt}
     * @param values   the values; empty when none
     */
    public record Requirement(String key, String operator, List<String> values) {
        public Requirement {
            values = values == null ? List.of() : List.copyOf(values);
        }

        boolean validForLabels() {
            if (key == null || key.isEmpty() || operator == null) {
                return false;
            }
            return switch (operator) {
                case "In", "NotIn" -> !values.isEmpty();
                case "Exists", "DoesNotExist" -> values.isEmpty();
                case "Gt", "Lt" -> values.size() == 1 && integer(values.get(0)) != null;
                default -> false;
            };
        }

        boolean validForFields() {
            return "metadata.name".equals(key) && ("In".equals(operator) || "NotIn".equals(operator))
                    && values.size() == 1;
        }

        boolean matches(String value, boolean present) {
            return switch (operator) {
                case "In" -> present && values.contains(value);
                case "NotIn" -> !present || !values.contains(value);
                case "Exists" -> present;
                case "DoesNotExist" -> !present;
                case "Gt", "Lt" -> {
                    Long have = present ? integer(value) : null;
                    Long bound = integer(values.get(0));
                    yield have != null && bound != null && ("Gt".equals(operator) ? have > bound : have < bound);
                }
                default -> false;
            };
        }

        private static Long integer(String s) {
            if (s == null) {
                return null;
            }
            try {
                return Long.parseLong(s);
            } catch (NumberFormatException e) {
                return null;
            }
        }
    }

    /** @return true when the pod sets neither a node selector nor a required node affinity */
    public boolean isAny() {
        return nodeSelector.isEmpty() && terms == null;
    }

    /**
     * @param nodeName   the node's name ({@code metadata.name} for field expressions)
     * @param nodeLabels the node's labels; null counts as none
     * @return true when the pod may run on the node
     */
    public boolean matches(String nodeName, Map<String, String> nodeLabels) {
        Map<String, String> labels = nodeLabels == null ? Map.of() : nodeLabels;
        for (var e : nodeSelector.entrySet()) {
            if (!Objects.equals(labels.get(e.getKey()), e.getValue())) {
                return false;
            }
        }
        if (terms == null) {
            return true;
        }
        for (Term t : terms) {
            if (t.matches(nodeName, labels)) {
                return true;
            }
        }
        return false;
    }

    /** @return true when the pod may run on the node */
    public boolean matches(NodeState node) {
        return matches(node.name(), node.labels());
    }
}
