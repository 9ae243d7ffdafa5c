package dev.railyard.e2e;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/** The seed's workloads ({@code shared/seed-setup.md}), loaded from this module's test resources. */
public final class SeedWorkloads {

    /** Namespace the seed's job and networks use. */
    public static final String NAMESPACE = "prod";

    private SeedWorkloads() {
    }

    /** The seed's {@code rdma-test} Volcano Job ({@code batch.volcano.sh/v1alpha1}), unchanged. */
    public static GenericKubernetesResource rdmaTestJob(KubernetesClient client) {
        List<HasMetadata> items = load(client, "/seed/rdma-test-job.yaml");
        return (GenericKubernetesResource) items.getFirst();
    }

    /** The seed's four MacvlanNetworks {@code rdma-net-ipam-lan2..lan5}. */
    public static List<HasMetadata> macvlanNetworks(KubernetesClient client) {
        return load(client, "/seed/macvlan-networks.yaml");
    }

    /**
     * A plain Pod made from the rdma-test job's {@code master} task template, named as Volcano names that task's
     * pod ({@code <job>-<task>-<index>}, here {@code rdma-test-master-0}), for the default scheduler: the
     * template's {@code schedulerName: volcano} is dropped.
     */
    public static Pod rdmaTestMasterPod(KubernetesClient client, String name) {
        GenericKubernetesResource job = rdmaTestJob(client);
        List<Map<String, Object>> tasks = job.get("spec", "tasks");
        Map<String, Object> master = tasks.stream().filter(t -> "master".equals(t.get("name"))).findFirst()
                .orElseThrow(() -> new IllegalStateException("seed job has no task named master"));
        PodTemplateSpec template = client.getKubernetesSerialization().convertValue(master.get("template"),
                PodTemplateSpec.class);
        return new PodBuilder()
                .withNewMetadataLike(template.getMetadata()).withName(name).withNamespace(NAMESPACE).endMetadata()
                .withNewSpecLike(template.getSpec()).withSchedulerName(null).endSpec()
                .build();
    }

    private static List<HasMetadata> load(KubernetesClient client, String resource) {
        try (InputStream in = SeedWorkloads.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("test resource " + resource + " missing");
            }
            return client.load(in).items();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read test resource " + resource, e);
        }
    }
}
