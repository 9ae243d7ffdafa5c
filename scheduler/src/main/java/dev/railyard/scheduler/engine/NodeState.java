package dev.railyard.scheduler.engine;

import dev.railyard.api.topology.NodeTopologySpec;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * One node as the engine sees it in a snapshot.
 *
 * @param name          node name
 * @param labels        node labels
 * @param topology      the node's {@code NodeTopology} spec, or null when the node has none
 * @param allocatedGpus GPU indices held by pods already on the node
 * @param hcaResources  RDMA extended resources on the node
 * @param schedulable   false for cordoned or not-ready nodes
 */
public record NodeState(String name, Map<String, String> labels, NodeTopologySpec topology,
                        Set<Integer> allocatedGpus, List<HcaResource> hcaResources, boolean schedulable) {
    public NodeState {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        allocatedGpus = allocatedGpus == null ? Set.of() : java.util.Collections.unmodifiableSet(new TreeSet<>(allocatedGpus));
        hcaResources = hcaResources == null ? List.of() : List.copyOf(hcaResources);
    }

    /** @return the resource of that name, or null */
    public HcaResource hcaResource(String resource) {
        for (HcaResource r : hcaResources) {
            if (r.resource().equals(resource)) {
                return r;
            }
        }
        return null;
    }

    /** @return the number of GPUs in the topology that no pod holds */
    public int freeGpuCount() {
        if (topology == null) {
            return 0;
        }
        int n = 0;
        for (var g : topology.gpus()) {
            if (!allocatedGpus.contains(g.index())) {
                n++;
            }
        }
        return n;
    }

    /** @return a copy with more GPUs and resource slots taken (what a placement leaves behind) */
    public NodeState withAllocated(Set<Integer> moreGpus, Map<String, Long> moreResources) {
        Set<Integer> gpus = new TreeSet<>(allocatedGpus);
        gpus.addAll(moreGpus);
        List<HcaResource> res = hcaResources.stream()
                .map(r -> new HcaResource(r.resource(), r.hca(), r.capacity(),
                        r.allocated() + moreResources.getOrDefault(r.resource(), 0L)))
                .toList();
        return new NodeState(name, labels, topology, gpus, res, schedulable);
    }
}
