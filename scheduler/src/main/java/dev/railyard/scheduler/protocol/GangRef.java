package dev.railyard.scheduler.protocol;

import java.util.Map;
import java.util.Objects;

/**
 * The PodGroup (gang) a pod belongs to, as its metadata names it.
 *
 * @param namespace    the PodGroup's namespace (a PodGroup lives in its pods' namespace)
 * @param podGroupName the PodGroup's name
 * @param convention   which metadata key named it
 */
public record GangRef(String namespace, String podGroupName, Convention convention) {

    /** Volcano's pod annotation naming the PodGroup (volcano-sh/volcano job_controller_util.go createJobPod). */
    public static final String VOLCANO_GROUP_ANNOTATION = "scheduling.k8s.io/group-name";
    /** scheduler-plugins coscheduling label, current API group (apis/scheduling/v1alpha1/types.go). */
    public static final String COSCHEDULING_LABEL = "scheduling.x-k8s.io/pod-group";
    /** scheduler-plugins coscheduling label, older API group {@code scheduling.sigs.k8s.io}. */
    public static final String COSCHEDULING_LEGACY_LABEL = "pod-group.scheduling.sigs.k8s.io";

    /** Where the gang name came from. */
    public enum Convention {
        /** annotation {@value #VOLCANO_GROUP_ANNOTATION} */
        VOLCANO,
        /** label {@value #COSCHEDULING_LABEL} or {@value #COSCHEDULING_LEGACY_LABEL} */
        COSCHEDULING
    }

    public GangRef {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(podGroupName, "podGroupName");
        Objects.requireNonNull(convention, "convention");
    }

    /**
     * Finds the gang of a pod: Volcano's annotation first, then the coscheduling labels (current, then legacy).
     *
     * @return the gang, or null when the pod names none (blank values count as none)
     */
    public static GangRef of(String namespace, Map<String, String> labels, Map<String, String> annotations) {
        String volcano = annotations.get(VOLCANO_GROUP_ANNOTATION);
        if (volcano != null && !volcano.isBlank()) {
            return new GangRef(namespace, volcano, Convention.VOLCANO);
        }
        for (String key : new String[]{COSCHEDULING_LABEL, COSCHEDULING_LEGACY_LABEL}) {
            String v = labels.get(key);
            if (v != null && !v.isBlank()) {
                return new GangRef(namespace, v, Convention.COSCHEDULING);
            }
        }
        return null;
    }

    /** {@code namespace/name}, control characters escaped (the name comes from a label or annotation). */
    @Override
    public String toString() {
        return dev.railyard.scheduler.input.LogText.escape(namespace + "/" + podGroupName);
    }
}
