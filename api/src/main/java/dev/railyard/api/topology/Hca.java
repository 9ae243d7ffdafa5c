package dev.railyard.api.topology;

import java.util.List;

/**
 * One RDMA host channel adapter (an mlx5 device, or a software device such as siw/rxe).
 *
 * @param name       RDMA device name ({@code mlx5_0}); the dump's own column name when it gives no legend
 * @param pciBusId   bus id in sysfs form {@code 0000:1a:00.0}, or null when unknown
 * @param numaNode   NUMA node id, or null when unknown
 * @param ports      ports; empty when the source does not list them
 * @param bondMaster name of the bond device this HCA is a member of, or null
 * @param pcieParent id of the nearest {@link PcieBridge} above it, or null when the source has no PCIe tree
 * @param plane      network plane of a multi-plane NIC (ConnectX-8), as NCCL ≥ 2.30 numbers it ({@code plane}
 *                   attribute of NCCL's {@code <net>}), or null when unknown
 */
public record Hca(String name, String pciBusId, Integer numaNode, List<HcaPort> ports, String bondMaster,
                  String pcieParent, Integer plane) {
    /** An HCA whose plane is unknown. */
    public Hca(String name, String pciBusId, Integer numaNode, List<HcaPort> ports, String bondMaster,
               String pcieParent) {
        this(name, pciBusId, numaNode, ports, bondMaster, pcieParent, null);
    }

    public Hca {
        ports = ports == null ? List.of() : List.copyOf(ports);
    }

    /** @return true for software RDMA devices (SoftiWARP {@code siw*}, Soft-RoCE {@code rxe*}), never rails. */
    @com.fasterxml.jackson.annotation.JsonIgnore
    public boolean isSoftware() {
        return name.startsWith("siw") || name.startsWith("rxe");
    }
}
