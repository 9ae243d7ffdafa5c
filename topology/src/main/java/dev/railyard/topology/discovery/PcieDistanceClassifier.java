package dev.railyard.topology.discovery;

import dev.railyard.api.topology.PcieDistance;

/**
 * Classifies the PCIe path between two devices as {@link PcieDistance#PIX} .. {@link PcieDistance#SYS} from
 * their places in the PCIe tree, so that sysfs and NCCL XML give the classes {@code nvidia-smi topo -m} prints.
 *
 * <p>Definitions: the Legend of {@code nvidia-smi topo -m} and NCCL {@code src/include/graph.h}; algorithm after
 * {@code docs/formats/node-topology.md} §4 (the NCCL / rdma-core {@code rdma_topo} reading of the sysfs realpath).
 * With {@code k} = number of leading bridge units ({@link PciePath#bridges()}) both paths share:
 * <ol>
 *   <li>different host bridges: {@link PcieDistance#NODE} when both NUMA nodes are known and equal, else
 *       {@link PcieDistance#SYS} (an unknown NUMA node cannot be assumed local);</li>
 *   <li>same host bridge, {@code k == 0} (different root ports): {@link PcieDistance#PHB};</li>
 *   <li>otherwise the path crosses {@code (|a| - k) + (|b| - k) + 1} bridge units (both sides' units below the
 *       common one, plus the common one): 1 is {@link PcieDistance#PIX} ("at most a single PCIe bridge": two
 *       devices under one switch, or two functions under one root port, as case-07's dual-port ConnectX-7 shows),
 *       more is {@link PcieDistance#PXB} ("multiple PCIe bridges without the host bridge": nested switches, as on
 *       a DGX A100 where the NIC sits on the upper switch and the GPU on a lower one).</li>
 * </ol>
 * Constant time in the tree depth; stateless and thread-safe.
 */
public final class PcieDistanceClassifier {
    private PcieDistanceClassifier() {
    }

    /**
     * @param a one device's place in the tree
     * @param b the other device's place
     * @return the distance class, symmetric in {@code a} and {@code b}
     */
    public static PcieDistance classify(PciePath a, PciePath b) {
        if (!a.hostBridge().equals(b.hostBridge())) {
            return a.numaNode() != null && a.numaNode().equals(b.numaNode()) ? PcieDistance.NODE : PcieDistance.SYS;
        }
        int common = 0;
        int max = Math.min(a.bridges().size(), b.bridges().size());
        while (common < max && a.bridges().get(common).equals(b.bridges().get(common))) {
            common++;
        }
        if (common == 0) {
            return PcieDistance.PHB;
        }
        int crossed = (a.bridges().size() - common) + (b.bridges().size() - common) + 1;
        return crossed == 1 ? PcieDistance.PIX : PcieDistance.PXB;
    }
}
