package dev.railyard.scheduler.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.railyard.scheduler.protocol.NeutralPlacementDecisions;
import dev.railyard.scheduler.protocol.kube.Binder;
import dev.railyard.scheduler.protocol.kube.KubeExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration snippets users paste into their schedulers ({@code deploy/config/}): shapes from
 * docs/formats/volcano-extender.md §1, §4 (Volcano extender plugin, volcano-sh/volcano
 * {@code pkg/scheduler/plugins/extender/argument.go}) and docs/formats/kube-extender.md §2
 * (kubescheduler.config.k8s.io/v1 {@code Extender}, kubernetes/kube-scheduler {@code config/v1/types.go}), verbs and
 * paths from Railyard's own routes.
 */
class SchedulerConfigSnippetsTest {
    /** Argument keys Volcano's extender plugin reads (docs/formats/volcano-extender.md §1); any other key is silently ignored there. */
    private static final Set<String> VOLCANO_ARGUMENTS = Set.of("extender.urlPrefix", "extender.httpTimeout",
            "extender.ignorable", "extender.managedResources", "extender.onSessionOpenVerb",
            "extender.onSessionCloseVerb", "extender.predicateVerb", "extender.prioritizeVerb",
            "extender.preemptableVerb", "extender.reclaimableVerb", "extender.queueOverusedVerb",
            "extender.jobEnqueueableVerb", "extender.jobEnqueuedVerb", "extender.jobReadyVerb",
            "extender.allocateFuncVerb", "extender.deallocateFuncVerb");
    /** Go's time.ParseDuration syntax (both schedulers parse httpTimeout with it). */
    private static final Pattern GO_DURATION = Pattern.compile("([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+");
    /** An extended resource name: a DNS-subdomain prefix, a slash, a name (k8s IsExtendedResourceName). */
    private static final Pattern EXTENDED_RESOURCE = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
    /** The chart's Service for `helm install railyard deploy/helm/railyard -n railyard-system`. */
    private static final String SERVICE_HOST = "railyard.railyard-system.svc";

    private static final JsonNode VOLCANO = DeployFiles.single("config/volcano-scheduler.conf");
    private static final JsonNode KUBE = DeployFiles.single("config/kube-scheduler-config.yaml");

    @Test
    void volcanoExtenderSitsRightAfterPredicatesInTheSameTier() {
        // Volcano asks plugins in tier order and stops at the first rejection (session_plugins.go), so only the
        // nodes predicates passed reach the extender.
        int tiersWithExtender = 0;
        for (JsonNode tier : VOLCANO.path("tiers")) {
            List<String> names = new ArrayList<>();
            tier.path("plugins").forEach(p -> names.add(p.path("name").asText()));
            if (names.contains("extender")) {
                tiersWithExtender++;
                assertThat(names).contains("predicates");
                assertThat(names.indexOf("extender")).isEqualTo(names.indexOf("predicates") + 1);
            }
            assertThat(new HashSet<>(names)).as("plugin names in a tier are unique").hasSameSizeAs(names);
        }
        assertThat(tiersWithExtender).isEqualTo(1);
        assertThat(VOLCANO.path("actions").asText()).contains("allocate");
    }

    @Test
    void volcanoArgumentsAreKeysVolcanoReadsWithTheTypesItDecodes() {
        JsonNode args = volcanoArguments();
        List<String> keys = new ArrayList<>();
        args.fieldNames().forEachRemaining(keys::add);
        assertThat(keys).allMatch(VOLCANO_ARGUMENTS::contains, "a key Volcano's extender plugin reads");
        assertThat(args.path("extender.httpTimeout").isTextual()).isTrue();
        assertThat(args.path("extender.httpTimeout").asText()).matches(GO_DURATION);
        assertThat(args.path("extender.ignorable").isBoolean()).isTrue();
        // A scalar ("a,b") makes vc-scheduler exit fatally at start (mapstructure into []string,
        // docs/formats/volcano-extender.md §1).
        JsonNode managed = args.path("extender.managedResources");
        assertThat(managed.isArray()).as("managedResources is a YAML list").isTrue();
        assertThat(managed).isNotEmpty().allMatch(JsonNode::isTextual)
                .allMatch(n -> EXTENDED_RESOURCE.matcher(n.asText()).matches());
    }

    @Test
    void volcanoLeavesOutOnSessionOpenAndTheVerbsWhoseErrorsHurt() {
        JsonNode args = volcanoArguments();
        // onSessionOpen: a failed call with ignorable=false skips every other verb for the session
        // (docs/formats/volcano-extender.md §4).
        assertThat(args.has("extender.onSessionOpenVerb")).isFalse();
        // jobReady's error handling is inverted: with ignorable=true an outage makes every job not ready.
        if (args.path("extender.ignorable").asBoolean()) {
            assertThat(args.has("extender.jobReadyVerb")).isFalse();
        }
        // An error in preemptable/reclaimable ends victim selection for the tier whatever ignorable says.
        assertThat(args.has("extender.preemptableVerb")).isFalse();
        assertThat(args.has("extender.reclaimableVerb")).isFalse();
    }

    @Test
    void volcanoUrlAndVerbsAreRoutesRailyardServes() {
        JsonNode args = volcanoArguments();
        URI url = URI.create(args.path("extender.urlPrefix").asText());
        assertThat(url.getScheme()).isEqualTo("http");
        assertThat(url.getHost()).isEqualTo(SERVICE_HOST);
        assertThat(url.getPort()).isEqualTo(chartServicePort());
        assertThat(url.getPath() + "/").isEqualTo(VolcanoExtender.PREFIX);
        Set<String> served = new VolcanoExtender(new NeutralPlacementDecisions(50, "test"), VolcanoSettings.DEFAULTS,
                new SimpleMeterRegistry()).verbs().keySet();
        List<String> verbs = new ArrayList<>();
        args.fields().forEachRemaining(e -> {
            if (e.getKey().endsWith("Verb")) {
                verbs.add(e.getValue().asText());
            }
        });
        assertThat(verbs).containsExactlyInAnyOrder("predicate", "prioritize", "jobEnqueueable", "allocateFunc",
                "deallocateFunc");
        assertThat(served).containsAll(verbs);
    }

    @Test
    void kubeSchedulerExtenderIsNodeCacheCapableBindsAndManagesGpuResources() {
        assertThat(KUBE.path("apiVersion").asText()).isEqualTo("kubescheduler.config.k8s.io/v1");
        assertThat(KUBE.path("kind").asText()).isEqualTo("KubeSchedulerConfiguration");
        JsonNode extenders = KUBE.path("extenders");
        assertThat(extenders).hasSize(1);
        JsonNode e = extenders.get(0);
        assertThat(e.path("nodeCacheCapable").booleanValue()).isTrue();
        assertThat(e.path("weight").isIntegralNumber()).isTrue();
        // Validation requires weight > 0 with a prioritizeVerb (docs/formats/kube-extender.md §2).
        assertThat(e.path("weight").asInt()).isPositive();
        assertThat(e.path("httpTimeout").asText()).matches(GO_DURATION);
        assertThat(e.path("ignorable").isBoolean()).isTrue();
        JsonNode managed = e.path("managedResources");
        assertThat(managed.isArray()).isTrue();
        assertThat(managed).isNotEmpty().allSatisfy(m -> {
            assertThat(m.path("name").asText()).matches(EXTENDED_RESOURCE);
            assertThat(m.path("ignoredByScheduler").isBoolean()).isTrue();
            assertThat(m.path("ignoredByScheduler").booleanValue()).isFalse();
        });
    }

    @Test
    void kubeSchedulerUrlAndVerbsAreRoutesRailyardServes() {
        JsonNode e = KUBE.path("extenders").get(0);
        URI url = URI.create(e.path("urlPrefix").asText());
        assertThat(url.getHost()).isEqualTo(SERVICE_HOST);
        // the chart's secure port: kube-scheduler's verbs are served only there, over HTTPS with client certificates
        assertThat(url.getScheme()).isEqualTo("https");
        assertThat(url.getPort()).isEqualTo(DeployFiles.at(DeployFiles.single("helm/railyard/values.yaml"),
                "extender.secure.port").asInt());
        assertThat(url.getPath() + "/").isEqualTo(KubeExtender.PREFIX);
        // k8s.io/kube-scheduler v0.35.4 config/v1 Extender: enableHTTPS and tlsConfig {certFile, keyFile, caFile};
        // without caFile kube-scheduler skips verifying the server (pkg/scheduler/extender.go makeTransport)
        assertThat(e.path("enableHTTPS").booleanValue()).isTrue();
        JsonNode tls = e.path("tlsConfig");
        assertThat(tls.path("certFile").asText()).endsWith("tls.crt");
        assertThat(tls.path("keyFile").asText()).endsWith("tls.key");
        assertThat(tls.path("caFile").asText()).endsWith("ca.crt");
        assertThat(tls.has("insecure")).isFalse();
        Map<String, ?> served = new KubeExtender(new NeutralPlacementDecisions(50, "test"), Binder.unwired(), 50,
                new SimpleMeterRegistry()).verbs();
        assertThat(List.of(e.path("filterVerb").asText(), e.path("prioritizeVerb").asText(),
                e.path("bindVerb").asText())).containsExactly("filter", "prioritize", "bind")
                .allMatch(served::containsKey);
    }

    @Test
    void bothSnippetsManageTheSameResources() {
        Set<String> volcano = new HashSet<>();
        volcanoArguments().path("extender.managedResources").forEach(n -> volcano.add(n.asText()));
        Set<String> kube = new HashSet<>();
        KUBE.path("extenders").get(0).path("managedResources").forEach(n -> kube.add(n.path("name").asText()));
        // The seed's GPU and rdma-shared-dev-plugin resources (docs/seed-setup.md).
        assertThat(volcano).isEqualTo(kube).containsExactlyInAnyOrder("nvidia.com/gpu", "nvidia.com/mlx5_0",
                "nvidia.com/mlx5_1", "nvidia.com/mlx5_2", "nvidia.com/mlx5_3");
    }

    private static JsonNode volcanoArguments() {
        for (JsonNode tier : VOLCANO.path("tiers")) {
            for (JsonNode p : tier.path("plugins")) {
                if ("extender".equals(p.path("name").asText())) {
                    return p.path("arguments");
                }
            }
        }
        throw new AssertionError("no extender plugin in volcano-scheduler.conf");
    }

    private static int chartServicePort() {
        return DeployFiles.at(DeployFiles.single("helm/railyard/values.yaml"), "extender.service.port").asInt();
    }
}
