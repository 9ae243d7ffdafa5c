package dev.railyard.scheduler.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.railyard.scheduler.hints.delivery.BindingHintWebhook;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks on the chart's sources that need no {@code helm} binary (rendering and the API server's verdict are the
 * e2e suite's, through deploy/tools/render.sh): the CRDs are the generated ones, every value a template reads
 * exists, every value and every RBAC rule is documented in the chart README, and the webhook path is the one the
 * service serves.
 */
class HelmChartSourcesTest {
    private static final String CHART = "helm/railyard";
    private static final Pattern VALUES_REF = Pattern.compile("\\.Values\\.([A-Za-z0-9_]+(?:\\.[A-Za-z0-9_]+)*)");
    private static final Pattern RESOURCES = Pattern.compile("^\\s*(?:- )?resources: \\[([^\\]]*)\\]");
    private static final Pattern VERBS = Pattern.compile("^\\s*verbs: \\[([^\\]]*)\\]");
    private static final Pattern TABLE_KEY = Pattern.compile("^\\| `([A-Za-z0-9_.]+)` \\|");

    private static final JsonNode VALUES = DeployFiles.single(CHART + "/values.yaml");
    private static final String README = DeployFiles.text(CHART + "/README.md");

    @Test
    void chartCrdsAreTheFilesGeneratedFromTheApiModule() throws IOException {
        // deploy/crds is written by the api module's crd-generator; the chart links to it instead of copying.
        Path chartCrds = DeployFiles.path(CHART + "/crds");
        Path generated = DeployFiles.path("crds");
        assertThat(Files.isSymbolicLink(chartCrds)).isTrue();
        assertThat(chartCrds.toRealPath()).isEqualTo(generated.toRealPath());
        try (Stream<Path> files = Files.list(generated)) {
            List<JsonNode> crds = files.filter(p -> p.toString().endsWith(".yml") || p.toString().endsWith(".yaml"))
                    .map(p -> DeployFiles.single("crds/" + p.getFileName())).toList();
            assertThat(crds).extracting(c -> c.path("metadata").path("name").asText())
                    .contains("nodetopologies.railyard.dev");
            assertThat(crds).allMatch(c -> "CustomResourceDefinition".equals(c.path("kind").asText()));
        }
    }

    @Test
    void everyValueATemplateReadsExists() throws IOException {
        Set<String> missing = new TreeSet<>();
        for (Path template : templates()) {
            Matcher m = VALUES_REF.matcher(Files.readString(template));
            while (m.find()) {
                if (DeployFiles.at(VALUES, m.group(1)).isMissingNode()) {
                    missing.add(template.getFileName() + ": .Values." + m.group(1));
                }
            }
        }
        assertThat(missing).isEmpty();
    }

    @Test
    void everyValueIsDocumentedAndEveryDocumentedValueExists() {
        Set<String> documented = new TreeSet<>();
        String values = section(README, "## Values");
        for (String line : values.split("\n")) {
            Matcher m = TABLE_KEY.matcher(line);
            if (m.find()) {
                documented.add(m.group(1));
            }
        }
        List<String> leaves = new ArrayList<>();
        leaves(VALUES, "", leaves);
        // A leaf is documented by its own row or by the row of a map above it (extender.resources covers
        // extender.resources.requests.cpu).
        List<String> undocumented = leaves.stream().filter(leaf -> Stream.iterate(leaf,
                        p -> p.contains("."), p -> p.substring(0, p.lastIndexOf('.')))
                .noneMatch(documented::contains) && !documented.contains(leaf.split("\\.")[0])).toList();
        assertThat(undocumented).isEmpty();
        assertThat(documented).allMatch(k -> !DeployFiles.at(VALUES, k).isMissingNode(), "a key of values.yaml");
    }

    @Test
    void everyRbacRuleOfTheTemplatesHasAReadmeRowWithItsResourcesAndVerbs() throws IOException {
        String rbac = section(README, "## RBAC");
        List<String> rows = Arrays.stream(rbac.split("\n")).filter(l -> l.startsWith("| ")).toList();
        Map<String, List<String>> rules = new TreeMap<>();
        for (String file : List.of("extender-rbac.yaml", "agent-rbac.yaml")) {
            String resources = null;
            int n = 0;
            for (String line : Files.readAllLines(DeployFiles.path(CHART + "/templates/" + file))) {
                Matcher r = RESOURCES.matcher(line);
                Matcher v = VERBS.matcher(line);
                if (r.find()) {
                    resources = r.group(1);
                } else if (v.find() && resources != null) {
                    rules.put(file + "#" + (++n), List.of(resources, v.group(1)));
                    resources = null;
                }
            }
        }
        // extender: 14 cluster-wide (core Events only, no events.k8s.io; Volcano and coscheduling PodGroups;
        // bindings, tokenreviews and subjectaccessreviews with the secure port), 1 in the explain ClusterRole, 3
        // namespaced (leases twice, the webhook Secret); agent: 2.
        assertThat(rules).hasSize(20);
        for (var rule : rules.entrySet()) {
            List<String> resources = split(rule.getValue().get(0));
            List<String> verbs = split(rule.getValue().get(1));
            boolean documented = rows.stream().anyMatch(row -> {
                String[] cells = row.split("\\|");
                // | group | resources | verbs | why |
                return cells.length >= 5 && resources.stream().allMatch(res -> cells[2].contains("`" + res + "`"))
                        && verbs.stream().allMatch(verb -> Arrays.asList(cells[3].trim().split(",\\s*")).contains(verb));
            });
            assertThat(documented).as("README row for %s: resources %s, verbs %s", rule.getKey(), resources, verbs)
                    .isTrue();
        }
    }

    @Test
    void webhookCallsThePathTheServiceServes() {
        String webhook = DeployFiles.text(CHART + "/templates/webhook.yaml");
        assertThat(webhook).contains("path: " + BindingHintWebhook.PATH)
                .contains("resources: [pods/binding]")
                .contains("operations: [CREATE]")
                // objectSelector would see the Binding's labels, not the pod's (docs/formats/binding.md §2).
                .doesNotContainPattern("(?m)^\\s*objectSelector:");
        assertThat(VALUES.path("webhook").path("failurePolicy").asText()).isEqualTo("Ignore");
        assertThat(VALUES.path("webhook").path("timeoutSeconds").asInt()).isBetween(1, 30);
    }

    private static List<Path> templates() throws IOException {
        try (Stream<Path> s = Files.list(DeployFiles.path(CHART + "/templates"))) {
            return s.sorted().toList();
        }
    }

    private static void leaves(JsonNode node, String path, List<String> out) {
        if (node.isObject() && !node.isEmpty()) {
            node.fields().forEachRemaining(e -> leaves(e.getValue(), path.isEmpty() ? e.getKey()
                    : path + "." + e.getKey(), out));
        } else {
            out.add(path);
        }
    }

    /** The text from a "## " heading to the next one. */
    private static String section(String markdown, String heading) {
        int start = markdown.indexOf("\n" + heading + "\n");
        assertThat(start).as("README heading %s", heading).isNotNegative();
        int end = markdown.indexOf("\n## ", start + heading.length() + 1);
        return markdown.substring(start, end < 0 ? markdown.length() : end);
    }

    private static List<String> split(String list) {
        return Arrays.stream(list.split(",")).map(s -> s.trim().replace("\"", "")).filter(s -> !s.isEmpty()).toList();
    }
}
