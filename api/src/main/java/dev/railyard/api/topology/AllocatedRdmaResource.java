package dev.railyard.api.topology;

import java.util.List;

/**
 * One RDMA extended resource a pod holds (an rdma-shared-dev-plugin pool such as {@code nvidia.com/mlx5_0}).
 *
 * @param resourceName extended resource name, {@code <resourcePrefix>/<resourceName>}
 * @param deviceIds    the plugin's slot ids granted ({@code "0"} .. {@code "<rdmaHcaMax - 1>"}); opaque, they name
 *                     no device
 * @param hcas         HCAs behind the resource (every selected HCA's char devices are mounted into the pod); empty
 *                     when the resource could not be mapped to an HCA
 */
public record AllocatedRdmaResource(String resourceName, List<String> deviceIds, List<String> hcas) {
    public AllocatedRdmaResource {
        deviceIds = deviceIds == null ? List.of() : List.copyOf(deviceIds);
        hcas = hcas == null ? List.of() : List.copyOf(hcas);
    }
}
