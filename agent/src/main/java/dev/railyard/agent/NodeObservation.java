package dev.railyard.agent;

import dev.railyard.agent.podresources.v1.AllocatableResourcesResponse;
import dev.railyard.agent.podresources.v1.ListPodResourcesResponse;

import java.time.Instant;

/**
 * What one refresh read, before it is turned into a {@code NodeTopology}. A source that failed leaves its part null
 * and names the problem.
 *
 * @param at                  when the refresh started
 * @param host                the host's devices, or null when sysfs could not be read
 * @param sysfsProblem        one-line reason sysfs could not be read, or null
 * @param pods                the kubelet's {@code List} answer, or null when the kubelet could not be used
 * @param allocatable         the kubelet's {@code GetAllocatableResources} answer (possibly from an earlier refresh),
 *                            or null
 * @param podResourcesProblem one-line reason the kubelet could not be used, or null
 */
public record NodeObservation(Instant at, HostSnapshot host, String sysfsProblem, ListPodResourcesResponse pods,
                              AllocatableResourcesResponse allocatable, String podResourcesProblem) {
    /** @return true when every source was read */
    public boolean complete() {
        return host != null && pods != null && allocatable != null;
    }
}
