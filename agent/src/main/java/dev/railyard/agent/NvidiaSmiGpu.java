package dev.railyard.agent;

/**
 * One GPU as {@code nvidia-smi -q -x} describes it.
 *
 * @param index       NVML index: the position of its {@code <gpu>} element in the document
 * @param uuid        {@code <uuid>}, {@code GPU-...}, or null when {@code N/A}
 * @param pciBusId    {@code <pci><pci_bus_id>} (else the {@code id} attribute) in sysfs form {@code 0000:1a:00.0}
 * @param minorNumber {@code <minor_number>} ({@code /dev/nvidiaN}), or null when {@code N/A}
 * @param productName {@code <product_name>}, or null
 */
public record NvidiaSmiGpu(int index, String uuid, String pciBusId, Integer minorNumber, String productName) {
}
