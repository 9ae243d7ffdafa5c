package dev.railyard.api.volcano;

import java.util.Map;

/**
 * The subset of a Volcano {@code PodGroup} ({@code scheduling.volcano.sh/v1beta1}) the placement engine reads.
 * The Volcano job controller copies a vcjob's {@code spec.networkTopology} here (v1.12+).
 *
 * @param namespace       {@code metadata.namespace}
 * @param name            {@code metadata.name}
 * @param minMember       {@code spec.minMember}: pods that must be placed together
 * @param networkTopology {@code spec.networkTopology}, or null when the job sets none
 * @param annotations     {@code metadata.annotations} (Railyard hints under {@code railyard.dev/} may sit here)
 */
public record PodGroup(String namespace, String name, int minMember, NetworkTopology networkTopology,
                       Map<String, String> annotations) {
    public PodGroup {
        annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
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
