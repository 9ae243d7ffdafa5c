package dev.railyard.scheduler.explain;

import dev.railyard.scheduler.engine.ClosestKey;
import dev.railyard.topology.InputException;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The keys a Volcano Job may hold, from {@code volcano-sh/apis} {@code pkg/apis/batch/v1alpha1/job.go} (master,
 * June 2026) as listed in docs/formats/volcano-job.md §1. Volcano's Job CRD is a structural schema without
 * {@code x-kubernetes-preserve-unknown-fields}, so the API server's strict field validation (kubectl's default
 * since 1.27) refuses an unknown key; a job file with one is refused here too, naming the closest known key, rather
 * than explained as a different job ({@code replica: 4} would silently be one replica).
 */
final class VolcanoJobKeys {
    /** The only version of {@code batch.volcano.sh} any Volcano release serves. */
    static final String API_VERSION = "batch.volcano.sh/v1alpha1";
    static final Set<String> TOP = Set.of("apiVersion", "kind", "metadata", "spec", "status");
    static final Set<String> SPEC = Set.of("schedulerName", "minAvailable", "volumes", "tasks", "policies",
            "plugins", "runningEstimate", "queue", "maxRetry", "ttlSecondsAfterFinished", "priorityClassName",
            "minSuccess", "networkTopology");
    static final Set<String> TASK = Set.of("name", "replicas", "minAvailable", "template", "policies",
            "topologyPolicy", "maxRetry", "dependsOn", "partitionPolicy");
    static final Set<String> TEMPLATE = Set.of("metadata", "spec");
    static final Set<String> NETWORK_TOPOLOGY = Set.of("mode", "highestTierAllowed", "highestTierName");
    /** Edits that still make an unknown key a likely typo of a known one. */
    private static final int MAX_EDITS = 3;

    private VolcanoJobKeys() {
    }

    /**
     * @param apiVersion the document's {@code apiVersion}
     * @param kind       its {@code kind}
     * @param where      file and document, for the message
     * @throws InputException when the document is not a {@value #API_VERSION} Job, naming what it is
     */
    static void checkKind(String apiVersion, String kind, String where) {
        if ("Job".equals(kind) && API_VERSION.equals(apiVersion)) {
            return;
        }
        if ("Job".equals(kind) && apiVersion != null && apiVersion.startsWith("batch.volcano.sh/")) {
            throw new InputException(where + ": apiVersion " + apiVersion + " is not served by Volcano; a Volcano Job "
                    + "is " + API_VERSION + " (the only version of any release, docs/formats/volcano-job.md §1)");
        }
        throw new InputException(where + ": " + (kind == null ? "an object without kind" : kind + " "
                + (apiVersion == null ? "" : apiVersion)).strip() + " is not a Volcano Job (apiVersion "
                + API_VERSION + ", kind Job)");
    }

    /**
     * @param keys  the keys of one object of the Job
     * @param known the keys that object may hold
     * @param path  the object's path in the Job ({@code spec.tasks[0]}), empty for the top level
     * @param where file, document and Job, for the message
     * @throws InputException naming the first unknown key and the closest known one
     */
    static void check(Iterable<String> keys, Set<String> known, String path, String where) {
        for (String key : keys) {
            if (known.contains(key)) {
                continue;
            }
            List<String> sorted = known.stream().sorted().toList();
            String hint = ClosestKey.within(key, sorted, MAX_EDITS).map(k -> "did you mean '" + k + "'?")
                    .orElse("known keys: " + String.join(", ", sorted));
            throw new InputException(where + ": unknown key '" + key + "'" + (path.isEmpty() ? "" : " in " + path)
                    + "; " + hint + " (Volcano refuses unknown Job fields, docs/formats/volcano-job.md §1)");
        }
    }

    /** {@link #check} for a map read from YAML. */
    static void check(Map<String, Object> object, Set<String> known, String path, String where) {
        check(object.keySet(), known, path, where);
    }
}
