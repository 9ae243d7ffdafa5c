package dev.railyard.api.volcano;

import java.util.Map;

/**
 * The subset of a {@code PodGroup} the placement engine reads: Volcano's ({@code scheduling.volcano.sh/v1beta1}),
 * or the scheduler-plugins coscheduling one ({@code scheduling.x-k8s.io/v1alpha1}), which has the same
 * {@code spec.minMember} and no {@code networkTopology}. The Volcano job controller copies a vcjob's
 * {@code spec.networkTopology} here (v1.12+). Both are one gang to the engine; they differ only in how their pods
 * name them ({@link Convention}).
 *
 * @param namespace       {@code metadata.namespace}
 * @param name            {@code metadata.name}
 * @param minMember       {@code spec.minMember}: pods that must be placed together
 * @param networkTopology {@code spec.networkTopology}, or null when the job sets none (always null for a
 *                        coscheduling PodGroup)
 * @param annotations     {@code metadata.annotations} (Railyard hints under {@code railyard.dev/} may sit here)
 * @param convention      which API the PodGroup came from, and so which pods are its members
 */
public record PodGroup(String namespace, String name, int minMember, NetworkTopology networkTopology,
                       Map<String, String> annotations, Convention convention) {
    public PodGroup {
        annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
        convention = convention == null ? Convention.VOLCANO : convention;
    }

    /** A Volcano PodGroup ({@link Convention#VOLCANO}). */
    public PodGroup(String namespace, String name, int minMember, NetworkTopology networkTopology,
                    Map<String, String> annotations) {
        this(namespace, name, minMember, networkTopology, annotations, Convention.VOLCANO);
    }

    /** Which PodGroup API an object came from, and how a pod names the PodGroup it belongs to. */
    public enum Convention {
        /**
         * Volcano, {@code scheduling.volcano.sh/v1beta1}: the pod's annotation {@code scheduling.k8s.io/group-name}
         * (volcano-sh/volcano {@code job_controller_util.go createJobPod}).
         */
        VOLCANO,
        /**
         * kubernetes-sigs/scheduler-plugins coscheduling, {@code scheduling.x-k8s.io/v1alpha1}: the pod's label
         * {@code scheduling.x-k8s.io/pod-group} ({@code apis/scheduling/v1alpha1/types.go PodGroupLabel}), in the
         * PodGroup's namespace.
         */
        COSCHEDULING
    }

    /**
     * {@code spec.networkTopology} of a PodGroup or vcjob (upstream {@code NetworkTopologySpec}).
     *
     * @param mode               hard (default) or soft
     * @param highestTierAllowed the highest HyperNode tier the job may span, or null
     * @param highestTierName    a HyperNode {@code tierName} instead of a number (v1.14+), or null; when no
     *                           HyperNode carries that name Volcano applies no constraint
     */
    public record NetworkTopology(NetworkTopologyMode mode, Integer highestTierAllowed, String highestTierName) {
        public NetworkTopology {
            mode = mode == null ? NetworkTopologyMode.HARD : mode;
        }
    }

    /** {@code networkTopology.mode}: {@code hard} must hold; {@code soft} is tried first and then relaxed. */
    public enum NetworkTopologyMode {
        HARD, SOFT;

        /**
         * @param text {@code hard} or {@code soft} (case-insensitive); null means hard, Volcano's default
         * @throws IllegalArgumentException for any other value
         */
        public static NetworkTopologyMode parse(String text) {
            if (text == null || text.isBlank()) {
                return HARD;
            }
            return switch (text.trim().toLowerCase(java.util.Locale.ROOT)) {
                case "hard" -> HARD;
                case "soft" -> SOFT;
                default -> throw new IllegalArgumentException(
                        "networkTopology.mode '" + text + "' is neither hard nor soft");
            };
        }
    }
}
