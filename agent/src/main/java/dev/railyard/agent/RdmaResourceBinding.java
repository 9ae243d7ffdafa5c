package dev.railyard.agent;

import java.util.List;

/**
 * An RDMA extended resource and the HCAs whose char devices the plugin mounts for it.
 *
 * @param resourceName {@code <prefix>/<name>} ({@code nvidia.com/mlx5_0})
 * @param hcas         HCA names, ordered as in the node's spec; empty when the selectors match none
 * @param mappedBy     {@code selectors} or {@code resource-name} (see {@link RdmaResourceMapper})
 * @param rdmaHcaMax   slots the config advertises, or null when mapped by name (no config)
 */
public record RdmaResourceBinding(String resourceName, List<String> hcas, String mappedBy, Integer rdmaHcaMax) {
    /** Mapped by evaluating the plugin's selectors against sysfs. */
    public static final String BY_SELECTORS = "selectors";
    /** Mapped because the resource's name equals an HCA name; a convention, nothing enforces it. */
    public static final String BY_RESOURCE_NAME = "resource-name";

    public RdmaResourceBinding {
        hcas = hcas == null ? List.of() : List.copyOf(hcas);
    }
}
