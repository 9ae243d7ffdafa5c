package dev.railyard.scheduler.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

import java.util.Map;
import java.util.TreeMap;

/**
 * The fields of a core/v1 Node that Railyard reads, kept instead of the Node (no images, no conditions history, no
 * {@code managedFields}): what {@link NodeStateConverter} turns into the engine's node.
 *
 * @param name        {@code metadata.name}
 * @param labels      {@code metadata.labels} (strings interned)
 * @param schedulable false when {@code spec.unschedulable} is true (cordoned) or the {@code Ready} condition exists
 *                    with a status other than {@code True}; a node without conditions (a hand-written snapshot)
 *                    counts as ready
 * @param resources   the extended resources (names with a {@code /}) of {@code status.allocatable}, else of
 *                    {@code status.capacity} when allocatable is empty, as the quantity text
 */
public record NodeFields(String name, Map<String, String> labels, boolean schedulable, Map<String, String> resources) {
    public NodeFields {
        labels = Interner.map(labels);
        resources = Interner.map(resources);
    }

    /**
     * @param n a Node in generic form with a name
     * @return its fields
     */
    public static NodeFields of(GenericKubernetesResource n) {
        boolean cordoned = Boolean.TRUE.equals(ObjectFields.at(n, "spec", "unschedulable"))
                || "true".equals(ObjectFields.text(ObjectFields.at(n, "spec", "unschedulable")));
        boolean ready = true;
        for (Object c : ObjectFields.list(ObjectFields.at(n, "status", "conditions"))) {
            if ("Ready".equals(ObjectFields.text(ObjectFields.at(c, "type")))) {
                ready = "True".equals(ObjectFields.text(ObjectFields.at(c, "status")));
            }
        }
        Map<String, String> allocatable = ObjectFields.strings(ObjectFields.at(n, "status", "allocatable"));
        if (allocatable.isEmpty()) {
            allocatable = ObjectFields.strings(ObjectFields.at(n, "status", "capacity"));
        }
        Map<String, String> extended = new TreeMap<>();
        allocatable.forEach((k, v) -> {
            if (k.indexOf('/') > 0) {
                extended.put(k, v);
            }
        });
        return new NodeFields(n.getMetadata().getName(), ObjectFields.labels(n), !cordoned && ready, extended);
    }
}
