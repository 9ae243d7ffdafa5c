package dev.railyard.api.topology;

import java.util.List;

/**
 * The static picture of one node: devices, PCIe tree, NUMA nodes, distances and the rail map.
 *
 * @param source      where it was read from
 * @param complete    false when the source was truncated or damaged; the pairs then cover only the GPUs whose
 *                    distances are known, and {@code warnings} name the lines and columns
 * @param warnings    human-readable warnings, each naming where (line, column, file)
 * @param gpus        GPUs ordered by index
 * @param hcas        HCAs in the source's order
 * @param pcieBridges the PCIe tree above the devices; empty when the source has none (nvidia-smi)
 * @param numaNodes   NUMA nodes; empty when unknown
 * @param distances   GPU–HCA distance classes, one per known pair
 * @param pairs       the rail map, one entry per paired GPU
 * @param excluded    HCAs that cannot be rails, with the reason
 * @param locality    what the pairing rests on, or why there is none ({@link Locality.Basis#UNDETERMINED}: the source
 *                    cannot tell GPU–HCA locality, {@code pairs} is empty and the reason says which source to use);
 *                    {@link Locality#PCIE} when absent (objects written before the field existed)
 */
public record NodeTopologySpec(DiscoverySource source, boolean complete, List<String> warnings, List<Gpu> gpus,
                               List<Hca> hcas, List<PcieBridge> pcieBridges, List<NumaNode> numaNodes,
                               List<GpuHcaDistance> distances, List<GpuHcaPair> pairs,
                               List<ExcludedHca> excluded, Locality locality) {
    /** A spec whose locality is read from PCIe distances ({@link Locality#PCIE}). */
    public NodeTopologySpec(DiscoverySource source, boolean complete, List<String> warnings, List<Gpu> gpus,
                            List<Hca> hcas, List<PcieBridge> pcieBridges, List<NumaNode> numaNodes,
                            List<GpuHcaDistance> distances, List<GpuHcaPair> pairs, List<ExcludedHca> excluded) {
        this(source, complete, warnings, gpus, hcas, pcieBridges, numaNodes, distances, pairs, excluded, null);
    }

    public NodeTopologySpec {
        locality = locality == null ? Locality.PCIE : locality;
        warnings = warnings == null ? List.of() : List.copyOf(warnings);
        gpus = gpus == null ? List.of() : List.copyOf(gpus);
        hcas = hcas == null ? List.of() : List.copyOf(hcas);
        pcieBridges = pcieBridges == null ? List.of() : List.copyOf(pcieBridges);
        numaNodes = numaNodes == null ? List.of() : List.copyOf(numaNodes);
        distances = distances == null ? List.of() : List.copyOf(distances);
        pairs = pairs == null ? List.of() : List.copyOf(pairs);
        excluded = excluded == null ? List.of() : List.copyOf(excluded);
    }

    /** @return a copy with the rail map and exclusions replaced. */
    public NodeTopologySpec withPairing(List<GpuHcaPair> newPairs, List<ExcludedHca> newExcluded) {
        return new NodeTopologySpec(source, complete, warnings, gpus, hcas, pcieBridges, numaNodes, distances,
                newPairs, newExcluded, locality);
    }
}
