package dev.railyard.scheduler.cluster;

import dev.railyard.api.volcano.PodGroup;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * scheduler-plugins coscheduling PodGroups in generic form → the engine's {@link PodGroup} record, the same gang
 * notion as a Volcano PodGroup ({@link PodGroup.Convention#COSCHEDULING}, no {@code networkTopology}).
 *
 * <p>Upstream shape (kubernetes-sigs/scheduler-plugins {@code apis/scheduling/v1alpha1/types.go}, CRD
 * {@code podgroups.scheduling.x-k8s.io} in {@code manifests/coscheduling/crd.yaml}): {@code spec.minMember}
 * (int32, {@code omitempty}, so 0 when unset), {@code spec.minResources} (a ResourceList),
 * {@code spec.scheduleTimeoutSeconds} (*int32); {@code status.phase} (Pending, Scheduling, Running, Unknown,
 * Finished, Failed), {@code occupiedBy}, {@code running}, {@code succeeded}, {@code failed},
 * {@code scheduleStartTime}. Railyard reads {@code minMember} and the annotations (its {@code railyard.dev/} hints);
 * {@code minResources} and {@code scheduleTimeoutSeconds} govern the coscheduling plugin's own quorum check and
 * Permit wait, which Railyard does not perform, and the status is the plugin's bookkeeping.
 */
public final class CoschedulingObjectConverter {
    private CoschedulingObjectConverter() {
    }

    /**
     * @return coscheduling PodGroups by {@code namespace/name}; one with an unreadable {@code spec.minMember} is
     *         skipped with a warning naming it
     */
    public static Converted<Map<String, PodGroup>> podGroups(ClusterObjects objects) {
        List<String> warnings = new ArrayList<>();
        Map<String, PodGroup> out = new LinkedHashMap<>();
        for (GenericKubernetesResource r : objects.of(WatchedKind.COSCHEDULING_POD_GROUP)) {
            try {
                PodGroup pg = podGroup(r);
                out.put(pg.namespace() + "/" + pg.name(), pg);
            } catch (IllegalArgumentException e) {
                warnings.add(ObjectFields.describe(r) + " (" + WatchedKind.COSCHEDULING_POD_GROUP.apiVersion() + "): "
                        + e.getMessage() + "; skipped");
            }
        }
        return new Converted<>(out, warnings);
    }

    /**
     * @param r a {@code scheduling.x-k8s.io} PodGroup in generic form
     * @return the record; {@code minMember} 0 when unset (the Go zero value of upstream's {@code omitempty} int32)
     * @throws IllegalArgumentException naming the field when {@code spec.minMember} is not a whole number or is
     *                                  negative
     */
    public static PodGroup podGroup(GenericKubernetesResource r) {
        String ns = r.getMetadata().getNamespace() == null ? "default" : r.getMetadata().getNamespace();
        Object raw = ObjectFields.at(r, "spec", "minMember");
        int min;
        if (raw == null) {
            min = 0;
        } else if (raw instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())) {
            min = n.intValue();
        } else {
            String t = ObjectFields.text(raw);
            try {
                min = Integer.parseInt(t == null ? "" : t.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("spec.minMember '" + (t == null ? raw : t)
                        + "' is not a whole number");
            }
        }
        if (min < 0) {
            throw new IllegalArgumentException("spec.minMember " + min + " is negative");
        }
        return new PodGroup(ns, r.getMetadata().getName(), min, null, ObjectFields.annotations(r),
                PodGroup.Convention.COSCHEDULING);
    }
}
