package dev.railyard.scheduler.cluster;

import dev.railyard.api.topology.NodeTopologyStatus;
import dev.railyard.scheduler.engine.NodeState;

import java.util.List;

/**
 * One node of the cluster state at one generation: its Node, NodeTopology and bound pods made into the engine's
 * {@link NodeState} ({@link NodeStateConverter#node}). Immutable; a change to any of its inputs makes a new record
 * with a higher generation, and snapshots share the records that did not change (kube-scheduler's {@code NodeInfo}
 * with its {@code Generation}).
 *
 * @param name       node name
 * @param generation the state's generation when the record was made
 * @param state      the engine's node; null when the node could not be read (its warnings say why)
 * @param accounting how its allocated GPUs were found, or null
 * @param status     its NodeTopology status, or null
 * @param warnings   problems met converting it, one line each
 * @param fields     the Node's fields it was made from
 * @param topology   the NodeTopology it was made from, or null
 * @param pods       the pods bound to the node it was made from
 */
public record NodeRecord(String name, long generation, NodeState state, String accounting, NodeTopologyStatus status,
                         List<String> warnings, NodeFields fields, TopologyFields topology, List<PodView> pods) {
    public NodeRecord {
        warnings = List.copyOf(warnings);
        pods = List.copyOf(pods);
    }

    /**
     * @param podKey a pod bound to the node ({@code namespace/name})
     * @return the node as if that pod were not on it (its GPUs and RDMA slots free), or null when the record has
     *         no node
     */
    public NodeState without(String podKey) {
        if (state == null) {
            return null;
        }
        List<PodView> rest = pods.stream().filter(p -> !p.key().equals(podKey)).toList();
        return NodeStateConverter.node(fields, topology, rest).state();
    }
}
