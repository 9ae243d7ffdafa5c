package dev.railyard.api.topology;

/** Where a {@link NodeTopologySpec} was read from. */
public enum DiscoverySource {
    /** {@code nvidia-smi topo -m} or {@code topo -mp} text. */
    NVIDIA_SMI,
    /** A sysfs tree ({@code /sys/bus/pci/devices}, {@code /sys/class/infiniband}, {@code /sys/class/net}). */
    SYSFS,
    /** NCCL topology XML as written with {@code NCCL_TOPO_DUMP_FILE}. */
    NCCL_XML,
    /** {@code lspci -tv} (or {@code -tvnn}) PCI bus tree text. */
    LSPCI
}
