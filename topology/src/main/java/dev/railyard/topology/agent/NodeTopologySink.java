package dev.railyard.topology.agent;

/** Where the agent writes its node's {@code NodeTopology}; {@link NodeTopologyPublisher} writes to the API server. */
@FunctionalInterface
public interface NodeTopologySink {
    /**
     * @param desired what the object should hold
     * @throws RuntimeException when the write failed; the agent retries with backoff
     */
    void publish(DesiredNodeTopology desired);
}
