/**
 * The rail-aligned switch fabric between nodes ({@link dev.railyard.topology.fabric.FabricModel}): per-rail leaf
 * attachment, leaves to spines to cores, domains per tier and switch-hop distance per rail. Three sources build the
 * same model: a static YAML file ({@link dev.railyard.topology.fabric.FabricFile}), node labels
 * ({@link dev.railyard.topology.fabric.NodeLabelFabric}) and Volcano HyperNodes
 * ({@link dev.railyard.topology.fabric.HyperNodeFabric}). No Kubernetes client here: sources take plain data.
 */
package dev.railyard.topology.fabric;
