package dev.railyard.api.topology;

/**
 * An HCA that cannot serve as a rail, and why.
 *
 * @param hca    HCA name
 * @param reason a sentence a person can read ({@code "port 1 is DOWN"})
 */
public record ExcludedHca(String hca, String reason) {
}
