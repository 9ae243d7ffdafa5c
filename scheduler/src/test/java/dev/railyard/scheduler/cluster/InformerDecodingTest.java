package dev.railyard.scheduler.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The informers' decoding leaves out {@code metadata.managedFields} and a Node's {@code status.images}, and decodes
 * everything else exactly as fabric8's default serialization does (same map entries, same Java number types).
 */
class InformerDecodingTest {
    // a Node as the API server lists it (items of a list carry no apiVersion/kind), shortened from the 5,000-node
    // benchmark cluster: managedFields and status.images as the kubelet and server-side apply write them
    private static final String NODE = """
            {"metadata":{"name":"gpu-0001","uid":"u1","resourceVersion":"42","labels":{"a":"b"},
              "managedFields":[{"manager":"kubelet","operation":"Update","apiVersion":"v1",
                "fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:images":{}}}}]},
             "spec":{"podCIDR":"10.0.0.0/24","unschedulable":true,"taints":[{"key":"k","effect":"NoSchedule"}]},
             "status":{"capacity":{"nvidia.com/gpu":"8"},"allocatable":{"nvidia.com/gpu":"8"},
               "images":[{"names":["registry/x@sha256:0","registry/x:1"],"sizeBytes":123456789012}],
               "conditions":[{"type":"Ready","status":"True"}],"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},
               "nodeInfo":{"kubeletVersion":"v1.35.4"},"ratio":0.5,"big":12345678901234567890}}""";
    private static final String POD = """
            {"metadata":{"name":"p","namespace":"ns","managedFields":[{"manager":"m","fieldsV1":{"f:spec":{}}}]},
             "spec":{"nodeName":"gpu-0001","containers":[{"name":"c","image":"img",
               "resources":{"limits":{"nvidia.com/gpu":"8"}}}]},
             "status":{"phase":"Running","containerStatuses":[{"name":"c","image":"img","imageID":"id"}],
               "images":null}}""";

    private final KubernetesSerialization lean = InformerDecoding.serialization();
    private final KubernetesSerialization standard = new KubernetesSerialization();

    @Test
    void listItemsLoseManagedFieldsAndNodeImagesOnly() {
        String list = "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"metadata\":{},\"items\":[" + NODE + "," + POD + "]}";
        List<GenericKubernetesResource> got = lean.unmarshal(list, GenericKubernetesResourceList.class).getItems();
        List<GenericKubernetesResource> all = standard.unmarshal(list, GenericKubernetesResourceList.class)
                .getItems();

        GenericKubernetesResource node = got.get(0);
        assertThat(node.getMetadata().getManagedFields()).isEmpty();
        assertThat(status(node)).doesNotContainKey("images");
        assertThat(status(node)).containsKeys("capacity", "allocatable", "conditions", "daemonEndpoints", "nodeInfo");
        // the rest is what the default decoding gives, down to the number types (Integer, Double, BigInteger)
        Map<String, Object> expected = new LinkedHashMap<>(status(all.get(0)));
        expected.remove("images");
        assertThat(status(node)).isEqualTo(expected);
        assertThat(node.getAdditionalProperties().get("spec")).isEqualTo(all.get(0).getAdditionalProperties()
                .get("spec"));
        assertThat(node.getMetadata().getLabels()).containsEntry("a", "b");
        assertThat(node.getMetadata().getResourceVersion()).isEqualTo("42");

        GenericKubernetesResource pod = got.get(1);
        assertThat(pod.getMetadata().getManagedFields()).isEmpty();
        // a null images entry is skipped too; containerStatuses (where a pod's images are) is untouched
        assertThat(status(pod)).containsOnlyKeys("phase", "containerStatuses");
        assertThat(status(pod).get("containerStatuses")).isEqualTo(status(all.get(1)).get("containerStatuses"));
        assertThat(pod.getAdditionalProperties().get("spec")).isEqualTo(all.get(1).getAdditionalProperties()
                .get("spec"));
        // the default keeps both fields: what the lean decoding saves
        assertThat(all.get(0).getMetadata().getManagedFields()).hasSize(1);
        assertThat(status(all.get(0))).containsKey("images");
    }

    @Test
    void aRealNodeAndPodDecodeAsTheDefaultDoesButForManagedFieldsAndImages() throws Exception {
        // captured from a real kube-apiserver v1.35.4 by vc-scheduler v1.14.1 (wire/captured/README.md): the node and
        // the task's pod, each with the managedFields the API server keeps
        var json = new com.fasterxml.jackson.databind.ObjectMapper();
        var body = json.readTree(getClass().getResourceAsStream("/wire/captured/volcano/predicate-v1.14.1.json"));
        // the captured node's kubelet reported no images: a copy gets two, as a kubelet with cached images has them
        var node = (com.fasterxml.jackson.databind.node.ObjectNode) body.path("node").path("Node").deepCopy();
        var status = (com.fasterxml.jackson.databind.node.ObjectNode) node.path("status");
        assertThat(status.has("images")).isFalse();
        status.set("images", json.readTree("[{\"names\":[\"registry/x@sha256:0\",\"registry/x:1\"],"
                + "\"sizeBytes\":123456789},{\"names\":[\"registry/y:2\"],\"sizeBytes\":42}]"));
        for (var object : List.of(node, body.path("task").path("Pod"))) {
            String text = json.writeValueAsString(object);
            GenericKubernetesResource got = lean.unmarshal(text, GenericKubernetesResource.class);
            GenericKubernetesResource expected = standard.unmarshal(text, GenericKubernetesResource.class);
            assertThat(expected.getMetadata().getManagedFields()).isNotEmpty();
            expected.getMetadata().setManagedFields(List.of());
            if (object == node) {
                assertThat((List<?>) status(expected).remove("images")).hasSize(2);
            }
            assertThat(got).usingRecursiveComparison().isEqualTo(expected);
        }
    }

    @Test
    void watchEventsDecodeTheSameWay() {
        KubernetesSerialization s = InformerDecoding.serialization();
        s.registerKubernetesResource("v1", "Node", GenericKubernetesResource.class);
        String event = "{\"type\":\"MODIFIED\",\"object\":" + NODE.replace("{\"metadata\"",
                "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\"") + "}";
        GenericKubernetesResource node = (GenericKubernetesResource) s.unmarshal(event, WatchEvent.class)
                .getObject();
        assertThat(node.getMetadata().getManagedFields()).isEmpty();
        assertThat(status(node)).doesNotContainKey("images").containsKey("allocatable");
    }

    @Test
    void aTopLevelFieldThatIsNotAnObjectIsKept() {
        GenericKubernetesResource r = lean.unmarshal("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                + "\"metadata\":{\"name\":\"c\"},\"status\":\"Ready\",\"data\":{\"images\":\"x\"},\"n\":null}",
                GenericKubernetesResource.class);
        assertThat(r.getAdditionalProperties()).containsEntry("status", "Ready")
                .containsEntry("data", Map.of("images", "x")).containsEntry("n", null);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> status(GenericKubernetesResource r) {
        return (Map<String, Object>) r.getAdditionalProperties().get("status");
    }
}
