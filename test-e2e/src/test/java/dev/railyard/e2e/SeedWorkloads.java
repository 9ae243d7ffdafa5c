package dev.railyard.e2e;

import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The seed's workloads ({@code docs/seed-setup.md}), loaded from this module's test resources. */
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
        return load(client, SeedCluster.SEED_NETWORKS);
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

    /**
     * A gang Volcano Job shaped like the seed's: one task {@code worker} of {@code replicas} pods, each with the
     * seed's container, networks annotation (rdma-net-ipam-lan2..lan5) and HCA requests
     * ({@code nvidia.com/mlx5_0..3: 1}) but {@code gpus} GPUs; {@code minAvailable = replicas} on the Job and the
     * task, so vc-controller-manager gives its PodGroup {@code minMember = replicas}. The seed's {@code pytorch}
     * plugin and policy are left out (the plugin needs a master task).
     *
     * @param annotations Job annotations (vc-controller-manager copies them onto the PodGroup), e.g. Railyard hints
     * @param nodes       when not empty, a required node affinity to these node names
     */
    public static GenericKubernetesResource gangJob(KubernetesClient client, String name, int replicas, int gpus,
                                                    Map<String, String> annotations, List<String> nodes) {
        return job(name, replicas, annotations, List.of(task(client, "worker", replicas, gpus, nodes)));
    }

    /**
     * A gang Volcano Job like {@link #gangJob} with one pod per node, each pinned there: task {@code n<i>} (one
     * replica, {@code gpus} GPUs) has a required node affinity to {@code nodes.get(i)}. All tasks have the same shape,
     * so rail alignment applies across them.
     */
    public static GenericKubernetesResource pinnedGangJob(KubernetesClient client, String name, int gpus,
                                                          Map<String, String> annotations, List<String> nodes) {
        List<Map<String, Object>> tasks = new java.util.ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            tasks.add(task(client, "n" + i, 1, gpus, List.of(nodes.get(i))));
        }
        return job(name, nodes.size(), annotations, tasks);
    }

    private static Map<String, Object> task(KubernetesClient client, String taskName, int replicas, int gpus,
                                            List<String> nodes) {
        GenericKubernetesResource seed = rdmaTestJob(client);
        List<Map<String, Object>> tasks = seed.get("spec", "tasks");
        PodTemplateSpec t = client.getKubernetesSerialization().convertValue(tasks.getFirst().get("template"),
                PodTemplateSpec.class);
        var resources = t.getSpec().getContainers().getFirst().getResources();
        resources.getLimits().put("nvidia.com/gpu", new Quantity(Integer.toString(gpus)));
        resources.getRequests().put("nvidia.com/gpu", new Quantity(Integer.toString(gpus)));
        if (!nodes.isEmpty()) {
            t.getSpec().setAffinity(new AffinityBuilder().withNewNodeAffinity()
                    .withNewRequiredDuringSchedulingIgnoredDuringExecution().addNewNodeSelectorTerm()
                    .addNewMatchExpression().withKey("kubernetes.io/hostname").withOperator("In")
                    .withValues(nodes).endMatchExpression().endNodeSelectorTerm()
                    .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().build());
        }
        Map<String, Object> task = new LinkedHashMap<>();
        task.put("name", taskName);
        task.put("replicas", replicas);
        task.put("minAvailable", replicas);
        task.put("template", client.getKubernetesSerialization().convertValue(t, Map.class));
        return task;
    }

    private static GenericKubernetesResource job(String name, int minAvailable, Map<String, String> annotations,
                                                 List<Map<String, Object>> tasks) {
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("minAvailable", minAvailable);
        spec.put("schedulerName", "volcano");
        spec.put("queue", "default");
        spec.put("tasks", tasks);
        return new GenericKubernetesResourceBuilder()
                .withApiVersion("batch.volcano.sh/v1alpha1").withKind("Job")
                .withNewMetadata().withName(name).withNamespace(NAMESPACE).withAnnotations(annotations).endMetadata()
                .addToAdditionalProperties("spec", spec)
                .build();
    }

    /**
     * A pod already running on {@code node} that holds {@code gpus} GPUs, as if placed before this test (created with
     * {@code spec.nodeName}, so no scheduler is involved; the fake kubelet reports it Running).
     */
    public static Pod occupant(String name, String node, int gpus) {
        return new PodBuilder()
                .withNewMetadata().withName(name).withNamespace(NAMESPACE).endMetadata()
                .withNewSpec().withNodeName(node)
                    .addNewContainer().withName("busy").withImage("torch")
                        .withNewResources()
                            .addToRequests("nvidia.com/gpu", new Quantity(Integer.toString(gpus)))
                            .addToLimits("nvidia.com/gpu", new Quantity(Integer.toString(gpus)))
                        .endResources()
                    .endContainer()
                .endSpec()
                .build();
    }

    static List<HasMetadata> load(KubernetesClient client, String resource) {
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
