package dev.railyard.agent;

import dev.railyard.agent.podresources.v1.AllocatableResourcesResponse;
import dev.railyard.agent.podresources.v1.ListPodResourcesResponse;

/** The two kubelet PodResources v1 calls the agent makes. */
public interface PodResourcesSource {
    /**
     * @return every pod's devices ({@code List})
     * @throws PodResourcesUnavailableException when the kubelet cannot be reached or refuses the call
     */
    ListPodResourcesResponse list();

    /**
     * @return every device the kubelet can hand out ({@code GetAllocatableResources})
     * @throws PodResourcesUnavailableException when the kubelet cannot be reached or refuses the call
     */
    AllocatableResourcesResponse allocatable();
}
