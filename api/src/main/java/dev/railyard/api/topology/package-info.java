/**
 * The {@code NodeTopology} custom resource ({@code railyard.dev/v1alpha1}, cluster-scoped, one per node,
 * named after the node) and the records it is made of: GPUs, mlx5 HCAs and their ports, the PCIe tree,
 * NUMA nodes, pairwise GPU–HCA distance classes and the rail map.
 *
 * <p>Records only; no logic beyond validation. The parsers that fill these records live in
 * {@code dev.railyard.topology.discovery}, the pairing that fills {@link dev.railyard.api.topology.GpuHcaPair}
 * in {@code dev.railyard.topology.pairing}.
 */
package dev.railyard.api.topology;
