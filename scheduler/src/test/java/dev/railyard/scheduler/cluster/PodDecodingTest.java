package dev.railyard.scheduler.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Pod informer's decoding ({@link PodDecoding}) keeps only what {@link PodView#of} reads: every pod, real or
 * made up, of any shape, reads as the same {@link PodView} (or the same refusal) as with fabric8's default decoding,
 * while the fields PodView never reads are gone.
 */
class PodDecodingTest {
    private final KubernetesSerialization pods = PodDecoding.serialization();
    private final KubernetesSerialization standard = new KubernetesSerialization();

    /** Pods as list items (no apiVersion/kind), each with something the decoding must keep or may drop. */
    private static final List<String> SHAPES = List.of(
            // the benchmark's shape: a training pod with everything a controller writes
            """
            {"metadata":{"name":"train-0","namespace":"ml","uid":"u0","labels":{"volcano.sh/job-name":"j"},
              "annotations":{"scheduling.k8s.io/group-name":"pg","k8s.v1.cni.cncf.io/networks":"rdma-net-ipam-lan2"},
              "ownerReferences":[{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"Job","name":"j","uid":"j1"}],
              "managedFields":[{"manager":"vc-controller-manager","fieldsV1":{"f:spec":{}}}]},
             "spec":{"schedulerName":"volcano","nodeName":"gpu-00001","priorityClassName":"high",
              "affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[
                {"matchExpressions":[{"key":"railyard.dev/gpu","operator":"In","values":["h100"]}]}]}},
               "podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[]}},
              "containers":[{"name":"main","image":"nccl:1","command":["torchrun"],"env":[{"name":"NCCL_IB_HCA",
                "value":"mlx5_0"}],"resources":{"requests":{"cpu":"8","nvidia.com/gpu":"8","nvidia.com/mlx5_0":"1"},
                "limits":{"nvidia.com/gpu":"8","nvidia.com/mlx5_0":"1"}},"volumeMounts":[{"name":"shm","mountPath":"/dev/shm"}]}],
              "volumes":[{"name":"shm","emptyDir":{"medium":"Memory"}}],"tolerations":[{"operator":"Exists"}]},
             "status":{"phase":"Running","podIP":"10.0.0.1","conditions":[{"type":"Ready","status":"True"}],
              "containerStatuses":[{"name":"main","ready":true,"image":"nccl:1"}]}}""",
            // hostNetwork as a boolean and as a string, a node selector, overhead, a scheduler name
            """
            {"metadata":{"name":"h","namespace":"ns"},"spec":{"hostNetwork":true,"nodeSelector":{"a":"b"},
             "overhead":{"cpu":"250m","nvidia.com/gpu":"1"},"containers":[{"name":"c"}]}}""",
            """
            {"metadata":{"name":"h2"},"spec":{"hostNetwork":"true","schedulerName":"default-scheduler",
             "containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":2}}}]},"status":{}}""",
            // init containers: a sidecar (restartPolicy Always) and a plain one, requests as numbers
            """
            {"metadata":{"name":"init","namespace":"ns","deletionTimestamp":"2026-12-04T00:00:00Z"},
             "spec":{"initContainers":[{"name":"side","restartPolicy":"Always","image":"x",
               "resources":{"requests":{"nvidia.com/gpu":1}}},{"name":"setup","resources":{"requests":{"nvidia.com/gpu":4}}}],
              "containers":[{"name":"c","resources":{"requests":{"nvidia.com/gpu":"2"}}}]},"status":{"phase":"Pending"}}""",
            // shapes no API server writes: the decoding keeps them whole so PodView judges them as before
            """
            {"metadata":{"name":"odd1","namespace":"ns"},"spec":"not an object","status":"Running"}""",
            """
            {"metadata":{"name":"odd2","namespace":"ns"},"spec":{"containers":{"name":"c","resources":{}},
             "initContainers":["x",null,[{"name":"nested"}]],"affinity":"none","nodeName":7},"status":{"phase":null}}""",
            """
            {"metadata":{"name":"odd3","namespace":"ns"},"spec":null,"status":null,"extra":{"spec":{"a":1}}}""",
            """
            {"metadata":{"name":"odd4","namespace":"ns"},"spec":{"nodeName":"n","nodeName":"m",
             "containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":"1.5"}}}]}}""",
            """
            {"metadata":{"name":"odd5","namespace":"ns"},"spec":{"affinity":{"nodeAffinity":{
             "requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchFields":[
             {"key":"metadata.name","operator":"In","values":["gpu-1",2]}]}]}}},"containers":[]}}""",
            """
            {"metadata":{"name":"odd6","namespace":"ns"},"spec":{"containers":[{"name":"c",
             "resources":{"requests":{"nvidia.com/gpu":"-1"}}}]}}""");

    @Test
    void everyShapeReadsAsTheSamePodViewOrTheSameRefusal() {
        String list = "{\"apiVersion\":\"v1\",\"kind\":\"PodList\",\"metadata\":{},\"items\":["
                + String.join(",", SHAPES) + "]}";
        List<GenericKubernetesResource> got = pods.unmarshal(list, GenericKubernetesResourceList.class).getItems();
        List<GenericKubernetesResource> all = standard.unmarshal(list, GenericKubernetesResourceList.class)
                .getItems();
        assertThat(got).hasSize(SHAPES.size());
        List<String> refused = new ArrayList<>();
        for (int i = 0; i < got.size(); i++) {
            String a = view(got.get(i));
            assertThat(a).as(all.get(i).getMetadata().getName()).isEqualTo(view(all.get(i)));
            if (a.startsWith("refused")) {
                refused.add(got.get(i).getMetadata().getName());
            }
        }
        // odd4 asks 1.5 GPUs and odd6 -1: PodView refuses both, with either decoding (worked out from PodView#of)
        assertThat(refused).containsExactly("odd4", "odd6");
    }

    /** Shapes no API server writes, besides those above: lists and duplicates where one object belongs, deep nesting. */
    private static List<String> odder() {
        String deep = "[".repeat(480) + "{\"name\":\"c\"}" + "]".repeat(480);
        return List.of(
                "{\"metadata\":{\"name\":\"list-spec\"},\"spec\":[{\"nodeName\":\"n\"}],\"status\":[{\"phase\":\"Running\"}]}",
                "{\"metadata\":{\"name\":\"dup\"},\"spec\":{\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":"
                        + "{\"nvidia.com/gpu\":\"1\"}}}],\"containers\":[{\"name\":\"b\"}]},\"spec\":{\"nodeName\":\"z\","
                        + "\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":2}}}]}}",
                "{\"metadata\":{\"name\":\"big\"},\"spec\":{\"containers\":[{\"name\":12345678901234567890,"
                        + "\"resources\":{\"limits\":{\"nvidia.com/gpu\":[1.5e3,123456789012345678901234567890]}}}]}}",
                "{\"metadata\":{\"name\":\"deep-skipped\"},\"spec\":{\"volumes\":" + "[".repeat(480) + "1"
                        + "]".repeat(480) + ",\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":"
                        + "{\"nvidia.com/gpu\":\"1\"}}}]}}",
                "{\"metadata\":{\"name\":\"deep-kept\"},\"spec\":{\"containers\":" + deep + "}}",
                "{\"metadata\":{\"name\":\"aff\"},\"spec\":{\"affinity\":[{\"nodeAffinity\":{}}],\"nodeSelector\":[\"a\"],"
                        + "\"hostNetwork\":\"true\"}}");
    }

    @Test
    void everyShapeReadsTheSameFromAWatchEventAsFromTheDefault() {
        // fabric8 8.0 reads a watch event whole into a JSON tree, then converts it: the other path through the mix-in
        KubernetesSerialization generic = new KubernetesSerialization();
        generic.registerKubernetesResource("v1", "Pod", GenericKubernetesResource.class);
        List<String> shapes = new ArrayList<>(SHAPES);
        shapes.addAll(odder());
        for (String shape : shapes) {
            String event = "{\"type\":\"MODIFIED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
                    + shape.strip().substring(1) + "}";
            GenericKubernetesResource got = (GenericKubernetesResource) pods.unmarshal(event,
                    io.fabric8.kubernetes.api.model.WatchEvent.class).getObject();
            GenericKubernetesResource all = (GenericKubernetesResource) generic.unmarshal(event,
                    io.fabric8.kubernetes.api.model.WatchEvent.class).getObject();
            assertThat(view(got)).as(shape).isEqualTo(view(all));
            assertThat(view(pods.unmarshal(shape, GenericKubernetesResource.class))).as(shape)
                    .isEqualTo(view(standard.unmarshal(shape, GenericKubernetesResource.class)));
        }
    }

    @Test
    void whatPodViewNeverReadsIsNotBuilt() {
        GenericKubernetesResource p = pods.unmarshal(SHAPES.get(0), GenericKubernetesResource.class);
        Map<?, ?> spec = (Map<?, ?>) p.getAdditionalProperties().get("spec");
        assertThat(spec.keySet()).isEqualTo(Set.of("schedulerName", "nodeName", "affinity", "containers"));
        assertThat(((Map<?, ?>) spec.get("affinity")).keySet()).isEqualTo(Set.of("nodeAffinity"));
        Map<?, ?> container = (Map<?, ?>) ((List<?>) spec.get("containers")).get(0);
        assertThat(container.keySet()).isEqualTo(Set.of("name", "resources"));
        assertThat(p.getAdditionalProperties().get("status")).isEqualTo(Map.of("phase", "Running"));
        assertThat(p.getMetadata().getManagedFields()).isEmpty();
        assertThat(p.getMetadata().getOwnerReferences()).hasSize(1); // metadata decodes as InformerDecoding's
        // a top-level field other than spec and status is kept whole (odd3's "extra")
        GenericKubernetesResource odd3 = pods.unmarshal(SHAPES.get(6), GenericKubernetesResource.class);
        assertThat(odd3.getAdditionalProperties().get("extra")).isEqualTo(Map.of("spec", Map.of("a", 1)));
    }

    @Test
    void aRealPodReadsAsTheSamePodView() throws Exception {
        // captured from a real kube-apiserver v1.35.4 by vc-scheduler v1.14.1 (wire/captured/README.md): the task's pod
        var json = new com.fasterxml.jackson.databind.ObjectMapper();
        var body = json.readTree(getClass().getResourceAsStream("/wire/captured/volcano/predicate-v1.14.1.json"));
        String text = json.writeValueAsString(body.path("task").path("Pod"));
        GenericKubernetesResource got = pods.unmarshal(text, GenericKubernetesResource.class);
        GenericKubernetesResource all = standard.unmarshal(text, GenericKubernetesResource.class);
        assertThat(view(got)).isEqualTo(view(all)).startsWith("PodView[");
        // the real pod has what PodView skips: the default keeps it, this decoding does not
        assertThat(firstContainer(all).keySet()).contains("image");
        assertThat(firstContainer(got).keySet()).doesNotContain("image").contains("name");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> firstContainer(GenericKubernetesResource pod) {
        Map<?, ?> spec = (Map<?, ?>) pod.getAdditionalProperties().get("spec");
        return (Map<String, Object>) ((List<?>) spec.get("containers")).get(0);
    }

    /** @return the pod's view as text, or "refused: " and PodView's message */
    private static String view(GenericKubernetesResource pod) {
        try {
            return PodView.of(pod).toString();
        } catch (IllegalArgumentException e) {
            return "refused: " + e.getMessage();
        }
    }
}
