package dev.railyard.agent;

import dev.railyard.api.topology.NvLink;

import java.util.List;
import java.util.Map;

/**
 * What {@code nvidia-smi} told the agent about the node's GPUs.
 *
 * @param gpus    from {@code nvidia-smi -q -x}: UUID and PCI bus id per NVML index
 * @param nvlinks from {@code nvidia-smi topo -m} (read by {@link dev.railyard.topology.discovery.NvidiaSmiTopoParser}):
 *                NVLink peers per NVML GPU index, peers also NVML indices; empty when that command failed
 */
public record NvidiaSmiInventory(List<NvidiaSmiGpu> gpus, Map<Integer, List<NvLink>> nvlinks) {
    public NvidiaSmiInventory {
        gpus = gpus == null ? List.of() : List.copyOf(gpus);
        nvlinks = nvlinks == null ? Map.of() : Map.copyOf(nvlinks);
    }
}
