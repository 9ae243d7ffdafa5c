package dev.railyard.api.topology;

import java.util.List;

/**
 * One GPU of a node.
 *
 * @param index      NVML index ({@code GPU3} = 3)
 * @param uuid       {@code GPU-...} UUID, or null when the source does not give it
 * @param pciBusId   bus id normalized to sysfs form {@code 0000:1a:00.0} (lower case), or null when unknown
 * @param numaNode   NUMA node id, or null when unknown ({@code N/A}, or {@code -1} in sysfs)
 * @param model      product name, or null when unknown
 * @param nvlinks    NVLink peers, empty when none or unknown
 * @param pcieParent id of the nearest {@link PcieBridge} above it, or null when the source has no PCIe tree
 * @param c2c        true when the GPU reaches its CPU over NVLink-C2C (Grace: GH200, GB200, GB300), so its HCAs
 *                   are those of its own CPU's NUMA node ({@link PcieDistance#P2C}); null when the source cannot say
 *                   (a false from a source means it saw a PCIe-attached GPU)
 */
public record Gpu(int index, String uuid, String pciBusId, Integer numaNode, String model,
                  List<NvLink> nvlinks, String pcieParent, Boolean c2c) {
    /** A GPU whose attachment (PCIe or C2C) the source does not state. */
    public Gpu(int index, String uuid, String pciBusId, Integer numaNode, String model, List<NvLink> nvlinks,
               String pcieParent) {
        this(index, uuid, pciBusId, numaNode, model, nvlinks, pcieParent, null);
    }

    public Gpu {
        nvlinks = nvlinks == null ? List.of() : List.copyOf(nvlinks);
    }
}
