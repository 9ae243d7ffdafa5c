package dev.railyard.api.topology;

/**
 * A NUMA node of the host.
 *
 * @param id     NUMA node id
 * @param socket CPU socket (package) id, or null when unknown
 * @param cpus   CPU list as the kernel prints it ({@code 0-47,96-143}), or null when unknown
 */
public record NumaNode(int id, Integer socket, String cpus) {
}
