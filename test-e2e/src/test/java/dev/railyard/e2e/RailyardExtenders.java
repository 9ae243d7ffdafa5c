package dev.railyard.e2e;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Scheduler configurations that point at Railyard (through a {@link RecordingProxy}), and the shared set-up of the
 * Railyard suites.
 */
public final class RailyardExtenders {

    /**
     * Per-call timeout given to the schedulers. Railyard answers in milliseconds, but this machine's two cores are
     * shared and a cold JVM compiles on first use; 3 s keeps a slow first call from counting as an outage.
     */
    public static final Duration HTTP_TIMEOUT = Duration.ofSeconds(3);
    /** The only resource whose pods go to Railyard (Volcano {@code managedResources}, kube {@code managedResources}). */
    public static final String GPU = "nvidia.com/gpu";

    /** Verbs of Railyard's recommended Volcano configuration (docs/serve.md): no {@code onSessionOpenVerb}. */
    public static final Map<String, String> RECOMMENDED_VOLCANO_VERBS = verbs("predicateVerb", "predicate",
            "prioritizeVerb", "prioritize", "jobEnqueueableVerb", "jobEnqueueable", "jobReadyVerb", "jobReady",
            "allocateFuncVerb", "allocateFunc", "deallocateFuncVerb", "deallocateFunc");

    /** Every verb Volcano v1.14 can call, for capturing one request body of each. */
    public static final Map<String, String> ALL_VOLCANO_VERBS = verbs("onSessionOpenVerb", "onSessionOpen",
            "onSessionCloseVerb", "onSessionClose", "predicateVerb", "predicate", "prioritizeVerb", "prioritize",
            "preemptableVerb", "preemptable", "reclaimableVerb", "reclaimable", "queueOverusedVerb", "queueOverused",
            "jobEnqueueableVerb", "jobEnqueueable", "jobReadyVerb", "jobReady", "allocateFuncVerb", "allocateFunc",
            "deallocateFuncVerb", "deallocateFunc");

    private RailyardExtenders() {
    }

    private static Map<String, String> verbs(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    /** vc-scheduler's extender plugin: {@code <proxy>/volcano}, GPU pods only. */
    public static VolcanoSchedulerConf.Extender volcano(RecordingProxy proxy, Map<String, String> verbs,
                                                        boolean ignorable) {
        return new VolcanoSchedulerConf.Extender(URI.create(proxy.url() + "/volcano"), verbs, ignorable, List.of(GPU),
                HTTP_TIMEOUT);
    }

    /** kube-scheduler's extender: filter, prioritize and bind at {@code <proxy>/kube}, nodeCacheCapable. */
    public static KubeSchedulerConf.Extender kube(RecordingProxy proxy, boolean ignorable) {
        return new KubeSchedulerConf.Extender(URI.create(proxy.url() + "/kube"), "filter", "prioritize", "bind", 1,
                true, ignorable, List.of(GPU), HTTP_TIMEOUT);
    }

    /**
     * kube-scheduler's extender on Railyard's secure port, as deploy/config/kube-scheduler-config.yaml has it:
     * {@code https://127.0.0.1:<port>/kube}, {@code enableHTTPS}, {@code tlsConfig} with the client certificate,
     * key and CA of {@code pki}; filter, prioritize and bind, nodeCacheCapable, GPU pods only.
     */
    public static KubeSchedulerConf.Extender secureKube(int port, SecurePki pki, boolean ignorable) {
        return new KubeSchedulerConf.Extender(URI.create("https://127.0.0.1:" + port + "/kube"), "filter", "prioritize",
                "bind", 1, true, ignorable, List.of(GPU), HTTP_TIMEOUT, java.util.Optional.of(
                new KubeSchedulerConf.Tls(pki.clientCert(), pki.clientKey(), pki.caCert())));
    }

    /**
     * The prelude of a suite whose scheduler talks to Railyard directly: the {@link SeedCluster} objects, then
     * {@code railyard serve} with {@code args} (e.g. its secure port), then its {@code pods/binding} webhook.
     */
    public static ControlPlane.Prelude directPrelude(RailyardProcess[] holder, List<String> args) {
        return cp -> {
            SeedCluster.create(cp);
            RailyardProcess railyard = new RailyardProcess(cp, args);
            holder[0] = railyard;
            railyard.start();
            cp.client().resource(hintWebhook(railyard.webhookUrl(), cp.pki().caCert())).create();
        };
    }

    /**
     * A proxy whose captures go to {@code <railyard.e2e.captured>/<suite>/} (default {@code target/captured}).
     *
     * @throws UncheckedIOException if it cannot listen
     */
    public static RecordingProxy proxy(String suite) {
        Path dir = Path.of(System.getProperty("railyard.e2e.captured", "target/captured")).resolve(suite);
        try {
            return RecordingProxy.start(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the recording proxy", e);
        }
    }

    /**
     * The prelude of a Railyard suite: creates the {@link SeedCluster} objects, starts {@code railyard serve}, points
     * the proxy at it and registers its {@code pods/binding} hint webhook, so Railyard is ready before any scheduler
     * starts.
     */
    public static ControlPlane.Prelude prelude(RecordingProxy proxy, RailyardProcess[] holder) {
        return cp -> {
            SeedCluster.create(cp);
            RailyardProcess railyard = new RailyardProcess(cp, List.of("--log-level=debug"));
            holder[0] = railyard;
            proxy.backend(railyard.start());
            cp.client().resource(hintWebhook(railyard.webhookUrl(), cp.pki().caCert())).create();
        };
    }

    /**
     * The {@code pods/binding} webhook that puts Railyard's hints on pods vc-scheduler binds, as the Helm chart
     * declares it ({@code deploy/helm/railyard/templates/webhook.yaml} with the chart defaults: failurePolicy
     * Ignore, timeout 2 s, only Volcano gang pods), but with a URL instead of a Service and the test CA.
     */
    static MutatingWebhookConfiguration hintWebhook(URI url, Path caCert) throws IOException {
        String ca = Base64.getEncoder().encodeToString(Files.readAllBytes(caCert));
        return new MutatingWebhookConfigurationBuilder()
                .withNewMetadata().withName("railyard-hints").endMetadata()
                .addNewWebhook()
                    .withName("pods-binding.hints.railyard.dev")
                    .withAdmissionReviewVersions("v1")
                    .withNewClientConfig().withUrl(url.toString()).withCaBundle(ca).endClientConfig()
                    .addNewRule().withApiGroups("").withApiVersions("v1").withOperations("CREATE")
                        .withResources("pods/binding").withScope("Namespaced").endRule()
                    .withFailurePolicy("Ignore")
                    .withSideEffects("NoneOnDryRun")
                    .withTimeoutSeconds(2)
                    .withReinvocationPolicy("Never")
                    .addNewMatchCondition().withName("volcano-gang-pod")
                        .withExpression("has(object.metadata.annotations) && "
                                + "'scheduling.k8s.io/group-name' in object.metadata.annotations")
                    .endMatchCondition()
                .endWebhook()
                .build();
    }
}
