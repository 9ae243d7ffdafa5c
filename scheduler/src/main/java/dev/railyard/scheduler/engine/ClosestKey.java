package dev.railyard.scheduler.engine;

import org.apache.commons.text.similarity.LevenshteinDistance;

import java.util.Collection;
import java.util.Optional;

/**
 * "Did you mean": the known key nearest to a misspelt one by Levenshtein distance (commons-text), for warnings about
 * annotation keys and refusals of job-file keys. Stateless.
 */
public final class ClosestKey {
    private ClosestKey() {
    }

    /**
     * @param key     the key as written
     * @param known   the keys that exist
     * @param maxEdits the most single-character edits (insert, delete, replace) still taken for a typo
     * @return the known key fewest edits away, the first in {@code known}'s order on ties; empty when every known key
     *         is more than {@code maxEdits} away
     */
    public static Optional<String> within(String key, Collection<String> known, int maxEdits) {
        LevenshteinDistance distance = new LevenshteinDistance(maxEdits);
        String best = null;
        int bestEdits = Integer.MAX_VALUE;
        for (String k : known) {
            int d = distance.apply(key, k);
            if (d >= 0 && d < bestEdits) {
                best = k;
                bestEdits = d;
            }
        }
        return Optional.ofNullable(best);
    }
}
