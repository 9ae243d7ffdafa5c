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
    void moreDevicesThanAnIntHoldsAreRefusedNamingContainerAndResource() {
        // was: gpus() clamped 99999999999999999999 to 2147483647 without a word; that text is now refused as above
        // 2^63-1 before any arithmetic (Quantities), so a count between the two bounds shows the device cap
        assertThatThrownBy(() -> PodView.of(pod("prod", "huge", null, Map.of(),
                Map.of("nvidia.com/gpu", "9999999999"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("containers[main].resources.requests.nvidia.com/gpu: 9999999999 is more devices "
                        + "than Railyard counts (at most 2147483647)");
        // the cluster view names the pod in front (ClusterView.of warnings)
        ClusterView v = ClusterView.of(ClusterFixtures.objects(java.util.List.of(pod("prod", "huge", null, Map.of(),
                Map.of("nvidia.com/gpu", "9999999999")))), null, null);
        assertThat(v.warnings()).contains("Pod prod/huge: containers[main].resources.requests.nvidia.com/gpu: "
                + "9999999999 is more devices than Railyard counts (at most 2147483647); skipped");
        // two containers that each fit but add up to more
        var twice = pod("prod", "twice", null, Map.of(), Map.of("nvidia.com/gpu", "2147483647"));
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = (Map<String, Object>) twice.getAdditionalProperties().get("spec");
        var main = ((java.util.List<?>) spec.get("containers")).get(0);
        spec.put("containers", java.util.List.of(main, Map.of("name", "side", "resources",
                Map.of("limits", Map.of("nvidia.com/gpu", "1")))));
        assertThatThrownBy(() -> PodView.of(twice)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("pod prod/twice: nvidia.com/gpu 2147483648 in total is more devices than Railyard counts "
                        + "(at most 2147483647)");
        // exactly the int maximum is still a count
        assertThat(PodView.of(pod("prod", "max", null, Map.of(), Map.of("nvidia.com/gpu", "2147483647"))).gpus())
                .isEqualTo(Integer.MAX_VALUE);
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
