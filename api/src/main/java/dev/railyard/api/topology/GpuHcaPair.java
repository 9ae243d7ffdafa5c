package dev.railyard.api.topology;

/**
 * One entry of the rail map: a GPU, the HCA it sends through, and the rail that HCA serves.
 *
 * @param gpu      GPU index
 * @param hca      HCA name
 * @param distance distance class of the pair
 * @param rail     rail index: the position of the HCA in the GPU-ordered pairing (0-based), so that nodes whose
 *                 mlx5 numbering differs still line up rail by rail
 */
public record GpuHcaPair(int gpu, String hca, PcieDistance distance, int rail) {
}
