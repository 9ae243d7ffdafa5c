package dev.railyard.e2e;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.FieldValidateable;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The Railyard Helm chart ({@code deploy/helm/railyard}) rendered by the real {@code helm} binary through
 * {@code deploy/tools/render.sh} (release {@code railyard}, namespace {@code railyard-system}; variants
 * {@code default}, {@code options}, {@code addons} as that script defines them), and the API server's verdict on
 * each rendered object.
 *
 * <p>helm is located, in order: system property {@code railyard.e2e.helm}, environment variable
 * {@code RAILYARD_HELM}, or {@code deploy/tools/helm.sh --locate} (the binary that script builds once from its Go
 * module and caches in {@code ~/.cache/railyard-helm}; locating never builds). The deploy directory is system
 * property {@code railyard.e2e.deploy} (default {@code ../deploy}); renderings are written to
 * {@code railyard.e2e.chart-out} (default {@code target/chart}) for review.
 */
final class HelmChart {

    /** Name of the helm binary in {@code railyard.e2e.required} lists. */
    static final String HELM = "helm";
    /** Release namespace render.sh uses. */
    static final String NAMESPACE = "railyard-system";

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    /**
     * One object of a rendering.
     *
     * @param source the template helm names in its {@code # Source:} comment (e.g. {@code railyard/templates/webhook.yaml})
     * @param object the object exactly as rendered
     */
    record Manifest(String source, GenericKubernetesResource object) {
        String kind() {
            return object.getKind();
        }

        String name() {
            return object.getMetadata().getName();
        }

        /** {@code Kind namespace/name}, or {@code Kind name} for a cluster-scoped object. */
        String ref() {
            String ns = object.getMetadata().getNamespace();
            return kind() + " " + (ns == null ? "" : ns + "/") + name();
        }
    }

    private final Path helm;

    private HelmChart(Path helm) {
        this.helm = helm;
    }

    /** The helm binary located as described on the type, or why there is none. */
    static Located locate() {
        String explicit = System.getProperty("railyard.e2e.helm", "");
        if (explicit.isBlank()) {
            explicit = System.getenv().getOrDefault("RAILYARD_HELM", "");
        }
        if (!explicit.isBlank()) {
            Path p = Path.of(explicit);
            return Files.isExecutable(p) ? new Located(Optional.of(new HelmChart(p)), "")
                    : new Located(Optional.empty(), "helm binary " + p + " (railyard.e2e.helm) is not executable");
        }
        Path script = deployDir().resolve("tools/helm.sh");
        try {
            Process p = new ProcessBuilder("bash", script.toString(), "--locate").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Located(Optional.empty(), script + " --locate did not answer within 30 s");
            }
            if (p.exitValue() == 0 && Files.isExecutable(Path.of(out))) {
                return new Located(Optional.of(new HelmChart(Path.of(out))), "");
            }
            return new Located(Optional.empty(), "helm missing: " + out.lines().reduce((a, b) -> b).orElse("")
                    + " (CI: .ci/run builds it; here: bash deploy/tools/helm.sh --print-path, about 4 min CPU once)");
        } catch (IOException e) {
            return new Located(Optional.empty(), "cannot run " + script + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Located(Optional.empty(), "interrupted while locating helm");
        }
    }

    /**
     * Result of {@link #locate()}.
     *
     * @param chart the chart with a usable helm, or empty
     * @param reason why it is empty
     */
    record Located(Optional<HelmChart> chart, String reason) {
    }

    static Path deployDir() {
        return Path.of(System.getProperty("railyard.e2e.deploy", "../deploy")).toAbsolutePath().normalize();
    }

    /** The helm binary in use. */
    Path helm() {
        return helm;
    }

    /**
     * Renders one variant, plus {@code extraArgs} for {@code helm template} (e.g. {@code --set x=y}), and parses
     * the output into objects in helm's install order.
     *
     * @param label names the output file ({@code <chart-out>/<label>.yaml}) and error messages
     * @throws IOException when helm fails (its message is in the exception) or the output is not YAML
     */
    List<Manifest> render(String label, String variant, String... extraArgs) throws IOException {
        Path outDir = Path.of(System.getProperty("railyard.e2e.chart-out", "target/chart")).toAbsolutePath();
        Files.createDirectories(outDir);
        Path out = outDir.resolve(label + ".yaml");
        Path err = outDir.resolve(label + ".stderr");
        List<String> command = new ArrayList<>(List.of("bash", deployDir().resolve("tools/render.sh").toString(),
                "--variant", variant, "--out", out.toString()));
        command.addAll(List.of(extraArgs));
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(err.toFile());
        pb.environment().put("HELM", helm.toString());
        try {
            Process p = pb.start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("render.sh --variant " + variant + " did not finish within 60 s");
            }
            if (p.exitValue() != 0) {
                throw new IOException("render.sh --variant " + variant + " (" + label + ") failed with exit "
                        + p.exitValue() + ": " + Files.readString(err).strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while rendering " + label, e);
        }
        return parse(Files.readString(out), label);
    }

    /** Splits helm's output at {@code ---} lines; each non-empty document becomes a {@link Manifest}. */
    static List<Manifest> parse(String rendered, String label) throws IOException {
        List<Manifest> manifests = new ArrayList<>();
        for (String doc : rendered.split("(?m)^---\\s*$")) {
            String source = doc.lines().filter(l -> l.startsWith("# Source: ")).findFirst()
                    .map(l -> l.substring("# Source: ".length()).strip()).orElse("(no # Source line)");
            if (doc.lines().allMatch(l -> l.isBlank() || l.stripLeading().startsWith("#"))) {
                continue;   // comments only, or empty
            }
            Object tree;
            try {
                tree = YAML.readValue(doc, Object.class);
            } catch (IOException e) {
                throw new IOException(label + ": " + source + " is not YAML: " + e.getMessage(), e);
            }
            if (!(tree instanceof Map<?, ?> map) || map.get("kind") == null || map.get("apiVersion") == null) {
                throw new IOException(label + ": " + source + " renders a document without apiVersion and kind");
            }
            manifests.add(new Manifest(source, SERIALIZATION.convertValue(map, GenericKubernetesResource.class)));
        }
        return manifests;
    }

    /**
     * Submits every object with a server-side dry-run ({@code dryRun=All}, {@code fieldValidation=Strict}), so the
     * API server runs defaulting, schema and field validation, CEL compilation and admission, and stores nothing:
     * a create when the object does not exist (what {@code helm install} sends), else a full replace of the
     * existing object with the rendered one (carrying its resourceVersion). Not a server-side apply: an apply merges
     * with fields other managers own, so the verdict would depend on what an earlier rendering left behind (e.g. a
     * RollingUpdate's {@code rollingUpdate} surviving a switch to {@code Recreate}).
     *
     * @return one line per refused object, naming {@code label}, the object, its template and the server's answer;
     *         empty when the server accepted all
     */
    static List<String> dryRun(KubernetesClient client, String label, List<Manifest> manifests) {
        List<String> rejected = new ArrayList<>();
        for (Manifest m : manifests) {
            GenericKubernetesResource o = m.object();
            if (!client.supports(o.getApiVersion(), o.getKind())) {
                rejected.add(label + ": " + m.ref() + " (" + m.source() + "): API " + o.getApiVersion()
                        + " kind " + o.getKind() + " is not served by this API server");
                continue;
            }
            try {
                GenericKubernetesResource current = client.resource(o).get();
                if (current == null) {
                    client.resource(o).dryRun().fieldValidation(FieldValidateable.Validation.STRICT).create();
                } else {
                    GenericKubernetesResource replacement = SERIALIZATION.clone(o);
                    replacement.getMetadata().setResourceVersion(current.getMetadata().getResourceVersion());
                    client.resource(replacement).dryRun().fieldValidation(FieldValidateable.Validation.STRICT)
                            .update();
                }
            } catch (KubernetesClientException e) {
                rejected.add(label + ": " + m.ref() + " (" + m.source() + "): HTTP " + e.getCode() + ": "
                        + serverMessage(e));
            }
        }
        return rejected;
    }

    /** The API server's message from a refusal (its Status), on one line. */
    static String serverMessage(KubernetesClientException e) {
        String m = e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage()
                : e.getMessage();
        return m == null ? e.getClass().getSimpleName() : m.replace('\n', ' ');
    }

    /** What the templates render for each variant of {@code tools/render.sh} (its --set lines, read against the templates). */
    static Map<String, Integer> expectedKinds(String variant) {
        Map<String, Integer> common = new TreeMap<>(Map.of("ServiceAccount", 2, "ClusterRole", 2,
                "ClusterRoleBinding", 2, "Role", 1, "RoleBinding", 1, "Service", 1, "Deployment", 1, "DaemonSet", 1,
                "MutatingWebhookConfiguration", 1, "ValidatingAdmissionPolicy", 2));
        // the agent's own-node policy and the extender's address-hold policy, each with its binding
        common.put("ValidatingAdmissionPolicyBinding", 2);
        // the extender's NetworkPolicy (port 8888 from vc-scheduler and the scraper only)
        common.put("NetworkPolicy", 1);
        switch (variant) {
            case "default" -> {
                // --include-crds; self-signed certificate: the chart's empty Secret; PodDisruptionBudget on.
                common.put("CustomResourceDefinition", 1);
                common.put("Secret", 1);
                common.put("PodDisruptionBudget", 1);
            }
            case "options" -> {
                // readiness routing: no PDB; inline rdma-shared-dev-plugin config: the chart's ConfigMap; the secure
                // port from an existing Secret: the explain ClusterRole.
                common.put("Secret", 1);
                common.put("ConfigMap", 1);
                common.put("ClusterRole", 3);
            }
            case "addons" -> {
                // cert-manager served: the webhook's Certificate + self-signed Issuer instead of the Secret, and the
                // secure port's CA (root Issuer, CA Certificate, CA Issuer), serving and kube-scheduler client
                // Certificates, the explain ClusterRole; monitors on.
                common.put("PodDisruptionBudget", 1);
                common.put("Certificate", 4);
                common.put("Issuer", 3);
                common.put("ClusterRole", 3);
                common.put("ServiceMonitor", 1);
                common.put("PodMonitor", 1);
            }
            default -> throw new IllegalArgumentException(variant);
        }
        return common;
    }
}
