package dev.railyard.api.topology;

/**
 * Distance class of a PCIe path between two devices of one node, ordered from nearest to farthest.
 *
 * <p>Definitions follow the legend of {@code nvidia-smi topo -m} and NCCL's {@code src/include/graph.h}:
 * <ul>
 *   <li>{@link #PIX}: traverses at most a single PCIe bridge (same switch);</li>
 *   <li>{@link #PXB}: traverses multiple PCIe bridges without the host bridge;</li>
 *   <li>{@link #PHB}: traverses a PCIe host bridge (typically the CPU);</li>
 *   <li>{@link #NODE}: traverses the interconnect between host bridges within one NUMA node;</li>
 *   <li>{@link #SYS}: traverses the SMP interconnect between NUMA nodes (QPI/UPI).</li>
 * </ul>
 * NCCL enables GPUDirect RDMA only up to {@link #PXB} by default ({@code NCCL_NET_GDR_LEVEL}).
 */
public enum PcieDistance {
    PIX, PXB, PHB, NODE, SYS;

    /** @return true when this class is the same as or nearer than {@code limit}. */
    public boolean isAtMost(PcieDistance limit) {
        return compareTo(limit) <= 0;
    }
}
