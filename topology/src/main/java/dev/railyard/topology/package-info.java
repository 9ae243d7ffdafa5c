/**
 * A node's topology from its discovery data: {@link dev.railyard.topology.TopologyReader} detects the format, parses
 * it ({@code discovery}) and pairs GPUs with HCAs ({@code pairing}); {@link dev.railyard.topology.InputException} is
 * the one bad-input error, naming file, line and column. No Kubernetes client and no gRPC in this module: the node
 * agent that reads a live host and publishes its {@code NodeTopology} is the agent module ({@code dev.railyard.agent}).
 */
package dev.railyard.topology;
