package dev.railyard.api.topology;

/**
 * Distance class of the path between a GPU and another device of one node, ordered from nearest to farthest as
 * NCCL orders its path types ({@code src/include/graph.h}; summary in {@code docs/formats/nccl-topology.md}).
 *
 * <ul>
 *   <li>{@link #PIX}: traverses at most a single PCIe bridge (same switch);</li>
 *   <li>{@link #PXB}: traverses multiple PCIe bridges without the host bridge;</li>
 *   <li>{@link #P2C}: the GPU reaches the CPU over NVLink-C2C (Grace: GH200, GB200, GB300) and the NIC hangs off a
 *       PCIe root port of that same CPU. NCCL's {@code PATH_P2C} (since 2.27), which it ranks between PXB and PHB;
 *       {@code nvidia-smi topo -m} prints SYS for it;</li>
 *   <li>{@link #PHB}: traverses a PCIe host bridge (typically the CPU);</li>
 *   <li>{@link #NODE}: traverses the interconnect between host bridges within one NUMA node;</li>
 *   <li>{@link #SYS}: traverses the SMP interconnect between NUMA nodes (QPI/UPI).</li>
 * </ul>
 * NCCL enables GPUDirect RDMA up to {@link #PXB} by default, and on C2C platforms up to {@link #P2C} (NCCL ≥ 2.27,
 * {@code NCCL_NET_GDR_C2C=1} by default; 2.26 has the variable at 0): see {@link #gpuDirectByDefault()}.
 */
public enum PcieDistance {
    PIX, PXB, P2C, PHB, NODE, SYS;

    /** @return true when this class is the same as or nearer than {@code limit}. */
    public boolean isAtMost(PcieDistance limit) {
        return compareTo(limit) <= 0;
    }

    /**
     * Whether a pair of this class satisfies a job's maximum distance ({@code railyard.dev/gpu-hca-max-distance}).
     * A {@link #PXB} limit also admits {@link #P2C}: the limit says "keep GPUDirect RDMA under NCCL's defaults", and
     * NCCL's default level is PXB on PCIe platforms and P2C on C2C platforms (where no PIX or PXB pair exists).
     *
     * @param limit the farthest class allowed
     * @return true when allowed
     */
    public boolean allowedUnder(PcieDistance limit) {
        return isAtMost(limit) || (this == P2C && limit == PXB);
    }

    /** @return true when NCCL (≥ 2.27 for {@link #P2C}) uses GPUDirect RDMA at this class without any setting */
    public boolean gpuDirectByDefault() {
        return isAtMost(PXB) || this == P2C;
    }
}
