package dev.railyard.api.topology;

import java.util.List;

/**
 * The GPUs and RDMA resources one pod holds on the node, merged over its containers.
 *
 * @param namespace    pod namespace
 * @param name         pod name
 * @param gpus         GPU devices, in the order the kubelet reported them
 * @param rdmaResources RDMA extended resources with the HCAs behind them, ordered by resource name
 */
public record PodAllocation(String namespace, String name, List<AllocatedGpu> gpus,
                            List<AllocatedRdmaResource> rdmaResources) {
    public PodAllocation {
        gpus = gpus == null ? List.of() : List.copyOf(gpus);
        rdmaResources = rdmaResources == null ? List.of() : List.copyOf(rdmaResources);
    }
}
