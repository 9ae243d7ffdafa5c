package dev.railyard.scheduler.protocol;

import java.util.Map;
import java.util.Objects;

/**
 * A pod as a scheduler extender request carries it, reduced to what placement needs.
 *
 * <p>Both adapters build it from the embedded core/v1 Pod (Volcano: {@code task.Pod}; kube-scheduler:
 * {@code Pod}); the Volcano adapter adds the task identity from TaskInfo's own keys.
 *
 * @param ref           namespace, name, UID
 * @param labels        {@code metadata.labels}, never null
 * @param annotations   {@code metadata.annotations}, never null
 * @param schedulerName {@code spec.schedulerName}, empty when absent
 * @param requests      effective resource requests (see {@link ResourceRequests})
 * @param gang          the PodGroup the pod belongs to, or null (see {@link GangRef#of})
 * @param volcanoTask   Volcano's task identity, or null for kube-scheduler requests
 */
public record ExtenderPod(PodRef ref,
                          Map<String, String> labels,
                          Map<String, String> annotations,
                          String schedulerName,
                          ResourceRequests requests,
                          GangRef gang,
                          VolcanoTask volcanoTask) {
    public ExtenderPod {
        Objects.requireNonNull(ref, "ref");
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
        schedulerName = schedulerName == null ? "" : schedulerName;
        requests = requests == null ? ResourceRequests.NONE : requests;
    }

    @Override
    public String toString() {
        return ref.toString();
    }
}
