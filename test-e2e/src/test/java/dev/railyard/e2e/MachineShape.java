package dev.railyard.e2e;

import dev.railyard.api.topology.NodeTopology;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import java.util.TreeMap;

/**
 * A machine type for fake e2e nodes: the hardware (a real {@code nvidia-smi topo -m} dump and its cabling,
 * {@link FixtureMachines.Machine}), how many GPUs the node advertises, and the RDMA resources its
 * rdma-shared-dev-plugin advertises (resource → the netdev it selects, {@code slots} each).
 *
 * @param name          a short name for messages and labels
 * @param hardware      the dump and cabling
 * @param gpus          {@code nvidia.com/gpu} capacity
 * @param rdmaResources RDMA resource → netdev it selects ({@code nvidia.com/mlx5_0 → lan2})
 * @param slots         slots per RDMA resource ({@code rdmaHcaMax})
 */
public record MachineShape(String name, FixtureMachines.Machine hardware, int gpus, Map<String, String> rdmaResources,
                           int slots) {
    public MachineShape {
        rdmaResources = new TreeMap<>(rdmaResources);
    }

    /** The seed's shape on {@code hardware}: 8 GPUs, {@code nvidia.com/mlx5_0..3} on lan2..lan5, 100 slots each. */
    public static MachineShape seed(String name, FixtureMachines.Machine hardware) {
        return new MachineShape(name, hardware, GpuNodes.GPUS, FixtureMachines.RDMA_RESOURCES, GpuNodes.HCA_SLOTS);
    }

    /** Capacity (= allocatable) of a node of this shape. */
    public Map<String, Quantity> capacity() {
        return GpuNodes.capacity(gpus, rdmaResources.keySet(), slots);
    }

    /** The {@code NodeTopology} the node agent would publish for node {@code node} of this shape. */
    public NodeTopology nodeTopology(String node) {
        return FixtureMachines.nodeTopology(node, hardware, rdmaResources, slots);
    }
}
