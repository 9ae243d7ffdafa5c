package dev.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.railyard.api.topology.NodeTopology;
import dev.railyard.scheduler.certificates.ServingCertificate;
import dev.railyard.scheduler.certificates.WebhookCertificateSecret;
import dev.railyard.scheduler.service.LeaderElection;
import dev.railyard.scheduler.service.PodHoldWriter;
import dev.railyard.agent.DesiredNodeTopology;
import dev.railyard.agent.NodeTopologyPublisher;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.FieldValidateable;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Helm chart ({@code deploy/helm/railyard}) against a real kube-apiserver (issue 9: "the rendered manifests
 * are accepted by the real kube-apiserver"): every variant of {@code deploy/tools/render.sh}, rendered by the
 * real helm binary, is submitted object by object with a server-side dry-run; broken renderings are refused with
 * the object and the server's reason; the default rendering is created for real; and its RBAC is checked by
 * impersonating the two ServiceAccounts: the verbs the extender and agent code use are allowed, others are not,
 * and the real extender and agent code paths (webhook certificate, leader election, NodeTopology publishing and
 * the own-node admission policy) work under those identities.
 *
 * <p>Needs etcd and kube-apiserver (no scheduler) and helm ({@code deploy/tools/helm.sh}); a missing helm skips
 * the tests, or fails them with {@code -Drailyard.e2e.required=true} or a list naming {@code helm}.
 */
class HelmChartIT {

    @RegisterExtension
    static final ControlPlaneExtension CLUSTER = new ControlPlaneExtension(ControlPlane.Options.apiOnly(List.of()))
            .alsoNeeding("helm (bash deploy/tools/helm.sh --print-path builds it once, about 4 min CPU; CI's .ci/run "
                    + "does)");

    private static final String NS = HelmChart.NAMESPACE;
    private static final String EXTENDER_SA = "railyard-extender";
    private static final String AGENT_SA = "railyard-agent";
    /**
     * The node-name extra the API server puts into pod-bound ServiceAccount tokens (KEP-4193, Kubernetes 1.30), as
     * an impersonation header key: {@code Impersonate-Extra-<key>} with the key percent-encoded, because '/' may not
     * appear in a header name (the API server decodes it; Kubernetes docs, "User impersonation").
     */
    private static final String NODE_NAME_EXTRA = "authentication.kubernetes.io%2Fnode-name";

    /** The default rendering once created for real (shared by the tests; created by the first that needs it). */
    private static List<HelmChart.Manifest> deployed;

    private HelmChart chart;
    private KubernetesClient client;

    @BeforeEach
    void helmAndNamespace() throws IOException {
        HelmChart.Located located = HelmChart.locate();
        if (located.chart().isEmpty()) {
            if (E2eBinaries.required(HelmChart.HELM)) {
                throw new IllegalStateException(located.reason() + " (railyard.e2e.required="
                        + System.getProperty("railyard.e2e.required") + ")");
            }
            E2eBinaries.skip("HelmChartIT", located.reason());
        }
        chart = located.chart().get();
        client = CLUSTER.controlPlane().client();
        // The chart does not create its namespace (helm install -n ... --create-namespace or by hand); a dry-run in
        // a missing namespace would be a 404.
        CLUSTER.controlPlane().ensureNamespace(NS);
        // The addons variant's ServiceMonitor, PodMonitor, Certificate and Issuer need their CRDs: minimal ones of
        // ours (test resources chart-addon-crds/, from the upstream schemas), created where missing.
        for (Path crd : ControlPlane.yamlFiles(resource("/chart-addon-crds"))) {
            CLUSTER.controlPlane().ensureCrds(crd);
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Server-side dry-run of every variant

    @ParameterizedTest(name = "variant {0}")
    @ValueSource(strings = {"default", "options", "addons"})
    void everyObjectOfEveryVariantIsAdmittedByTheApiServer(String variant) throws IOException {
        List<HelmChart.Manifest> manifests = chart.render(variant, variant);

        // What the templates render for each variant (render.sh's --set lines, read against the templates).
        assertThat(kindCounts(manifests)).as("objects of variant %s", variant).isEqualTo(HelmChart.expectedKinds(variant));
        List<String> rejected = HelmChart.dryRun(client, variant, manifests);
        assertThat(rejected).as("objects of variant %s the API server refused", variant).isEmpty();
    }


    // ---------------------------------------------------------------------------------------------------------
    // The examples users paste (deploy/examples), against the same API server

    @ParameterizedTest(name = "deploy/examples/{0}")
    @ValueSource(strings = {"macvlan-networks.yaml", "rdma-test-job.yaml", "rail-aligned-gang.yaml"})
    void everyExampleIsAdmittedByTheApiServer(String file) throws IOException {
        // The examples live in the seed's namespace (docs/seed-setup.md: prod); Volcano's Job CRD and our
        // MacvlanNetwork CRD are installed with the control plane.
        CLUSTER.controlPlane().ensureNamespace("prod");
        Path path = Path.of(System.getProperty("railyard.e2e.examples", "../deploy/examples"), file);
        List<HelmChart.Manifest> manifests = HelmChart.parse(Files.readString(path), file);
        // macvlan-networks.yaml: the seed's four MacvlanNetworks lan2..lan5; each job file: one Volcano Job.
        Map<String, Integer> expected = Map.of("macvlan-networks.yaml", 4, "rdma-test-job.yaml", 1,
                "rail-aligned-gang.yaml", 1);
        assertThat(manifests).as("documents in %s", file).hasSize(expected.get(file));
        assertThat(HelmChart.dryRun(client, file, manifests)).as("objects of %s the API server refused", file)
                .isEmpty();
    }

    // ---------------------------------------------------------------------------------------------------------
    // The check can fail: broken renderings

    @Test
    void aBadValueIsRefusedNamingTheObjectAndTheServersReason() throws IOException {
        // apps/v1 validation (pkg/apis/apps/validation ValidateDeploymentSpec -> ValidateNonnegativeField):
        // "spec.replicas: Invalid value: -1: must be greater than or equal to 0". helm itself checks nothing here
        // (the chart's values.schema.json leaves replicas to it), so only the API server can catch it.
        List<String> rejected = HelmChart.dryRun(client, "replicas=-1",
                chart.render("broken-replicas", "default", "--set", "extender.replicas=-1"));

        assertThat(rejected).hasSize(1);
        assertThat(rejected.getFirst())
                .startsWith("replicas=-1: Deployment railyard-system/railyard-extender (railyard/templates/extender-deployment.yaml): HTTP 422: ")
                .contains("spec.replicas").contains("must be greater than or equal to 0");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        // each value makes `serve` exit 2 at start (ServeCommand.resolve: "neutral score must be 0..100, got 200",
        // "Volcano score weight must be a finite number >= 0", VolcanoReplyDialect.parse refuses v2.0, "log level
        // must be one of ...", "max request size \"lots\" is not a byte count", and a second listener on a port
        // in use), so the chart refuses it at render time instead of installing a pod that crash-loops
        "extender.neutralScore=200          | at '/extender/neutralScore': maximum: got 200, want 100",
        "extender.volcano.scoreWeight=-3    | at '/extender/volcano/scoreWeight': minimum: got -3, want 0",
        "extender.volcano.replyDialect=v2.0 | at '/extender/volcano/replyDialect': 'v2.0' does not match pattern",
        "extender.logLevel=verbose          | at '/extender/logLevel': value must be one of 'error'",
        "extender.maxRequestSize=lots       | at '/extender/maxRequestSize': 'lots' does not match pattern",
        "webhook.port=8888                  | extender.port, extender.secure.port (when served) and webhook.port (when enabled) must differ",
    })
    void aValueServeWouldRefuseIsRefusedByHelmNamingIt(String set, String reason) throws IOException {
        Path out = Path.of(System.getProperty("railyard.e2e.chart-out", "target/chart")).toAbsolutePath()
                .resolve("refused-" + set + ".yaml");
        assertThatThrownBy(() -> chart.render("refused-" + set, "default", "--set", set))
                .isInstanceOf(IOException.class).hasMessageContaining(reason);
        // render.sh leaves nothing half-written behind
        assertThat(out).doesNotExist();
        assertThat(Path.of(out + ".tmp")).doesNotExist();
    }

    @Test
    void aMisspelledFieldIsRefusedUnderStrictFieldValidation() throws IOException {
        // A typo in a map the user passes through (podSecurityContext is copied with toYaml): PodSecurityContext has
        // runAsUser, not runAsUsr. fieldValidation=Strict makes the server refuse unknown fields instead of
        // dropping them with a warning.
        List<String> rejected = HelmChart.dryRun(client, "typo",
                chart.render("broken-typo", "default", "--set", "extender.podSecurityContext.runAsUsr=1000"));

        assertThat(rejected).hasSize(1);
        assertThat(rejected.getFirst())
                .startsWith("typo: Deployment railyard-system/railyard-extender (railyard/templates/extender-deployment.yaml): HTTP ")
                .contains("runAsUsr");
    }

    @Test
    void aWebhookMatchConditionThatIsNotCelIsRefused() throws IOException {
        // admissionregistration/v1 validation compiles every matchConditions expression (validateMatchConditions);
        // an unbalanced bracket does not compile.
        List<String> rejected = HelmChart.dryRun(client, "cel",
                chart.render("broken-cel", "default", "--set", "webhook.matchConditions[0].name=broken",
                        "--set-string", "webhook.matchConditions[0].expression=object.metadata.annotations["));

        assertThat(rejected).hasSize(1);
        assertThat(rejected.getFirst())
                .startsWith("cel: MutatingWebhookConfiguration railyard-hints (railyard/templates/webhook.yaml): HTTP 422: ")
                .contains("webhooks[0].matchConditions[0].expression").contains("compilation failed");
    }

    // ---------------------------------------------------------------------------------------------------------
    // The default rendering, created for real

    @Test
    void theDefaultRenderingIsCreatedAndEveryObjectIsAdmitted() throws IOException {
        List<HelmChart.Manifest> manifests = deployDefault();

        for (HelmChart.Manifest m : manifests) {
            assertThat(client.resource(m.object()).get()).as("%s in the cluster", m.ref()).isNotNull();
        }
        // CRD: established (the cluster serves NodeTopology). The apiextensions controller writes the conditions
        // asynchronously after a create or replace, so a read right after deployDefault() may see none yet.
        org.awaitility.Awaitility.await("nodetopologies.railyard.dev Established=True")
                .atMost(java.time.Duration.ofSeconds(30)).pollInterval(java.time.Duration.ofMillis(200))
                .untilAsserted(() -> {
                    CustomResourceDefinition crd = client.apiextensions().v1().customResourceDefinitions()
                            .withName("nodetopologies.railyard.dev").get();
                    assertThat(crd.getStatus() == null ? null : crd.getStatus().getConditions())
                            .isNotNull()
                            .anySatisfy(c -> assertThat(c.getType() + "=" + c.getStatus()).isEqualTo("Established=True"));
                });

        // Deployment: values.yaml extender.replicas 2, leader election with label routing, self-signed webhook.
        Deployment extender = client.apps().deployments().inNamespace(NS).withName("railyard-extender").get();
        assertThat(extender.getSpec().getReplicas()).isEqualTo(2);
        assertThat(extender.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable().getIntVal()).isZero();
        assertThat(extender.getSpec().getTemplate().getSpec().getServiceAccountName()).isEqualTo(EXTENDER_SA);
        assertThat(extender.getSpec().getTemplate().getSpec().getContainers().getFirst().getArgs())
                .contains("serve", "--leader-elect", "--leader-label=railyard.dev/leader", "--webhook-self-signed",
                        "--webhook-secret=railyard-webhook-tls", "--webhook-configuration=railyard-hints",
                        "--webhook-service=railyard", "--address=$(POD_IP)")
                // no certificate for the secure port in the default rendering: no kube-scheduler verbs, no /explain
                .noneMatch(a -> a.startsWith("--secure-port"));
        assertThat(extender.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv())
                .anySatisfy(env -> assertThat(env.getName() + "=" + env.getValueFrom().getFieldRef().getFieldPath())
                        .isEqualTo("POD_IP=status.podIP"));

        // DaemonSet: GPU nodes only, sysfs read-only, the kubelet's pod-resources directory.
        DaemonSet agent = client.apps().daemonSets().inNamespace(NS).withName("railyard-agent").get();
        var agentPod = agent.getSpec().getTemplate().getSpec();
        assertThat(agentPod.getNodeSelector()).containsEntry("nvidia.com/gpu.present", "true");
        assertThat(agentPod.getContainers().getFirst().getVolumeMounts())
                .anySatisfy(v -> assertThat(v.getMountPath() + " ro=" + v.getReadOnly()).isEqualTo("/host/sys ro=true"));
        assertThat(agentPod.getVolumes()).anySatisfy(v ->
                assertThat(v.getHostPath() == null ? null : v.getHostPath().getPath())
                        .isEqualTo("/var/lib/kubelet/pod-resources"));

        // Service: the leader only, http 8888 and webhook 443; a ClusterIP was allocated.
        Service service = client.services().inNamespace(NS).withName("railyard").get();
        assertThat(service.getSpec().getSelector()).containsEntry("railyard.dev/leader", "true")
                .containsEntry("app.kubernetes.io/component", "extender");
        assertThat(service.getSpec().getPorts()).extracting(ServicePort::getName, ServicePort::getPort)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("http", 8888),
                        org.assertj.core.groups.Tuple.tuple("webhook", 443));
        assertThat(service.getSpec().getClusterIP()).isNotBlank().isNotEqualTo("None");

        // PodDisruptionBudget: at most one extender replica evicted.
        PodDisruptionBudget pdb = client.policy().v1().podDisruptionBudget().inNamespace(NS)
                .withName("railyard-extender").get();
        assertThat(pdb.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);

        // Webhook: pods/binding CREATE, failurePolicy Ignore, 2 s, through the Service to /admission/pods-binding.
        MutatingWebhookConfiguration webhook = client.admissionRegistration().v1().mutatingWebhookConfigurations()
                .withName("railyard-hints").get();
        MutatingWebhook hook = webhook.getWebhooks().getFirst();
        assertThat(hook.getFailurePolicy()).isEqualTo("Ignore");
        assertThat(hook.getTimeoutSeconds()).isEqualTo(2);
        assertThat(hook.getClientConfig().getService().getPath()).isEqualTo("/admission/pods-binding");
        assertThat(hook.getRules().getFirst().getResources()).containsExactly("pods/binding");
        assertThat(hook.getMatchConditions()).extracting(c -> c.getName()).containsExactly("volcano-gang-pod");

        // RBAC: the rules the chart README lists (extender 11 cluster-wide in self-signed mode without a secure
        // port, 3 namespaced; agent 2).
        ClusterRole extenderRole = client.rbac().clusterRoles().withName("railyard-extender").get();
        assertThat(extenderRole.getRules()).hasSize(11);
        Role extenderNsRole = client.rbac().roles().inNamespace(NS).withName("railyard-extender").get();
        assertThat(extenderNsRole.getRules()).hasSize(3);
        assertThat(client.rbac().clusterRoles().withName("railyard-agent").get().getRules()).hasSize(2);

        // The Secret the extender fills (self-signed mode) exists; the chart writes no data into it.
        Secret tls = client.secrets().inNamespace(NS).withName("railyard-webhook-tls").get();
        assertThat(tls.getType()).isEqualTo("Opaque");
    }

    @Test
    void theDefaultRenderingsNetworkPolicyAdmitsOnlyTheSchedulerAndTheScraperToThePlainPort() throws IOException {
        deployDefault();
        // NetworkPolicy: the plain port from vc-scheduler (the Volcano chart's labels) and the scraper only; the
        // webhook port open to the API server.
        var policy = client.network().v1().networkPolicies().inNamespace(NS).withName("railyard-extender").get();
        assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress");
        var plain = policy.getSpec().getIngress().getFirst();
        assertThat(plain.getPorts()).extracting(p -> p.getPort().getStrVal()).containsExactly("http");
        assertThat(plain.getFrom()).hasSize(2);
        assertThat(plain.getFrom().getFirst().getPodSelector().getMatchLabels()).containsEntry("app", "volcano-scheduler");
        assertThat(plain.getFrom().getFirst().getNamespaceSelector().getMatchLabels())
                .containsEntry("kubernetes.io/metadata.name", "volcano-system");
        assertThat(policy.getSpec().getIngress()).hasSize(2);
        assertThat(policy.getSpec().getIngress().get(1).getFrom()).isEmpty();

    }

    @Test
    void onAClusterThatRunsPodsTheInstalledExtenderBecomesAvailableAndOneReplicaLeads() {
        if (!CLUSTER.controlPlane().external()) {
            E2eBinaries.skip("HelmChartIT", "needs a cluster whose kubelets run the chart's pods, with the chart "
                    + "installed (test-e2e/kind/kind-e2e.sh); the local control plane has no kubelet for them");
        }
        // helm install --wait has returned; both replicas are Ready (informers synced, label routing).
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1)).until(() -> {
            Deployment d = client.apps().deployments().inNamespace(NS).withName("railyard-extender").get();
            return d.getStatus() != null && Integer.valueOf(2).equals(d.getStatus().getAvailableReplicas());
        });
        // Exactly one replica carries the leader label, and it is the Lease's holder.
        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofSeconds(1)).until(() -> client.pods()
                .inNamespace(NS).withLabel("app.kubernetes.io/component", "extender")
                .withLabel("railyard.dev/leader", "true").list().getItems().size() == 1);
        Pod leader = client.pods().inNamespace(NS).withLabel("app.kubernetes.io/component", "extender")
                .withLabel("railyard.dev/leader", "true").list().getItems().getFirst();
        assertThat(client.leases().inNamespace(NS).withName("railyard").get().getSpec().getHolderIdentity())
                .isEqualTo(leader.getMetadata().getName());
        // The replicas wrote the self-signed certificate and its CA into the webhook configuration.
        Secret tls = client.secrets().inNamespace(NS).withName("railyard-webhook-tls").get();
        assertThat(tls.getData()).containsKeys("tls.crt", "tls.key", "ca.crt");
        assertThat(client.admissionRegistration().v1().mutatingWebhookConfigurations().withName("railyard-hints")
                .get().getWebhooks().getFirst().getClientConfig().getCaBundle()).isEqualTo(tls.getData().get("ca.crt"));
    }

    // ---------------------------------------------------------------------------------------------------------
    // RBAC: least privilege, by impersonating the chart's ServiceAccounts

    @Test
    void eachServiceAccountMayMakeTheCallsItsCodeMakesAndNoOthers() throws IOException {
        deployDefault();
        List<String> wrong = new ArrayList<>();
        Map<String, List<ChartAccesses.Access>> bySa = ChartAccesses.accesses().stream()
                .collect(Collectors.groupingBy(ChartAccesses.Access::serviceAccount));
        for (var entry : bySa.entrySet()) {
            try (KubernetesClient as = impersonating(entry.getKey(), Map.of())) {
                wrong.addAll(ChartAccesses.wrong(as, entry.getValue()));
            }
        }
        assertThat(wrong).as("RBAC answers that differ from what the code needs").isEmpty();

        // Real requests, not only reviews: the extender lists pods everywhere but cannot list Secrets.
        try (KubernetesClient extender = impersonating(EXTENDER_SA, Map.of())) {
            assertThat(extender.pods().inAnyNamespace().list().getItems()).isNotNull();
            assertThatThrownBy(() -> extender.secrets().inAnyNamespace().list())
                    .isInstanceOfSatisfying(KubernetesClientException.class, ex -> assertThat(ex.getCode()).isEqualTo(403));
        }
    }

    @Test
    void theExtendersCertificateAndLeaderCodeWorksUnderItsServiceAccount() throws IOException {
        deployDefault();
        try (KubernetesClient extender = impersonating(EXTENDER_SA, Map.of())) {
            // Self-signed mode exactly as `serve --webhook-self-signed` runs it with the chart's names.
            ServingCertificate cert = WebhookCertificateSecret.of(extender, NS, "railyard-webhook-tls",
                    "railyard-hints", "railyard", Clock.systemUTC()).ensure();

            assertThat(cert.certificate().getSubjectX500Principal().getName()).isEqualTo("CN=railyard.railyard-system.svc");
            Secret tls = client.secrets().inNamespace(NS).withName("railyard-webhook-tls").get();
            assertThat(tls.getData()).containsKeys("tls.crt", "tls.key", "ca.crt");
            MutatingWebhookConfiguration webhook = client.admissionRegistration().v1()
                    .mutatingWebhookConfigurations().withName("railyard-hints").get();
            assertThat(webhook.getWebhooks().getFirst().getClientConfig().getCaBundle())
                    .isEqualTo(tls.getData().get("ca.crt"));

            if (CLUSTER.controlPlane().external()) {
                // The installed extender holds the Lease there; a second candidate would only wait.
                return;
            }
            // Leader election on the chart's Lease name (values: leaseName empty = the full name, railyard), with
            // label routing: the leader labels its own pod, which the Service selects. A pod object stands in for
            // the replica (nothing schedules or runs it here).
            Pod replica = client.pods().inNamespace(NS).resource(new PodBuilder().withNewMetadata()
                    .withName("railyard-extender-0").endMetadata().withNewSpec().addNewContainer().withName("extender")
                    .withImage("railyard:test").endContainer().endSpec().build()).create();
            try (LeaderElection election = new LeaderElection(extender, NS, "railyard", replica.getMetadata().getName(),
                    "railyard.dev/leader", new SimpleMeterRegistry())) {
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(election::leading);
                await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).until(() -> "true".equals(
                        client.pods().inNamespace(NS).withName("railyard-extender-0").get().getMetadata().getLabels()
                                .get("railyard.dev/leader")));
                // Renewals (every 2 s, a patch) keep it leading past the 10 s renew deadline.
                await().pollDelay(Duration.ofSeconds(12)).atMost(Duration.ofSeconds(13)).until(election::leading);
                Lease lease = client.leases().inNamespace(NS).withName("railyard").get();
                assertThat(lease.getSpec().getHolderIdentity()).isEqualTo("railyard-extender-0");
            } finally {
                client.pods().inNamespace(NS).withName("railyard-extender-0").withGracePeriod(0).delete();
            }
        }
    }

    @Test
    void anAgentMayPublishOnlyItsOwnNodesTopology() throws IOException {
        deployDefault();
        NodeTopology own = FixtureMachines.nodeTopology("gpu-own", FixtureMachines.PCIE_8GPU);
        NodeTopology other = FixtureMachines.nodeTopology("gpu-other", FixtureMachines.PCIE_8GPU);
        try (KubernetesClient agentOnOwn = impersonating(AGENT_SA, Map.of(NODE_NAME_EXTRA, List.of("gpu-own")));
             KubernetesClient agentWithoutNode = impersonating(AGENT_SA, Map.of())) {
            NodeTopologyPublisher publisher = new NodeTopologyPublisher(agentOnOwn);
            try {
                // The agent's own write path (server-side apply of the object, then of its status).
                publisher.publish(new DesiredNodeTopology("gpu-own", own.getSpec(), own.getStatus()));
                GenericKubernetesResource written = client.genericKubernetesResources("railyard.dev/v1alpha1",
                        "NodeTopology").withName("gpu-own").get();
                assertThat(written).isNotNull();
                assertThat((List<?>) written.get("spec", "gpus")).hasSize(8);   // case-06: 8 GPUs
                assertThat((Object) written.get("status")).isNotNull();

                // Another node's object: the ValidatingAdmissionPolicy refuses it (it takes effect a moment after
                // its creation, hence the wait), with the policy's message.
                KubernetesClientException refused = await().atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(500)).until(() -> publishError(publisher, other), e -> e != null);
                assertThat(refused.getCode()).isEqualTo(403);
                assertThat(HelmChart.serverMessage(refused)).contains(
                        "a Railyard agent may only write the NodeTopology of its own node: its token is bound to node "
                                + "\"gpu-own\", the object is \"gpu-other\"");

                // A token bound to no node may write nothing.
                KubernetesClientException noNode = publishError(new NodeTopologyPublisher(agentWithoutNode), own);
                assertThat(noNode).isNotNull();
                assertThat(noNode.getCode()).isEqualTo(403);
                assertThat(HelmChart.serverMessage(noNode)).contains("its token is bound to node \"\"");
            } finally {
                for (String name : List.of("gpu-own", "gpu-other")) {
                    client.genericKubernetesResources("railyard.dev/v1alpha1", "NodeTopology").withName(name).delete();
                }
            }
        }
    }

    /**
     * The address-hold policy ({@code extender.protectAddressHolds}): a tenant allowed by RBAC to create, update and
     * bind its pods cannot put the {@code railyard.dev/address-hold} annotation on one (at creation, by a patch, by
     * a status update or on a Binding), nor change or remove the one the extender wrote, while other changes of the
     * same pod pass; the extender's ServiceAccount writes and removes it with its real code ({@code PodHoldWriter}).
     */
    @Test
    void onlyTheExtenderMayWriteAnAddressHold() throws Exception {
        deployDefault();
        String ns = "tenant-a";
        String tenantUser = "tenant-alice";
        CLUSTER.controlPlane().ensureNamespace(ns);
        client.rbac().roles().inNamespace(ns).resource(new io.fabric8.kubernetes.api.model.rbac.RoleBuilder()
                .withNewMetadata().withName("pod-owner").endMetadata()
                .addNewRule().withApiGroups("").withResources("pods").withVerbs("create", "get", "update", "patch")
                .endRule()
                .addNewRule().withApiGroups("").withResources("pods/status").withVerbs("update").endRule()
                .addNewRule().withApiGroups("").withResources("bindings").withVerbs("create").endRule()
                .build()).createOr(r -> r.update());
        client.rbac().roleBindings().inNamespace(ns).resource(new io.fabric8.kubernetes.api.model.rbac
                .RoleBindingBuilder().withNewMetadata().withName("pod-owner").endMetadata()
                .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("Role").withName("pod-owner")
                .endRoleRef().addNewSubject().withKind("User").withApiGroup("rbac.authorization.k8s.io")
                .withName(tenantUser).endSubject().build()).createOr(r -> r.update());
        String key = "railyard.dev/address-hold";
        String forged = "{\"uid\":\"x\",\"node\":\"gpu-00006\",\"by\":\"volcano allocateFunc\","
                + "\"since\":\"2026-12-04T14:00:00Z\",\"until\":\"2099-01-01T00:00:00Z\"}";
        Config config = Config.fromKubeconfig(CLUSTER.controlPlane().kubeconfig().toFile());
        config.setRequestTimeout(30_000);
        config.setImpersonateUsername(tenantUser);
        config.setImpersonateGroups("system:authenticated");
        java.util.concurrent.atomic.AtomicInteger attempt = new java.util.concurrent.atomic.AtomicInteger();
        try (KubernetesClient tenant = new KubernetesClientBuilder().withConfig(config).build();
             KubernetesClient extender = impersonating(EXTENDER_SA, Map.of())) {
            // Born held: refused (the policy takes effect a moment after its creation, hence the wait; a pod created
            // before then gets another name next time).
            KubernetesClientException born = await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(500)).until(() -> errorOf(() -> tenant.pods().inNamespace(ns)
                            .resource(pod("born-" + attempt.getAndIncrement(), Map.of(key, forged))).create()),
                            e -> e != null);
            assertThat(born.getCode()).isEqualTo(403);
            assertThat(HelmChart.serverMessage(born)).contains("only Railyard's extender (ServiceAccount "
                    + NS + "/" + EXTENDER_SA + ") may add, change or remove the railyard.dev/address-hold annotation; "
                    + tenantUser + " may not");

            // as Volcano's pods, it has annotations (its PodGroup's name)
            Pod hog = tenant.pods().inNamespace(ns).resource(pod("hog", Map.of("scheduling.k8s.io/group-name",
                    "hog"))).create();
            tenant.pods().inNamespace(ns).resource(pod("plain", Map.of())).create();
            String uid = hog.getMetadata().getUid();
            String hogAnnotation = "{\"metadata\":{\"annotations\":{\"railyard.dev/address-hold\":"
                    + "\"" + forged.replace("\"", "\\\"") + "\"}}}";
            io.fabric8.kubernetes.client.dsl.base.PatchContext merge = io.fabric8.kubernetes.client.dsl.base
                    .PatchContext.of(io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE);
            refusedByTheHoldPolicy("a tenant adds a hold",
                    () -> tenant.pods().inNamespace(ns).withName("hog").patch(merge, hogAnnotation));
            assertThat(errorOf(() -> tenant.pods().inNamespace(ns).withName("hog")
                    .edit(p -> new PodBuilder(p).editMetadata().addToLabels("team", "a").endMetadata().build())))
                    .as("a tenant labels its pod").isNull();

            // The extender's own write path: a JSON patch testing the UID, then adding the annotation.
            String written = "{\"uid\":\"" + uid + "\",\"node\":\"gpu-00006\",\"by\":\"volcano allocateFunc\","
                    + "\"since\":\"2026-12-04T14:00:00Z\",\"until\":\"2026-12-04T14:05:00Z\"}";
            PodHoldWriter writer = new PodHoldWriter(extender, new SimpleMeterRegistry());
            writer.write(ns, "hog", uid, written, Duration.ofSeconds(10));
            assertThat(annotation(ns, "hog", key)).isEqualTo(written);

            refusedByTheHoldPolicy("a tenant changes the hold to 2099",
                    () -> tenant.pods().inNamespace(ns).withName("hog").patch(merge, hogAnnotation));
            refusedByTheHoldPolicy("a tenant removes the hold", () -> tenant.pods().inNamespace(ns).withName("hog")
                    .patch(io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                            io.fabric8.kubernetes.client.dsl.base.PatchType.JSON),
                            "[{\"op\":\"remove\",\"path\":\"/metadata/annotations/railyard.dev~1address-hold\"}]"));
            refusedByTheHoldPolicy("a tenant changes the hold through pods/status", () -> {
                Pod p = tenant.pods().inNamespace(ns).withName("hog").get();
                p.getMetadata().getAnnotations().put(key, forged);
                tenant.pods().inNamespace(ns).resource(p).updateStatus();
            });
            assertThat(errorOf(() -> tenant.pods().inNamespace(ns).withName("hog")
                    .edit(p -> new PodBuilder(p).editMetadata().addToLabels("tier", "gold").endMetadata().build())))
                    .as("a tenant labels its held pod, the hold unchanged").isNull();
            refusedByTheHoldPolicy("a tenant binds its pod with a hold on the Binding", () -> tenant.bindings()
                    .inNamespace(ns).resource(new io.fabric8.kubernetes.api.model.BindingBuilder().withNewMetadata()
                            .withName("plain").addToAnnotations(key, forged).endMetadata().withNewTarget()
                            .withKind("Node").withName("gpu-00006").endTarget().build()).create());
            assertThat(annotation(ns, "hog", key)).isEqualTo(written);
            assertThat(annotation(ns, "plain", key)).isNull();

            // The extender removes it (deallocateFunc), testing the value first.
            writer.clear(ns, "hog", written);
            await().atMost(Duration.ofSeconds(10)).until(() -> annotation(ns, "hog", key) == null);
        } finally {
            client.pods().inNamespace(ns).delete();
        }
    }

    private static void refusedByTheHoldPolicy(String what, Runnable call) {
        KubernetesClientException e = errorOf(call);
        assertThat(e).as(what).isNotNull();
        assertThat(e.getCode()).as(what).isEqualTo(403);
        assertThat(HelmChart.serverMessage(e)).as(what).contains("may add, change or remove the railyard.dev/address-hold "
                + "annotation; tenant-alice may not");
    }

    private static Pod pod(String name, Map<String, String> annotations) {
        return new PodBuilder().withNewMetadata().withName(name).withAnnotations(annotations).endMetadata()
                .withNewSpec().withSchedulerName("volcano").addNewContainer().withName("main")
                .withImage("busybox").endContainer().endSpec().build();
    }

    private String annotation(String ns, String pod, String key) {
        Map<String, String> a = client.pods().inNamespace(ns).withName(pod).get().getMetadata().getAnnotations();
        return a == null ? null : a.get(key);
    }

    private static KubernetesClientException errorOf(Runnable call) {
        try {
            call.run();
            return null;
        } catch (KubernetesClientException e) {
            return e;
        }
    }

    private static KubernetesClientException publishError(NodeTopologyPublisher publisher, NodeTopology topology) {
        try {
            publisher.publish(new DesiredNodeTopology(topology.getMetadata().getName(), topology.getSpec(),
                    topology.getStatus()));
            return null;
        } catch (KubernetesClientException e) {
            return e;
        }
    }

    /**
     * With a secure-port certificate (the options rendering: {@code extender.secure.existingSecret}) the extender
     * may create Bindings (the typed {@code bindings} collection, not {@code pods/binding}), TokenReviews and
     * SubjectAccessReviews and nothing more; and the real {@code /explain} authorizer ({@code ApiServerAccess}),
     * running as that ServiceAccount, authenticates a real ServiceAccount token and asks RBAC, which the chart's
     * {@code <fullname>-explain} ClusterRole answers. The ClusterRoles are created under other names beside the
     * default rendering.
     */
    @Test
    void withTheSecurePortTheExtenderMayBindAndReviewTokensAndTheExplainRoleAuthorizes() throws Exception {
        deployDefault();
        CLUSTER.controlPlane().ensureNamespace("prod");
        String sa = "railyard-extender-secure";
        String reader = "railyard-explain-reader";
        try {
            createSecurePortRoles(sa, reader);
            List<ChartAccesses.Access> accesses = List.of(
                    ChartAccesses.allow(sa, "create", "", "bindings", "prod", "", "BindingWriter: client.bindings() create"),
                    ChartAccesses.allow(sa, "create", "authentication.k8s.io", "tokenreviews", "", "",
                            "ApiServerAccess.authenticate"),
                    ChartAccesses.allow(sa, "create", "authorization.k8s.io", "subjectaccessreviews", "", "",
                            "ApiServerAccess.authorize"),
                    ChartAccesses.deny(sa, "create", "", "pods/binding", "prod", "x", "binds only through bindings"),
                    ChartAccesses.deny(sa, "create", "authorization.k8s.io", "localsubjectaccessreviews", "prod", "",
                            "not needed"),
                    ChartAccesses.deny(sa, "create", "", "serviceaccounts/token", NS, reader, "mints no tokens"));
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                try (KubernetesClient as = impersonating(sa, Map.of())) {
                    assertThat(ChartAccesses.wrong(as, accesses)).as("RBAC of the secure-port rendering").isEmpty();
                }
            });

            explainAuthorizerAnswersAsRbac(sa, reader);
        } finally {
            client.rbac().roleBindings().inNamespace("prod").withName(reader).delete();
            client.rbac().clusterRoleBindings().withName(sa).delete();
            client.rbac().clusterRoles().withName(sa).delete();
            client.rbac().clusterRoles().withName("railyard-explain-secure").delete();
            for (String name : List.of(sa, reader)) {
                client.serviceAccounts().inNamespace(NS).withName(name).delete();
            }
        }
    }

    /**
     * The options rendering's extender and explain ClusterRoles under other names, the extender's bound to
     * ServiceAccount {@code sa}, the explain role bound in namespace prod to ServiceAccount {@code reader}.
     */
    private void createSecurePortRoles(String sa, String reader) throws IOException {
        ClusterRole extenderRole = null;
        ClusterRole explainRole = null;
        for (HelmChart.Manifest m : chart.render("options-secure", "options")) {
            if (m.kind().equals("ClusterRole") && m.object().getMetadata().getName().equals("railyard-extender")) {
                extenderRole = client.getKubernetesSerialization().convertValue(m.object(), ClusterRole.class);
            } else if (m.kind().equals("ClusterRole") && m.object().getMetadata().getName().equals("railyard-explain")) {
                explainRole = client.getKubernetesSerialization().convertValue(m.object(), ClusterRole.class);
            }
        }
        assertThat(extenderRole).isNotNull();
        assertThat(explainRole).isNotNull();
        // self-signed webhook (options: certManager false): 11 + bindings, tokenreviews, subjectaccessreviews
        assertThat(extenderRole.getRules()).hasSize(14);
        extenderRole.getMetadata().setName(sa);
        explainRole.getMetadata().setName("railyard-explain-secure");
        client.resource(extenderRole).create();
        client.resource(explainRole).create();
        for (String name : List.of(sa, reader)) {
            client.serviceAccounts().inNamespace(NS).resource(new io.fabric8.kubernetes.api.model
                    .ServiceAccountBuilder().withNewMetadata().withName(name).endMetadata().build()).create();
        }
        client.rbac().clusterRoleBindings().resource(new io.fabric8.kubernetes.api.model.rbac
                .ClusterRoleBindingBuilder().withNewMetadata().withName(sa).endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", sa)
                .addNewSubject().withKind("ServiceAccount").withName(sa).withNamespace(NS).endSubject().build())
                .create();
        // the reader may explain what is in namespace prod only (a RoleBinding of the ClusterRole)
        client.rbac().roleBindings().inNamespace("prod").resource(new io.fabric8.kubernetes.api.model.rbac
                .RoleBindingBuilder().withNewMetadata().withName(reader).endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "railyard-explain-secure")
                .addNewSubject().withKind("ServiceAccount").withName(reader).withNamespace(NS).endSubject().build())
                .create();
    }

    /** The real /explain authorizer under the extender's identity {@code sa}, with a real token of {@code reader}. */
    private void explainAuthorizerAnswersAsRbac(String sa, String reader) throws Exception {
        String token = client.serviceAccounts().inNamespace(NS).withName(reader).tokenRequest(
                new io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder().withNewSpec()
                        .withExpirationSeconds(600L).endSpec().build()).getStatus().getToken();
        try (KubernetesClient as = impersonating(sa, Map.of())) {
            var access = new dev.railyard.scheduler.access.ApiServerAccess(as);
            var user = access.authenticate(token).orElseThrow();
            assertThat(user.name()).isEqualTo("system:serviceaccount:" + NS + ":" + reader);
            assertThat(access.authenticate("not-a-token")).isEmpty();
            var inProd = new dev.railyard.scheduler.access.KubernetesAccess.ResourceAttributes("get",
                    "railyard.dev", "explanations", "prod", "rdma-test");
            var clusterWide = new dev.railyard.scheduler.access.KubernetesAccess.ResourceAttributes("get",
                    "railyard.dev", "explanations", "", "");
            assertThat(access.authorize(user, inProd).allowed()).isTrue();
            assertThat(access.authorize(user, clusterWide).allowed()).isFalse();
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    /**
     * Creates the default rendering once per class, in helm's install order: every object the cluster does not
     * have yet (helm install semantics for {@code crds/}: an existing CRD, here the one the control plane installed
     * from the same file, is left alone). On an external cluster where {@code test-e2e/kind/kind-e2e.sh} has run
     * {@code helm install}, everything exists already and nothing is created.
     */
    private List<HelmChart.Manifest> deployDefault() throws IOException {
        if (deployed != null) {
            return deployed;
        }
        List<HelmChart.Manifest> manifests = chart.render("default-deployed", "default");
        for (HelmChart.Manifest m : manifests) {
            if (client.resource(m.object()).get() != null) {
                continue;
            }
            try {
                client.resource(m.object()).fieldValidation(FieldValidateable.Validation.STRICT).create();
            } catch (KubernetesClientException e) {
                throw new AssertionError("default: " + m.ref() + " (" + m.source() + ") refused on create: HTTP "
                        + e.getCode() + ": " + HelmChart.serverMessage(e), e);
            }
        }
        deployed = manifests;
        return manifests;
    }

    /**
     * A client acting as ServiceAccount {@code name} of the release namespace, with the groups the API server
     * gives every ServiceAccount token, and {@code extra} user info (e.g. the bound node name).
     */
    private KubernetesClient impersonating(String name, Map<String, List<String>> extra) {
        Config config = Config.fromKubeconfig(CLUSTER.controlPlane().kubeconfig().toFile());
        config.setRequestTimeout(30_000);
        config.setImpersonateUsername("system:serviceaccount:" + NS + ":" + name);
        config.setImpersonateGroups("system:serviceaccounts", "system:serviceaccounts:" + NS, "system:authenticated");
        config.setImpersonateExtras(extra);
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    private static Map<String, Integer> kindCounts(List<HelmChart.Manifest> manifests) {
        return new TreeMap<>(manifests.stream().collect(Collectors.groupingBy(HelmChart.Manifest::kind,
                Collectors.summingInt(m -> 1))));
    }

    private static Path resource(String dir) {
        try {
            return Path.of(HelmChartIT.class.getResource(dir).toURI());
        } catch (URISyntaxException | NullPointerException e) {
            throw new IllegalStateException("test resources directory " + dir + " not on the classpath", e);
        }
    }
}
