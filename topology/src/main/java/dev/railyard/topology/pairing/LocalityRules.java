package dev.railyard.topology.pairing;

import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.Locality;
import dev.railyard.api.topology.PcieDistance;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * What a discovery source can tell about GPU–HCA locality, decided before and after {@link RailPairing} assigns:
 * <ul>
 *   <li><b>cannot tell</b> ({@link #cannotTell}): every known GPU–HCA distance among two or more candidate HCAs is
 *       SYS and nothing places the HCAs or the GPUs on NUMA nodes. SYS is what {@code nvidia-smi topo -m} prints for
 *       anything it cannot place (on Grace hosts for every GPU–NIC cell, since the GPU is on NVLink-C2C, not
 *       PCIe; on hosts whose firmware gives no {@code numa_node}), so such a matrix carries no pairing
 *       information and no index-order pairs are invented from it;</li>
 *   <li><b>partial view</b> ({@link #partialView}): every GPU shown has an HCA at P2C or nearer (its own rail
 *       NIC on its switch or CPU, as on HGX/DGX and Grace machines), yet more HCAs have no GPU nearer than the host
 *       bridge ("orphans") than there are GPUs. A container that sees 2 of 8 GPUs (NVIDIA_VISIBLE_DEVICES) still
 *       sees every NIC; the rail NICs of the GPUs it cannot see look exactly like front-end ports, so none is
 *       excluded for lack of a near GPU. A whole machine's front-end and storage ports are fewer than its GPUs
 *       (fixtures case-02: 4 for 8 GPUs, case-45: 1 for 8), so this does not fire on whole views; on machines
 *       whose GPUs share no switch with any NIC (case-12) far NICs are not evidence of hidden GPUs;</li>
 *   <li><b>paired by NUMA node</b> ({@link #afterPairing}): some pair is {@link PcieDistance#P2C}, a C2C-attached
 *       GPU with an HCA of its own CPU.</li>
 * </ul>
 * Stateless.
 */
final class LocalityRules {
    private LocalityRules() {
    }

    /**
     * @param gpus       GPUs in index order
     * @param candidates candidate HCAs (device rules applied)
     * @param dist       HCA name → distance per GPU position (null = unknown)
     * @return the verdict when the source cannot tell, else null
     */
    static Locality cannotTell(List<Gpu> gpus, List<Hca> candidates, Map<String, PcieDistance[]> dist) {
        if (gpus.isEmpty() || candidates.size() < 2) {
            return null;
        }
        int known = 0;
        for (Hca h : candidates) {
            for (PcieDistance d : dist.get(h.name())) {
                if (d != null) {
                    if (d != PcieDistance.SYS) {
                        return null;
                    }
                    known++;
                }
            }
        }
        boolean hcaNuma = candidates.stream().anyMatch(h -> h.numaNode() != null);
        boolean gpuNuma = gpus.stream().anyMatch(g -> g.numaNode() != null);
        if (known == 0 || (hcaNuma && gpuNuma)) {
            return null;
        }
        List<String> c2c = gpus.stream().filter(g -> Boolean.TRUE.equals(g.c2c())).map(g -> "GPU" + g.index())
                .toList();
        if (!c2c.isEmpty()) {
            return Locality.undetermined(list(c2c) + (c2c.size() == 1 ? " reaches" : " reach")
                    + " the CPU over NVLink-C2C (GPU NUMA ID column), which this source prints as SYS to every NIC, "
                    + "and it gives no NIC's NUMA node, so it cannot tell which NIC is on which CPU socket; pair "
                    + "from sysfs (railyard agent, or railyard topology collect on the node) or NCCL topology XML");
        }
        return Locality.undetermined("every GPU-HCA distance is SYS and no " + (hcaNuma ? "GPU" : "HCA")
                + "'s NUMA node is known, so this source cannot tell which HCA is near which GPU (nvidia-smi "
                + "prints SYS for what it cannot place); pair from sysfs (railyard topology collect) or NCCL "
                + "topology XML");
    }

    /**
     * @return the orphan HCAs (every distance known and beyond P2C) when every GPU has an HCA at P2C or nearer and
     *         there are more orphans than GPUs, else an empty list
     */
    static List<String> partialView(List<Gpu> gpus, List<Hca> candidates, Map<String, PcieDistance[]> dist) {
        for (int g = 0; g < gpus.size(); g++) {
            boolean near = false;
            for (Hca h : candidates) {
                PcieDistance d = dist.get(h.name())[g];
                near |= d != null && d.isAtMost(PcieDistance.P2C);
            }
            if (!near) {
                return List.of();
            }
        }
        List<String> orphans = new ArrayList<>();
        for (Hca h : candidates) {
            PcieDistance[] col = dist.get(h.name());
            boolean orphan = col.length > 0;
            for (PcieDistance d : col) {
                orphan &= d != null && !d.isAtMost(PcieDistance.P2C);
            }
            if (orphan) {
                orphans.add(h.name());
            }
        }
        return orphans.size() > gpus.size() ? orphans : List.of();
    }

    /** @return the note for a partial view with these orphans */
    static String partialViewNote(int gpus, int candidates, List<String> orphans) {
        return "this view shows " + gpus + (gpus == 1 ? " GPU" : " GPUs") + " and " + candidates
                + " candidate HCAs, " + orphans.size() + " of which have no GPU nearer than the host bridge ("
                + abbreviate(orphans) + "): a container or VM that sees only some GPUs still sees every NIC, and "
                + "these may be the rails of GPUs it does not show, so none is excluded for lack of a near GPU";
    }

    /** @return {@link Locality.Basis#NUMA} when some pair is P2C, else {@link Locality#PCIE} */
    static Locality afterPairing(List<GpuHcaPair> pairs) {
        TreeSet<Integer> c2c = new TreeSet<>();
        for (GpuHcaPair p : pairs) {
            if (p.distance() == PcieDistance.P2C) {
                c2c.add(p.gpu());
            }
        }
        if (c2c.isEmpty()) {
            return Locality.PCIE;
        }
        List<String> names = c2c.stream().map(i -> "GPU" + i).toList();
        return new Locality(Locality.Basis.NUMA, list(names) + (names.size() == 1 ? " reaches" : " reach")
                + " the CPU over NVLink-C2C and " + (names.size() == 1 ? "is" : "are") + " paired with an HCA on "
                + "the PCIe root ports of the same CPU (same NUMA node, P2C); NCCL uses GPUDirect RDMA over C2C "
                + "by default from 2.27 (NCCL_NET_GDR_C2C=1 on 2.26)");
    }

    private static String list(List<String> names) {
        return names.size() <= 6 ? String.join(", ", names) : abbreviate(names);
    }

    private static String abbreviate(List<String> names) {
        if (names.size() <= 6) {
            return String.join(", ", names);
        }
        return String.join(", ", names.subList(0, 5)) + " and " + (names.size() - 5) + " more";
    }
}
