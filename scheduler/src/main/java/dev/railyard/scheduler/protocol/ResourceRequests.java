package dev.railyard.scheduler.protocol;

import dev.railyard.scheduler.input.Quantities;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.TreeMap;

/**
 * A pod's effective resource requests, by resource name, in the resource's base unit: {@code cpu} in cores
 * ({@code 0.5} for {@code 500m}), {@code memory} and {@code ephemeral-storage} in bytes, extended resources
 * such as {@code nvidia.com/gpu} or {@code nvidia.com/mlx5_3} in devices.
 *
 * <p>"Effective" follows Kubernetes' rule (k8s.io/component-helpers resource.PodRequests): the sum over app
 * containers and restartable (sidecar) init containers, at least the largest single init container plus the
 * sidecars started before it, plus {@code spec.overhead}. Resources never requested are absent, not zero.
 *
 * <p>Countable resources (see {@link #countable}) hold at most {@link Quantities#MAX_DEVICES} devices, so
 * {@link #devices} is exact in a {@code long} and fits an {@code int}; the readers refuse more with a 400 before
 * building this record.
 *
 * @param amounts resource name to amount (each &ge; 0); copied, sorted by name
 * @throws IllegalArgumentException when a countable resource is over {@link Quantities#MAX_DEVICES} devices
 */
public record ResourceRequests(Map<String, BigDecimal> amounts) {
    /** NVIDIA device plugin's GPU resource name. */
    public static final String GPU = "nvidia.com/gpu";
    /** Prefix of per-HCA resources advertised by rdma-shared-device-plugin, e.g. {@code nvidia.com/mlx5_0}. */
    public static final String HCA_PREFIX = "nvidia.com/mlx5_";

    /** No requests at all. */
    public static final ResourceRequests NONE = new ResourceRequests(Map.of());

    public ResourceRequests {
        amounts = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(amounts));
        for (var e : amounts.entrySet()) {
            if (countable(e.getKey())) {
                try {
                    Quantities.devices(e.getValue());
                } catch (Quantities.QuantityException q) {
                    throw new IllegalArgumentException(e.getKey() + ": " + q.getMessage());
                }
            }
        }
    }

    /** @return true for the resources Railyard counts devices of: {@value #GPU} and {@value #HCA_PREFIX}N */
    public static boolean countable(String resourceName) {
        return resourceName.equals(GPU) || resourceName.startsWith(HCA_PREFIX);
    }

    /** The requested amount of a resource, zero when not requested. */
    public BigDecimal amount(String resourceName) {
        return amounts.getOrDefault(resourceName, BigDecimal.ZERO);
    }

    /**
     * Requested devices of a {@link #countable} resource, rounded up (extended resources are whole numbers):
     * 0 to {@link Quantities#MAX_DEVICES}.
     */
    public long devices(String resourceName) {
        return amount(resourceName).setScale(0, RoundingMode.CEILING).longValueExact();
    }

    /** Requested {@value #GPU} devices. */
    public long gpus() {
        return devices(GPU);
    }

    /** Requested per-HCA RDMA devices ({@value #HCA_PREFIX}N resources), resource name to devices, sorted. */
    public Map<String, Long> hcaDevices() {
        Map<String, Long> out = new TreeMap<>();
        for (var e : amounts.entrySet()) {
            if (e.getKey().startsWith(HCA_PREFIX)) {
                out.put(e.getKey(), e.getValue().setScale(0, RoundingMode.CEILING).longValueExact());
            }
        }
        return out;
    }
}
