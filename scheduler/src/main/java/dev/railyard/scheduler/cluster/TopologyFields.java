package dev.railyard.scheduler.cluster;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.NodeTopologyStatus;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

import java.util.ArrayList;
import java.util.List;

/**
 * A NodeTopology read into the {@code api} records once, when its event arrives: the engine keeps the same
 * {@link NodeTopologySpec} instance until the object changes, so everything cached by spec identity (the engine's
 * rail index of the node) stays valid across snapshots.
 *
 * <p>Specs are shared by content: nodes of one machine model report the same spec (GPUs, HCAs, distances, pairs), so
 * a spec equal to one read before (compared as the API server's JSON tree) is answered with that earlier
 * {@link NodeTopologySpec} instance instead of being read again. That saves most of the reading at start (at 5,000
 * nodes the per-object conversion was a third of the cache's own CPU), keeps one copy per model in memory, and lets
 * everything the engine caches per spec instance (its rail index, the gang planner's twin nodes) be shared by every
 * node of the model.
 *
 * @param spec     its spec, or null when missing or unreadable (the node then has no topology)
 * @param status   its status, or null when missing or unreadable (GPUs held are then taken from the pods)
 * @param warnings what could not be read, one line each, naming the NodeTopology
 */
public record TopologyFields(NodeTopologySpec spec, NodeTopologyStatus status, List<String> warnings) {
    /** Specs read, by their JSON tree; a cluster has a handful of machine models, so 256 is plenty. */
    private static final Cache<Object, NodeTopologySpec> SPECS = Caffeine.newBuilder().maximumSize(256).build();

    public TopologyFields {
        warnings = List.copyOf(warnings);
    }

    /**
     * @param topo a NodeTopology in generic form with a name
     * @return its records
     */
    public static TopologyFields of(GenericKubernetesResource topo) {
        String name = topo.getMetadata().getName();
        List<String> warnings = new ArrayList<>();
        NodeTopologySpec spec = null;
        NodeTopologyStatus status = null;
        Object rawSpec = ObjectFields.at(topo, "spec");
        if (rawSpec == null) {
            warnings.add("NodeTopology " + name + ": no spec; the node is treated as having no topology");
        } else {
            try {
                spec = SPECS.get(rawSpec, raw -> NodeStateConverter.RECORDS.convertValue(raw, NodeTopologySpec.class));
            } catch (IllegalArgumentException e) {
                warnings.add("NodeTopology " + name + ": spec cannot be read ("
                        + IpamSnapshotConverter.oneLine(e.getMessage())
                        + "); the node is treated as having no topology");
            }
        }
        Object rawStatus = ObjectFields.at(topo, "status");
        if (rawStatus != null) {
            try {
                status = NodeStateConverter.RECORDS.convertValue(rawStatus, NodeTopologyStatus.class);
            } catch (IllegalArgumentException e) {
                warnings.add("NodeTopology " + name + ": status cannot be read ("
                        + IpamSnapshotConverter.oneLine(e.getMessage())
                        + "); GPUs held are taken from the pods instead");
            }
        }
        return new TopologyFields(spec, status, warnings);
    }
}
