package dev.railyard.scheduler.engine;

import dev.railyard.api.topology.PcieDistance;

/**
 * Weights of the node-local part of the gang-plan cost (see {@link GangPlanner} for the whole cost function).
 *
 * <p>Local cost of placing pods on one node = {@code pairing × Σ penalty(distance of each chosen GPU)
 * + fragmentation × (broken groups after − broken groups before) + tightness × free GPUs left on the node}, where
 * a locality group (the GPUs under one PCIe switch, or sharing one rail HCA when the source has no PCIe tree) is
 * broken when some but not all of its GPUs are free.
 *
 * <p>Defaults and why:
 * <ul>
 *   <li>penalties PIX 0, PXB 1, P2C 2, PHB 4, NODE 5, SYS 8: PIX and PXB both keep GPUDirect RDMA under NCCL's
 *       default {@code NCCL_NET_GDR_LEVEL}, so they differ by one step; P2C (a Grace GPU over NVLink-C2C to a NIC of
 *       its own CPU) keeps it too under NCCL ≥ 2.27 but crosses the CPU, one step more; PHB and beyond lose it
 *       (bounce through host memory), a jump; SYS also crosses the socket interconnect;</li>
 *   <li>{@code pairing = 10}: one step of pairing quality outweighs any packing concern on a node (a node has at most
 *       a few groups and 8–16 GPUs);</li>
 *   <li>{@code fragmentation = 4}: breaking a whole PCIe group costs more than leaving four GPUs idle, because a later
 *       4-GPU pod needs a whole group to pair well;</li>
 *   <li>{@code tightness = 1}: among otherwise equal nodes, prefer the one left with fewer free GPUs (best fit), which
 *       keeps empty nodes empty for large pods.</li>
 * </ul>
 *
 * @param pixPenalty    penalty of a PIX pair
 * @param pxbPenalty    penalty of a PXB pair
 * @param p2cPenalty    penalty of a P2C pair
 * @param phbPenalty    penalty of a PHB pair
 * @param nodePenalty   penalty of a NODE pair
 * @param sysPenalty    penalty of a SYS pair
 * @param pairing       weight of the summed penalties
 * @param fragmentation weight of the change in broken groups
 * @param tightness     weight of free GPUs left on a used node
 */
public record CostWeights(int pixPenalty, int pxbPenalty, int p2cPenalty, int phbPenalty, int nodePenalty,
                          int sysPenalty, int pairing, int fragmentation, int tightness) {
    /** @return the documented defaults */
    public static CostWeights defaults() {
        return new CostWeights(0, 1, 2, 4, 5, 8, 10, 4, 1);
    }

    /** @return the penalty of a distance class */
    public int penalty(PcieDistance d) {
        return switch (d) {
            case PIX -> pixPenalty;
            case PXB -> pxbPenalty;
            case P2C -> p2cPenalty;
            case PHB -> phbPenalty;
            case NODE -> nodePenalty;
            case SYS -> sysPenalty;
        };
    }
}
