package dev.railyard.e2e;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Text of a {@code volcano-scheduler.conf} for vc-scheduler's {@code --scheduler-conf}.
 *
 * <p>Actions and plugins are Volcano's built-in default, the same in v1.14.1 (the version this suite runs) and
 * v1.15.1 ({@code pkg/scheduler/util.go} {@code DefaultSchedulerConf}): actions {@code enqueue, allocate, backfill};
 * tier 1 priority, gang, conformance; tier 2 overcommit, drf, predicates, proportion, nodeorder. With an {@link Extender} the {@code extender} plugin is
 * appended to tier 2, after {@code predicates}, so Volcano only asks the extender about nodes its own predicates
 * passed (see docs/formats/volcano-extender.md §1 and §3).
 */
public final class VolcanoSchedulerConf {

    private VolcanoSchedulerConf() {
    }

    /**
     * Volcano {@code extender} plugin arguments ({@code pkg/scheduler/plugins/extender/argument.go}).
     *
     * @param urlPrefix base URL; Volcano POSTs to {@code urlPrefix/<verb>}
     * @param verbs argument key without the {@code extender.} prefix (e.g. {@code predicateVerb}) to the verb path;
     *        a verb that is absent is never called
     * @param ignorable {@code extender.ignorable}
     * @param managedResources {@code extender.managedResources}, written as a YAML list (a scalar string makes
     *        vc-scheduler exit fatally); empty = every task goes to the extender
     * @param httpTimeout {@code extender.httpTimeout}, written as a Go duration in milliseconds
     */
    public record Extender(URI urlPrefix, Map<String, String> verbs, boolean ignorable,
                           List<String> managedResources, Duration httpTimeout) {

        /** Verb argument keys Volcano v1.14.1 and v1.15.1 read ({@code argument.go} is identical in both). */
        public static final List<String> VERB_KEYS = List.of("onSessionOpenVerb", "onSessionCloseVerb",
                "predicateVerb", "prioritizeVerb", "preemptableVerb", "reclaimableVerb", "queueOverusedVerb",
                "jobEnqueueableVerb", "jobReadyVerb", "allocateFuncVerb", "deallocateFuncVerb");

        /**
         * @throws IllegalArgumentException for a verb key Volcano v1.14/v1.15 does not read (it would be silently
         *         ignored there)
         */
        public Extender {
            verbs = Map.copyOf(verbs);
            managedResources = List.copyOf(managedResources);
            for (String key : verbs.keySet()) {
                if (!VERB_KEYS.contains(key)) {
                    throw new IllegalArgumentException("unknown Volcano extender verb argument '" + key
                            + "' (expected one of " + VERB_KEYS + ")");
                }
            }
        }
    }

    /** The conf as YAML text, with the extender plugin when {@code extender} is present. */
    public static String render(Optional<Extender> extender) {
        List<Map<String, Object>> tier1 = new ArrayList<>(List.of(plugin("priority"), plugin("gang"),
                plugin("conformance")));
        List<Map<String, Object>> tier2 = new ArrayList<>(List.of(plugin("overcommit"), plugin("drf"),
                plugin("predicates"), plugin("proportion"), plugin("nodeorder")));
        extender.ifPresent(e -> {
            Map<String, Object> args = new LinkedHashMap<>();
            args.put("extender.urlPrefix", e.urlPrefix().toString());
            args.put("extender.httpTimeout", e.httpTimeout().toMillis() + "ms");
            Extender.VERB_KEYS.stream().filter(e.verbs()::containsKey)
                    .forEach(k -> args.put("extender." + k, e.verbs().get(k)));
            args.put("extender.ignorable", e.ignorable());
            if (!e.managedResources().isEmpty()) {
                args.put("extender.managedResources", e.managedResources());
            }
            Map<String, Object> p = plugin("extender");
            p.put("arguments", args);
            tier2.add(p);
        });
        Map<String, Object> conf = new LinkedHashMap<>();
        conf.put("actions", "enqueue, allocate, backfill");
        conf.put("tiers", List.of(Map.of("plugins", tier1), Map.of("plugins", tier2)));
        return yaml(conf);
    }

    private static Map<String, Object> plugin(String name) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("name", name);
        return p;
    }

    static String yaml(Object tree) {
        try {
            return new ObjectMapper(YAMLFactory.builder()
                    .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                    .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES).build())
                    .writeValueAsString(tree);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write YAML", e);
        }
    }
}
