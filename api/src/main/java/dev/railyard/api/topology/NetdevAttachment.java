package dev.railyard.api.topology;

/**
 * A host netdev that can serve as a macvlan {@code master}, and the HCA port it belongs to. A bond appears once
 * per member HCA.
 *
 * @param netdev netdev name ({@code lan2}, {@code bond0})
 * @param hca    HCA name ({@code mlx5_0})
 * @param port   HCA port number, 1-based
 */
public record NetdevAttachment(String netdev, String hca, int port) {
}
