package dev.railyard.agent;

import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.NvLink;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Adds what {@code nvidia-smi} knows to a sysfs-read spec: each GPU's UUID (the id the NVIDIA device plugin gives
 * the kubelet), product name and NVLink peers, matched by PCI bus id (peers are translated from NVML indices to the
 * spec's indices through their bus ids). Indices stay as sysfs gave them (PCI bus order, NVML's
 * default); a GPU whose NVML index differs, or that nvidia-smi does not list, adds a warning. Stateless.
 */
public final class GpuInventoryMerge {
    private GpuInventoryMerge() {
    }

    /**
     * @param spec      spec read from sysfs
     * @param inventory what nvidia-smi reported
     * @return the spec with UUIDs, models and NVLinks filled in where the bus ids match; warnings appended for
     *         mismatches
     */
    public static NodeTopologySpec apply(NodeTopologySpec spec, NvidiaSmiInventory inventory) {
        Map<String, NvidiaSmiGpu> byBus = new HashMap<>();
        inventory.gpus().forEach(g -> byBus.put(g.pciBusId(), g));
        Map<Integer, Integer> specIndexByNvml = new HashMap<>();
        for (Gpu gpu : spec.gpus()) {
            NvidiaSmiGpu smi = gpu.pciBusId() == null ? null : byBus.get(gpu.pciBusId());
            if (smi != null) {
                specIndexByNvml.put(smi.index(), gpu.index());
            }
        }
        List<Gpu> gpus = new ArrayList<>();
        List<String> warnings = new ArrayList<>(spec.warnings());
        for (Gpu gpu : spec.gpus()) {
            NvidiaSmiGpu smi = gpu.pciBusId() == null ? null : byBus.get(gpu.pciBusId());
            if (smi == null) {
                warnings.add("nvidia-smi -q -x: GPU" + gpu.index() + " (" + gpu.pciBusId()
                        + ") not listed; its UUID is unknown");
                gpus.add(gpu);
                continue;
            }
            if (smi.index() != gpu.index()) {
                warnings.add("nvidia-smi -q -x: GPU at " + gpu.pciBusId() + " is NVML index " + smi.index()
                        + " but GPU" + gpu.index() + " in PCI bus order (CUDA_VISIBLE_DEVICES numbering differs)");
            }
            List<NvLink> nvlinks = gpu.nvlinks();
            List<NvLink> reported = inventory.nvlinks().get(smi.index());
            if (reported != null && !reported.isEmpty()) {
                nvlinks = reported.stream().filter(l -> specIndexByNvml.containsKey(l.peer()))
                        .map(l -> new NvLink(specIndexByNvml.get(l.peer()), l.links()))
                        .sorted(Comparator.comparingInt(NvLink::peer)).toList();
            }
            gpus.add(new Gpu(gpu.index(), smi.uuid() != null ? smi.uuid() : gpu.uuid(), gpu.pciBusId(),
                    gpu.numaNode(), smi.productName() != null ? smi.productName() : gpu.model(), nvlinks,
                    gpu.pcieParent(), gpu.c2c()));
        }
        return new NodeTopologySpec(spec.source(), spec.complete(), warnings, gpus, spec.hcas(), spec.pcieBridges(),
                spec.numaNodes(), spec.distances(), spec.pairs(), spec.excluded(), spec.locality());
    }
}
