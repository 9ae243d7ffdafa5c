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
}
