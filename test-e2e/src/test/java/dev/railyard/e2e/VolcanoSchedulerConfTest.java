package dev.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The generated {@code volcano-scheduler.conf}, checked without a running scheduler: it pins the
 * shapes Volcano v1.14.1 and v1.15.1 read (docs/formats/volcano-extender.md §1).
 */
class VolcanoSchedulerConfTest {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    @Test
    void withoutExtenderItIsVolcanosDefaultConf() throws Exception {
        JsonNode conf = YAML.readTree(VolcanoSchedulerConf.render(Optional.empty()));

        // pkg/scheduler/util.go DefaultSchedulerConf in volcano.sh/volcano v1.14.1 (identical in v1.15.1).
        assertThat(conf.get("actions").asText()).isEqualTo("enqueue, allocate, backfill");
        assertThat(names(conf.get("tiers").get(0))).containsExactly("priority", "gang", "conformance");
        assertThat(names(conf.get("tiers").get(1)))
                .containsExactly("overcommit", "drf", "predicates", "proportion", "nodeorder");
    }

    @Test
    void extenderPluginComesAfterPredicatesWithListManagedResources() throws Exception {
        var extender = new VolcanoSchedulerConf.Extender(URI.create("http://127.0.0.1:18080/volcano"),
                Map.of("predicateVerb", "predicate", "prioritizeVerb", "prioritize"), false,
                List.of("nvidia.com/gpu"), Duration.ofMillis(500));

        JsonNode tier2 = YAML.readTree(VolcanoSchedulerConf.render(Optional.of(extender))).get("tiers").get(1);

        assertThat(names(tier2)).containsExactly("overcommit", "drf", "predicates", "proportion", "nodeorder",
                "extender");
        JsonNode args = tier2.get("plugins").get(5).get("arguments");
        assertThat(args.get("extender.urlPrefix").asText()).isEqualTo("http://127.0.0.1:18080/volcano");
        assertThat(args.get("extender.httpTimeout").asText()).isEqualTo("500ms");
        assertThat(args.get("extender.predicateVerb").asText()).isEqualTo("predicate");
        assertThat(args.get("extender.prioritizeVerb").asText()).isEqualTo("prioritize");
        assertThat(args.has("extender.onSessionOpenVerb")).isFalse();
        assertThat(args.get("extender.ignorable").isBoolean()).isTrue();
        assertThat(args.get("extender.ignorable").asBoolean()).isFalse();
        // A scalar string here makes vc-scheduler exit fatally (mapstructure decode into []string).
        assertThat(args.get("extender.managedResources").isArray()).isTrue();
        assertThat(args.get("extender.managedResources").get(0).asText()).isEqualTo("nvidia.com/gpu");
    }

    @Test
    void unknownVerbKeyIsRejected() {
        assertThatThrownBy(() -> new VolcanoSchedulerConf.Extender(URI.create("http://127.0.0.1:1"),
                Map.of("bindVerb", "bind"), false, List.of(), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown Volcano extender verb argument 'bindVerb'");
    }

    private static List<String> names(JsonNode tier) {
        return tier.get("plugins").valueStream().map(p -> p.get("name").asText()).toList();
    }
}
