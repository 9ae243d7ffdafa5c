package dev.railyard.api.topology;

import java.util.List;

/**
 * One RDMA extended resource of the node and the HCAs behind it.
 *
 * @param resourceName extended resource name, {@code <resourcePrefix>/<resourceName>} ({@code nvidia.com/mlx5_0})
 * @param hcas         HCAs the plugin selects for this resource; empty when none matched (the plugin then reports
 *                     zero devices)
 * @param mappedBy     how the mapping was made: {@code selectors} (the plugin's config, evaluated against sysfs) or
 *                     {@code resource-name} (no config: the resource name equals an HCA name, a convention only)
 * @param allocatable  device slots the kubelet can hand out ({@code rdmaHcaMax} when the plugin is healthy), or null
 *                     when the kubelet did not report the resource
 * @param allocated    device slots held by pods
 */
public record RdmaResourceStatus(String resourceName, List<String> hcas, String mappedBy, Integer allocatable,
                                 int allocated) {
    public RdmaResourceStatus {
        hcas = hcas == null ? List.of() : List.copyOf(hcas);
    }
}
