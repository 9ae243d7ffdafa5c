package dev.railyard.api.topology;

/**
 * Distance class of the PCIe path between one GPU and one HCA.
 *
 * @param gpu      GPU index
 * @param hca      HCA name
 * @param distance PIX..SYS
 */
public record GpuHcaDistance(int gpu, String hca, PcieDistance distance) {
}
