package dev.railyard.scheduler.engine;

/**
 * One RDMA extended resource on a node, as the rdma-shared-dev-plugin advertises it
 * ({@code nvidia.com/mlx5_0: 100} in {@code status.allocatable}).
 *
 * @param resource  extended-resource name ({@code nvidia.com/mlx5_0})
 * @param hca       the HCA it exposes on this node ({@code mlx5_0}), or null when unknown (the plugin selects by
 *                  netdev, so the mapping comes from its config and the node's netdevs)
 * @param capacity  allocatable slots
 * @param allocated slots held by pods bound to the node
 */
public record HcaResource(String resource, String hca, long capacity, long allocated) {
    /** @return free slots, never negative */
    public long free() {
        return Math.max(0, capacity - allocated);
    }
}
