/**
 * A node's topology from its discovery data: {@link dev.railyard.topology.TopologyReader} detects the format, parses
 * it ({@code discovery}) and pairs GPUs with HCAs ({@code pairing}); {@link dev.railyard.topology.InputException} is
 * the one bad-input error, naming file, line and column. No Kubernetes types outside {@code agent}.
 */
package dev.railyard.topology;
