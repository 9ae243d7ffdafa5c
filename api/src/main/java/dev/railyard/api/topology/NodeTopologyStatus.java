package dev.railyard.api.topology;

import io.fabric8.kubernetes.api.model.Condition;

import java.util.List;

/**
 * What the node agent ({@code railyard agent}) observes at run time. Written with server-side apply by field
 * manager {@code railyard-agent}; see {@link NodeTopologyConditions} for the conditions.
 *
 * @param observedTime  RFC 3339 time (UTC) of the last complete observation; kept unchanged while the status is
 *                      stale
 * @param health        port health of the node's HCAs
 * @param allocatedGpus indices of GPUs held by pods, ascending
 * @param allocations   pods holding GPUs or RDMA resources, ordered by namespace and name
 * @param ports         every HCA port with its state, speed, GID table use and pod count against its limit, ordered
 *                      by HCA and port
 * @param rdmaResources RDMA extended resources and the HCAs behind them, ordered by resource name
 * @param netdevs       netdevs of the HCAs (candidate macvlan masters) and their HCA port, ordered by netdev
 * @param conditions    {@code Ready} and {@code Stale}, with reasons
 */
public record NodeTopologyStatus(String observedTime, NodeHealth health, List<Integer> allocatedGpus,
                                 List<PodAllocation> allocations, List<HcaPortStatus> ports,
                                 List<RdmaResourceStatus> rdmaResources, List<NetdevAttachment> netdevs,
                                 List<Condition> conditions) {
    public NodeTopologyStatus {
        allocatedGpus = allocatedGpus == null ? List.of() : List.copyOf(allocatedGpus);
        allocations = allocations == null ? List.of() : List.copyOf(allocations);
        ports = ports == null ? List.of() : List.copyOf(ports);
        rdmaResources = rdmaResources == null ? List.of() : List.copyOf(rdmaResources);
        netdevs = netdevs == null ? List.of() : List.copyOf(netdevs);
        conditions = conditions == null ? List.of() : List.copyOf(conditions);
    }

    /** @return a copy with other conditions (and nothing else changed). */
    public NodeTopologyStatus withConditions(List<Condition> newConditions) {
        return new NodeTopologyStatus(observedTime, health, allocatedGpus, allocations, ports, rdmaResources,
                netdevs, newConditions);
    }
}
