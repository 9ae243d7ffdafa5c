package dev.railyard.scheduler.cluster;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.Map;

import static dev.railyard.scheduler.cluster.ClusterFixtures.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Extended resources are whole devices: the API server refuses fractions and negatives, so Railyard does too. */
class PodViewTest {
    @Test
    void wholeDeviceCountsAreRead() {
        PodView p = PodView.of(pod("prod", "p", null, Map.of(), Map.of("nvidia.com/gpu", "4", "cpu", "1500m")));
        assertThat(p.gpus()).isEqualTo(4);
        // cpu is not an extended resource: 1500m = 1.5 cores stays fractional
        assertThat(p.requests().get("cpu")).isEqualByComparingTo(new BigDecimal("1.5"));
    }

    @Test
    void fractionalOrNegativeDevicesAreRefusedNamingThePod() {
        assertThatThrownBy(() -> PodView.of(pod("prod", "half", null, Map.of(), Map.of("nvidia.com/gpu", "1.5"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("prod/half").hasMessageContaining("nvidia.com/gpu 1.5");
        assertThatThrownBy(() -> PodView.of(pod("prod", "neg", null, Map.of(), Map.of("nvidia.com/mlx5_0", "-1"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nvidia.com/mlx5_0 -1");
    }

    @Test
    @SuppressWarnings("unchecked")
    void nodeSelectorAndRequiredNodeAffinityAreReadIntoTheRequest() {
        // the shape SeedWorkloads.gangJob gives e2e pods (kubernetes.io/hostname In [...]), plus a nodeSelector and
        // a matchFields term; the preferred affinity does not restrict nodes and is not read
        var raw = pod("prod", "p", null, Map.of(), Map.of("nvidia.com/gpu", "4"));
        Map<String, Object> spec = (Map<String, Object>) raw.getAdditionalProperties().get("spec");
        spec.put("nodeSelector", Map.of("gpu", "h100"));
        spec.put("affinity", Map.of("nodeAffinity", Map.of(
                "requiredDuringSchedulingIgnoredDuringExecution", Map.of("nodeSelectorTerms", java.util.List.of(
                        Map.of("matchExpressions", java.util.List.of(Map.of("key", "kubernetes.io/hostname",
                                "operator", "In", "values", java.util.List.of("gpu-b1", "gpu-b2")))),
                        Map.of("matchFields", java.util.List.of(Map.of("key", "metadata.name", "operator", "In",
                                "values", java.util.List.of("gpu-n1")))))),
                "preferredDuringSchedulingIgnoredDuringExecution", java.util.List.of(Map.of("weight", 1,
                        "preference", Map.of("matchExpressions", java.util.List.of(Map.of("key", "x",
                                "operator", "Exists"))))))));

        var affinity = PodView.of(raw).request(java.util.Set.of()).nodeAffinity();

        assertThat(affinity.isAny()).isFalse();
        assertThat(affinity.matches("gpu-b2", Map.of("gpu", "h100", "kubernetes.io/hostname", "gpu-b2"))).isTrue();
        assertThat(affinity.matches("gpu-n1", Map.of("gpu", "h100"))).isTrue();
        // the nodeSelector still has to hold; other hosts match no term
        assertThat(affinity.matches("gpu-b2", Map.of("kubernetes.io/hostname", "gpu-b2"))).isFalse();
        assertThat(affinity.matches("gpu-a1", Map.of("gpu", "h100", "kubernetes.io/hostname", "gpu-a1"))).isFalse();
        // a pod without either may go anywhere
        assertThat(PodView.of(pod("prod", "q", null, Map.of(), Map.of())).nodeAffinity().isAny()).isTrue();
    }
}
