package dev.railyard.agent;

import dev.railyard.api.topology.NodeTopologySpec;

import java.util.List;
import java.util.Map;

/**
 * One read of the host: the paired node model plus the facts the agent publishes in the status.
 *
 * @param spec       the node model with its rail map; HCA ports carry state and speed, and {@code gidTableSize} is
 *                   left null (GID use changes with every pod, so it is reported in the status, not the spec)
 * @param hcaFacts   per HCA, what the rdma-shared-dev-plugin's selectors test, in spec order
 * @param gidEntries populated GID entries per port, keyed {@code "<hca>/<port>"}
 */
public record HostSnapshot(NodeTopologySpec spec, List<HcaPciFacts> hcaFacts, Map<String, Integer> gidEntries) {
    public HostSnapshot {
        hcaFacts = hcaFacts == null ? List.of() : List.copyOf(hcaFacts);
        gidEntries = gidEntries == null ? Map.of() : Map.copyOf(gidEntries);
    }

    /** @return the key of {@link #gidEntries()} for one port */
    public static String portKey(String hca, int port) {
        return hca + "/" + port;
    }
}
