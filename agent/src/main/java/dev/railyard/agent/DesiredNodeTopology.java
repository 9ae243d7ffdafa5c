package dev.railyard.agent;

import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.NodeTopologyStatus;

/**
 * The {@code NodeTopology} the agent wants the API server to hold for its node.
 *
 * @param nodeName node name = object name
 * @param spec     the static graph, or null when sysfs has never been readable (the object then carries only a
 *                 stale status)
 * @param status   run-time state with {@code Ready}/{@code Stale} conditions
 */
public record DesiredNodeTopology(String nodeName, NodeTopologySpec spec, NodeTopologyStatus status) {
}
