package dev.railyard.e2e;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.railyard.api.hints.HintAnnotations;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;

/**
 * What the cluster shows about Volcano jobs and their pods, read through the admin client: the pods
 * vc-controller-manager created (label {@code volcano.sh/job-name}), their binding, their PodGroup, Events, and
 * Railyard's placement hints. Used by the scenario suites so that they assert cluster state, not Railyard's logs.
 */
public final class ClusterView {

    /** PodGroup API ({@code scheduling.volcano.sh/v1beta1}). */
    public static final String POD_GROUP_API = "scheduling.volcano.sh/v1beta1";
    /** scheduler-plugins coscheduling PodGroup API ({@code scheduling.x-k8s.io/v1alpha1}; CRD in test resources). */
    public static final String COSCHEDULING_POD_GROUP_API = "scheduling.x-k8s.io/v1alpha1";

    private final KubernetesClient client;
    private final String namespace;

    /** A view of {@code namespace} through {@code client}. */
    public ClusterView(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    /** Pods of Volcano job {@code job}, sorted by name. */
    public List<Pod> jobPods(String job) {
        return client.pods().inNamespace(namespace).withLabel("volcano.sh/job-name", job).list().getItems().stream()
                .sorted(Comparator.comparing(p -> p.getMetadata().getName())).toList();
    }

    /**
     * Waits until job {@code job} has {@code count} pods and every one has {@code spec.nodeName}.
     *
     * @throws AssertionError on timeout, with each pod's binding, the PodGroup's phase and conditions
     */
    public List<Pod> awaitJobBound(String job, int count, Duration timeout) {
        try {
            return await().atMost(timeout).pollInterval(Duration.ofMillis(250)).until(() -> jobPods(job),
                    pods -> pods.size() == count && pods.stream().allMatch(p -> p.getSpec().getNodeName() != null));
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("job " + namespace + "/" + job + ": not all " + count + " pods bound within "
                    + timeout.toSeconds() + " s; " + describe(job), e);
        }
    }

    /** One line about a job: its pods' bindings and its PodGroup phase and conditions. */
    public String describe(String job) {
        String pods = jobPods(job).stream().map(p -> p.getMetadata().getName() + "->" + p.getSpec().getNodeName())
                .collect(Collectors.joining(", ", "pods [", "]"));
        return pods + "; PodGroup " + podGroupOfJob(job).map(g -> g.get("status") + "").orElse("(none)");
    }

    /** Bound pods of {@code job}. */
    public long boundCount(String job) {
        return jobPods(job).stream().filter(p -> p.getSpec().getNodeName() != null).count();
    }

    /** The PodGroup vc-controller-manager made for {@code job} (owner reference to the Job), if it exists. */
    public Optional<GenericKubernetesResource> podGroupOfJob(String job) {
        return client.genericKubernetesResources(POD_GROUP_API, "PodGroup").inNamespace(namespace).list().getItems()
                .stream().filter(g -> g.getMetadata().getOwnerReferences().stream()
                        .anyMatch(o -> "Job".equals(o.getKind()) && job.equals(o.getName())))
                .findFirst();
    }

    /** PodGroup {@code status.phase}, or empty. */
    public Optional<String> podGroupPhase(String job) {
        return podGroupOfJob(job).map(g -> (String) g.get("status", "phase"));
    }

    /** Waits for the job's PodGroup to reach {@code phase}. */
    public GenericKubernetesResource awaitPodGroupPhase(String job, String phase, Duration timeout) {
        try {
            return await().atMost(timeout).pollInterval(Duration.ofMillis(250)).until(() -> podGroupOfJob(job),
                    g -> g.isPresent() && phase.equals(g.get().get("status", "phase"))).orElseThrow();
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("job " + namespace + "/" + job + ": PodGroup not " + phase + " within "
                    + timeout.toSeconds() + " s; " + describe(job), e);
        }
    }

    /** Messages of the PodGroup's conditions of {@code type} (e.g. {@code Unschedulable}). */
    public List<String> podGroupConditionMessages(String job, String type) {
        return podGroupOfJob(job).map(g -> {
            List<Map<String, Object>> conds = g.get("status", "conditions");
            return conds == null ? List.<String>of() : conds.stream().filter(c -> type.equals(c.get("type")))
                    .map(c -> String.valueOf(c.get("message"))).toList();
        }).orElse(List.of());
    }

    /** Events about object {@code name} in the namespace, oldest first. */
    public List<Event> events(String name) {
        return client.v1().events().inNamespace(namespace).list().getItems().stream()
                .filter(e -> name.equals(e.getInvolvedObject().getName()))
                .sorted(Comparator.comparing(e -> String.valueOf(e.getLastTimestamp()))).toList();
    }

    /** The pod's {@code railyard.dev/placement} hint as JSON, if Railyard wrote one. */
    public static Optional<JsonNode> placementHint(Pod pod) {
        Map<String, String> a = pod.getMetadata().getAnnotations();
        String v = a == null ? null : a.get(HintAnnotations.PLACEMENT);
        return v == null ? Optional.empty() : Optional.of(SeedCluster.json(v));
    }

    /** The pod's annotation {@code key}, if set. */
    public static Optional<String> annotation(Pod pod, String key) {
        Map<String, String> a = pod.getMetadata().getAnnotations();
        return Optional.ofNullable(a == null ? null : a.get(key));
    }

    /** Re-reads a pod. */
    public Pod pod(String name) {
        return client.pods().inNamespace(namespace).withName(name).get();
    }

    /**
     * Deletes every Volcano Job, pod and PodGroup (Volcano's and coscheduling ones) in the namespace and waits until
     * none is left. No
     * kube-controller-manager runs, so nothing garbage-collects by owner reference: Jobs go first (so
     * vc-controller-manager stops recreating their pods), then pods (the fake kubelet finishes the graceful
     * deletions), then PodGroups.
     */
    public void deleteAll(Duration timeout) {
        var jobs = client.genericKubernetesResources("batch.volcano.sh/v1alpha1", "Job").inNamespace(namespace);
        jobs.delete();
        await().atMost(timeout).pollInterval(Duration.ofMillis(250)).until(() -> jobs.list().getItems().isEmpty());
        var groups = client.genericKubernetesResources(POD_GROUP_API, "PodGroup").inNamespace(namespace);
        var coscheduling = client.genericKubernetesResources(COSCHEDULING_POD_GROUP_API, "PodGroup")
                .inNamespace(namespace);
        coscheduling.delete();
        // Delete again on every poll: vc-controller-manager may still recreate a pod of a Job it is tearing down.
        await().atMost(timeout).pollInterval(Duration.ofSeconds(1)).until(() -> {
            client.pods().inNamespace(namespace).delete();
            groups.delete();
            return client.pods().inNamespace(namespace).list().getItems().isEmpty()
                    && groups.list().getItems().isEmpty() && coscheduling.list().getItems().isEmpty();
        });
    }
}
