package dev.railyard.scheduler.engine;

import dev.railyard.api.topology.PcieDistance;

/**
 * One GPU of a node bound to the rail HCA it would send through for a given pod.
 *
 * @param gpu      GPU index
 * @param hca      HCA name
 * @param rail     rail index of that HCA on this node
 * @param distance PCIe distance class of the pair
 * @param home     true when this is the GPU's own pair from the node's rail map; false when its own rail HCA is not
 *                 usable by the pod and it falls back to the nearest usable one
 */
public record GpuBinding(int gpu, String hca, int rail, PcieDistance distance, boolean home) {
}
