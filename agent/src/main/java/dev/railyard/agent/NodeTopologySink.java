package dev.railyard.agent;

import java.util.Optional;

/** Where the agent writes its node's {@code NodeTopology}; {@link NodeTopologyPublisher} writes to the API server. */
@FunctionalInterface
public interface NodeTopologySink {
    /**
     * @param desired what the object should hold
     * @throws RuntimeException when the write failed; the agent retries with backoff
     */
    void publish(DesiredNodeTopology desired);

    /**
     * What the sink holds for a node now: a restarted agent compares against it, so that it writes only when
     * something changed since the previous run. The default holds nothing (every agent start writes once).
     *
     * @param nodeName node name = object name
     * @return the stored object (its spec or status may be null), or empty when there is none
     * @throws RuntimeException when the read failed; the agent then writes on its first refresh as if nothing were
     *                          stored
     */
    default Optional<DesiredNodeTopology> stored(String nodeName) {
        return Optional.empty();
    }
}
