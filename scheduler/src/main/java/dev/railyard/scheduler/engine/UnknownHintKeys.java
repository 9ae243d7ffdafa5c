package dev.railyard.scheduler.engine;

import dev.railyard.api.hints.HintAnnotations;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Annotation keys under {@code railyard.dev/} that Railyard does not know, which it would otherwise ignore without a
 * word ({@code railyard.dev/rail-alignmnet}): one warning per key, naming where it is and the closest job-author key
 * ({@link HintAnnotations#INPUT_KEYS}). The keys Railyard writes itself ({@link HintAnnotations#OUTPUT_KEYS}) are
 * known. Used by {@link PlacementPolicy#resolve}, so that every reader of a policy (explain, the demo, the service's
 * Events) sees the same warnings.
 */
public final class UnknownHintKeys {
    /** At most this many edits make an unknown key a likely typo of a known one. */
    static final int MAX_EDITS = 3;
    private static final Set<String> KNOWN = known();

    private UnknownHintKeys() {
    }

    private static Set<String> known() {
        Set<String> k = new LinkedHashSet<>(HintAnnotations.INPUT_KEYS);
        k.addAll(HintAnnotations.OUTPUT_KEYS);
        k.addAll(HintAnnotations.STATE_KEYS);
        return Set.copyOf(k);
    }

    /**
     * @param annotations annotations of one object, or null
     * @param where       the object in words ({@code the pod}, {@code PodGroup prod/x})
     * @return one warning per unknown {@code railyard.dev/} key of that object alone, in the annotations' order (the
     *         service's Events: one object each)
     */
    public static List<String> of(Map<String, String> annotations, String where) {
        return warnings(annotations, where, new java.util.HashSet<>());
    }

    /**
     * @param annotations annotations of one object, or null
     * @param where       the object in words ({@code the pod}, {@code PodGroup prod/x}, {@code the Job})
     * @param seen        unknown keys already reported for a more specific object; keys reported here are added
     * @return one warning per unknown {@code railyard.dev/} key, in the annotations' order
     */
    static List<String> warnings(Map<String, String> annotations, String where, Set<String> seen) {
        List<String> out = new ArrayList<>();
        if (annotations == null) {
            return out;
        }
        for (String key : annotations.keySet()) {
            if (!key.startsWith(HintAnnotations.PREFIX) || KNOWN.contains(key) || !seen.add(key)) {
                continue;
            }
            out.add("annotation " + key + " on " + where + " is not a Railyard key and is ignored; "
                    + ClosestKey.within(key, HintAnnotations.INPUT_KEYS, MAX_EDITS)
                    .map(k -> "did you mean " + k + "?")
                    .orElse("the job-author keys are " + String.join(", ", HintAnnotations.INPUT_KEYS)));
        }
        return out;
    }
}
