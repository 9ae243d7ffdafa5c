/**
 * The node graph: a node's GPUs, HCAs, PCIe bridges and NUMA nodes as a JGraphT graph
 * ({@link dev.railyard.topology.graph.NodeGraph}), for paths and distances between devices.
 */
package dev.railyard.topology.graph;
