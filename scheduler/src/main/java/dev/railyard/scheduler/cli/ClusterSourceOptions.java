package dev.railyard.scheduler.cli;

import dev.railyard.scheduler.cluster.ClusterListing;
import dev.railyard.scheduler.cluster.ClusterObjects;
import dev.railyard.scheduler.cluster.SnapshotDirectory;
import dev.railyard.scheduler.explain.Explainer;
import dev.railyard.scheduler.explain.Explanation;
import dev.railyard.scheduler.explain.ExplanationJson;
import dev.railyard.scheduler.explain.ExplanationTable;
import dev.railyard.scheduler.explain.VolcanoJobTemplate;
import dev.railyard.topology.InputException;
import dev.railyard.topology.fabric.FabricFile;
import dev.railyard.topology.fabric.FabricModel;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Options shared by {@code explain} and {@code pools}: where the cluster objects come from ({@code --snapshot DIR},
 * else the cluster of the kubeconfig as kubectl finds it: {@code KUBECONFIG}, {@code ~/.kube/config}, or the
 * in-cluster service account), an optional fabric file, and the output format.
 */
final class ClusterSourceOptions {
    private static final ResourceDefinitionContext VOLCANO_JOB = new ResourceDefinitionContext.Builder()
            .withGroup("batch.volcano.sh").withVersion("v1alpha1").withKind("Job").withPlural("jobs")
            .withNamespaced(true).build();

    @Option(names = "--snapshot", paramLabel = "DIR",
            description = "Read the objects from DIR (files as 'kubectl get -o yaml' writes them) instead of the cluster.")
    Path snapshot;

    @Option(names = "--fabric", paramLabel = "FILE",
            description = "Fabric file (railyard.dev/v1alpha1 Fabric); default: Volcano HyperNodes, else node labels.")
    Path fabric;

    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "table",
            description = "table (default) or json (schema in docs/explain.md).")
    String output;

    /**
     * The objects and their context, loaded once.
     *
     * @param namespace the namespace for names given without one (the kubeconfig context's, or {@code default})
     * @param client    the live client (kept open for Volcano Job look-ups), or null for a snapshot
     */
    record Source(ClusterObjects objects, Explainer.Context context, String namespace, KubernetesClient client)
            implements AutoCloseable {
        @Override
        public void close() {
            if (client != null) {
                client.close();
            }
        }
    }

    void checkOutput() {
        if (!output.equals("table") && !output.equals("json")) {
            throw new InputException("--output " + output + ": use table or json");
        }
    }

    /**
     * @return the objects from the snapshot directory or the cluster
     * @throws InputException when the directory or the fabric file cannot be read, or the cluster cannot be reached
     */
    Source load() {
        checkOutput();
        FabricModel model = fabric == null ? null : FabricFile.read(fabric);
        if (snapshot != null) {
            SnapshotDirectory.Loaded loaded = SnapshotDirectory.read(snapshot);
            List<String> notices = new ArrayList<>(loaded.notes());
            List<GenericKubernetesResource> others = loaded.others();
            Function<String, VolcanoJobTemplate.Job> jobs = key -> {
                for (GenericKubernetesResource r : others) {
                    if ("Job".equals(r.getKind()) && r.getApiVersion() != null
                            && r.getApiVersion().startsWith("batch.volcano.sh/") && r.getMetadata() != null
                            && key.equals(ns(r) + "/" + r.getMetadata().getName())) {
                        return VolcanoJobTemplate.of(r, snapshot + " (Volcano Job " + key + ")");
                    }
                }
                return null;
            };
            return new Source(loaded.objects(), new Explainer.Context("snapshot", snapshot.toString(), model,
                    loaded.warnings(), notices, jobs), "default", null);
        }
        List<String> notes = new ArrayList<>();
        KubernetesClient client;
        try {
            // kubectl's rules (KUBECONFIG, ~/.kube/config, in-cluster); one retry only: a person is waiting
            Config config = ApiServerConfigSource.autoConfigure("give --snapshot DIR to read saved objects instead "
                    + "(docs/explain.md, Snapshot directories)");
            config.setRequestRetryBackoffLimit(1);
            client = new KubernetesClientBuilder().withConfig(config).build();
        } catch (KubernetesClientException | IllegalStateException e) {
            throw new InputException("cannot set up a client from the kubeconfig: " + e.getMessage(), e);
        }
        try {
            ClusterObjects objects = ClusterListing.listOnce(client, notes);
            String url = String.valueOf(client.getMasterUrl());
            String namespace = client.getNamespace() == null ? "default" : client.getNamespace();
            Function<String, VolcanoJobTemplate.Job> jobs = key -> {
                int slash = key.indexOf('/');
                try {
                    GenericKubernetesResource job = client.genericKubernetesResources(VOLCANO_JOB)
                            .inNamespace(key.substring(0, slash)).withName(key.substring(slash + 1)).get();
                    if (job == null) {
                        return null;
                    }
                    job.setApiVersion("batch.volcano.sh/v1alpha1");
                    job.setKind("Job");
                    return VolcanoJobTemplate.of(job, url + " (Volcano Job " + key + ")");
                } catch (KubernetesClientException e) {
                    return null;
                }
            };
            return new Source(objects, new Explainer.Context("cluster", url, model, List.of(), notes, jobs),
                    namespace, client);
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
    }

    private static String ns(GenericKubernetesResource r) {
        return r.getMetadata().getNamespace() == null ? "default" : r.getMetadata().getNamespace();
    }

    /** Prints the explanation in the chosen format. */
    void print(PrintWriter out, Explanation e, boolean nodeDetail) {
        out.print(output.equals("json") ? ExplanationJson.write(e) : ExplanationTable.render(e, nodeDetail));
        out.flush();
    }
}
