package dev.railyard.scheduler.ipam;

/**
 * One pod Railyard is about to bind.
 *
 * @param podName pod name; its namespace is the request's
 * @param request the pod's networks
 * @param node    the node it goes to
 */
public record PodPlacement(String podName, PodNetworksRequest request, String node) {
    public PodPlacement {
        if (podName == null || podName.isEmpty() || request == null) {
            throw new IllegalArgumentException("a placement needs a pod name and a request");
        }
    }

    /** @return {@code <namespace>/<name>}, the form whereabouts writes as podref */
    public String podRef() {
        return request.podNamespace() + "/" + podName;
    }
}
