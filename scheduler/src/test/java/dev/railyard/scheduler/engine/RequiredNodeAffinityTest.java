package dev.railyard.scheduler.engine;

import dev.railyard.scheduler.engine.RequiredNodeAffinity.Requirement;
import dev.railyard.scheduler.engine.RequiredNodeAffinity.Term;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Node selector and required node affinity matched as kube-scheduler matches them
 * (k8s.io/component-helpers/scheduling/corev1/nodeaffinity: nodeSelector ANDed with the ORed terms; an empty term
 * matches nothing; a term with an unparsable expression is skipped; label Gt/Lt compare 64-bit integers).
 */
class RequiredNodeAffinityTest {
    private static final Map<String, String> B1 = Map.of("kubernetes.io/hostname", "gpu-b1",
            "network.topology.nvidia.com/leaf", "leaf-b", "gpus", "8");

    private static RequiredNodeAffinity terms(Term... terms) {
        return new RequiredNodeAffinity(Map.of(), List.of(terms));
    }

    private static Term labels(Requirement... r) {
        return new Term(List.of(r), List.of());
    }

    private static Requirement req(String key, String op, String... values) {
        return new Requirement(key, op, List.of(values));
    }

    @Test
    void noConstraintMatchesEveryNode() {
        assertThat(RequiredNodeAffinity.ANY.isAny()).isTrue();
        assertThat(RequiredNodeAffinity.ANY.matches("anything", Map.of())).isTrue();
    }

    @Test
    void nodeSelectorNeedsEveryLabelEqual() {
        var sel = new RequiredNodeAffinity(Map.of("network.topology.nvidia.com/leaf", "leaf-b"), null);
        assertThat(sel.matches("gpu-b1", B1)).isTrue();
        assertThat(sel.matches("gpu-a1", Map.of("network.topology.nvidia.com/leaf", "leaf-a"))).isFalse();
        assertThat(sel.matches("gpu-x", Map.of())).isFalse();
    }

    @Test
    void labelOperatorsFollowTheLabelSelectorRules() {
        // In: label present with a listed value; the e2e scenario pins pods this way by hostname
        assertThat(terms(labels(req("kubernetes.io/hostname", "In", "gpu-b1", "gpu-b2"))).matches("gpu-b1", B1))
                .isTrue();
        assertThat(terms(labels(req("kubernetes.io/hostname", "In", "gpu-b2"))).matches("gpu-b1", B1)).isFalse();
        // NotIn and DoesNotExist hold when the label is absent
        assertThat(terms(labels(req("zone", "NotIn", "z1"))).matches("gpu-b1", B1)).isTrue();
        assertThat(terms(labels(req("gpus", "NotIn", "8"))).matches("gpu-b1", B1)).isFalse();
        assertThat(terms(labels(req("zone", "DoesNotExist"))).matches("gpu-b1", B1)).isTrue();
        assertThat(terms(labels(req("gpus", "Exists"))).matches("gpu-b1", B1)).isTrue();
        // Gt/Lt: strict integer comparison of the label value; an absent or non-integer label fails
        assertThat(terms(labels(req("gpus", "Gt", "7"))).matches("gpu-b1", B1)).isTrue();
        assertThat(terms(labels(req("gpus", "Gt", "8"))).matches("gpu-b1", B1)).isFalse();
        assertThat(terms(labels(req("gpus", "Lt", "9"))).matches("gpu-b1", B1)).isTrue();
        assertThat(terms(labels(req("network.topology.nvidia.com/leaf", "Gt", "1"))).matches("gpu-b1", B1))
                .isFalse();
        assertThat(terms(labels(req("zone", "Lt", "1"))).matches("gpu-b1", B1)).isFalse();
    }

    @Test
    void termsAreOredExpressionsInsideATermAnded() {
        Term wrongLeaf = labels(req("network.topology.nvidia.com/leaf", "In", "leaf-a"));
        Term rightLeafAndHost = labels(req("network.topology.nvidia.com/leaf", "In", "leaf-b"),
                req("kubernetes.io/hostname", "In", "gpu-b1"));
        Term rightLeafWrongHost = labels(req("network.topology.nvidia.com/leaf", "In", "leaf-b"),
                req("kubernetes.io/hostname", "In", "gpu-b2"));
        assertThat(terms(wrongLeaf, rightLeafAndHost).matches("gpu-b1", B1)).isTrue();
        assertThat(terms(wrongLeaf, rightLeafWrongHost).matches("gpu-b1", B1)).isFalse();
    }

    @Test
    void emptyTermsAndUnparsableTermsMatchNothing() {
        assertThat(terms().matches("gpu-b1", B1)).as("required affinity without terms").isFalse();
        assertThat(terms(new Term(List.of(), List.of())).matches("gpu-b1", B1)).as("empty term").isFalse();
        // unknown operator, In without values, Exists with a value, Gt with a non-integer: the term is skipped, so
        // a valid second term can still match
        for (Requirement bad : List.of(req("gpus", "Equals", "8"), req("gpus", "In"), req("gpus", "Exists", "8"),
                req("gpus", "Gt", "eight"))) {
            assertThat(terms(labels(bad)).matches("gpu-b1", B1)).as(bad.toString()).isFalse();
            assertThat(terms(labels(bad), labels(req("gpus", "Exists"))).matches("gpu-b1", B1)).as(bad.toString())
                    .isTrue();
        }
    }

    @Test
    void matchFieldsSelectByNodeName() {
        Term in = new Term(List.of(), List.of(req("metadata.name", "In", "gpu-b1")));
        Term notIn = new Term(List.of(), List.of(req("metadata.name", "NotIn", "gpu-b1")));
        assertThat(terms(in).matches("gpu-b1", B1)).isTrue();
        assertThat(terms(in).matches("gpu-b2", Map.of())).isFalse();
        assertThat(terms(notIn).matches("gpu-b1", B1)).isFalse();
        // field selectors take exactly one value and only metadata.name
        assertThat(terms(new Term(List.of(), List.of(req("metadata.name", "In", "gpu-b1", "gpu-b2"))))
                .matches("gpu-b1", B1)).isFalse();
        assertThat(terms(new Term(List.of(), List.of(req("metadata.uid", "In", "gpu-b1")))).matches("gpu-b1", B1))
                .isFalse();
    }

    @Test
    void nodeSelectorAndAffinityMustBothHold() {
        var both = new RequiredNodeAffinity(Map.of("gpus", "8"),
                List.of(labels(req("kubernetes.io/hostname", "In", "gpu-b2"))));
        assertThat(both.matches("gpu-b1", B1)).isFalse();
        assertThat(both.matches("gpu-b2", Map.of("gpus", "8", "kubernetes.io/hostname", "gpu-b2"))).isTrue();
    }
}
