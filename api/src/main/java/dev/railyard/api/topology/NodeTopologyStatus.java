package dev.railyard.api.topology;

import io.fabric8.kubernetes.api.model.Condition;

import java.util.List;

/**
 * What the node agent observes at run time (issue 7 fills this in).
 *
 * @param observedTime  RFC 3339 time of the observation
 * @param allocatedGpus indices of GPUs held by running pods
 * @param conditions    standard Kubernetes conditions ({@code Ready}, {@code Stale} with a reason)
 */
public record NodeTopologyStatus(String observedTime, List<Integer> allocatedGpus, List<Condition> conditions) {
    public NodeTopologyStatus {
        allocatedGpus = allocatedGpus == null ? List.of() : List.copyOf(allocatedGpus);
        conditions = conditions == null ? List.of() : List.copyOf(conditions);
    }
}
