/**
 * The node agent ({@code railyard agent}, a DaemonSet): reads the host (sysfs, {@code nvidia-smi}, the
 * rdma-shared-dev-plugin config, the kubelet's PodResources API), builds the node's {@code NodeTopology} and
 * publishes it when it changed, never publishing a picture a failed source made wrong. Formats:
 * {@code docs/formats/node-topology.md}, {@code docs/formats/network-operator.md} §2.
 */
package dev.railyard.agent;
