package dev.railyard.api.topology;

/**
 * NVLink connection from one GPU to a peer GPU.
 *
 * @param peer  index of the peer GPU on the same node
 * @param links number of bonded NVLinks ({@code NV18} in nvidia-smi = 18)
 */
public record NvLink(int peer, int links) {
}
