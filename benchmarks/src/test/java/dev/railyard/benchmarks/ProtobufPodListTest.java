package dev.railyard.benchmarks;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The protobuf reading behind docs/adr/0026 reads what the JSON reading reads. The protobuf pod is written here by
 * hand with the field numbers of Kubernetes v1.35's {@code core/v1/types.go} and {@code meta/v1/types.go} tags, as
 * docs/adr/0026 lists them; the JSON is the same pod as the API server writes it.
 */
class ProtobufPodListTest {
    private interface Writer {
        void write(CodedOutputStream out) throws IOException;
    }

    private static ByteString message(Writer w) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        w.write(out);
        out.flush();
        return ByteString.copyFrom(bytes.toByteArray());
    }

    private static ByteString entry(String key, ByteString value) throws IOException {
        return message(o -> {
            o.writeString(1, key);
            o.writeBytes(2, value);
        });
    }

    private static ByteString quantity(String q) throws IOException {
        return message(o -> o.writeString(1, q));
    }

    /** One pod: managed fields, an image, conditions and an affinity that the reading must skip or walk past. */
    private static byte[] podList(String node) throws IOException {
        ByteString resources = message(o -> {
            o.writeBytes(1, entry("nvidia.com/gpu", quantity("8")));
            o.writeBytes(2, entry("cpu", quantity("4")));
            o.writeBytes(2, entry("nvidia.com/gpu", quantity("8")));
        });
        ByteString container = message(o -> {
            o.writeString(1, "worker");
            o.writeString(2, "nvcr.io/nvidia/pytorch:25.01-py3");
            o.writeBytes(8, resources);
        });
        ByteString requirement = message(o -> {
            o.writeString(1, "railyard.dev/rail-set");
            o.writeString(2, "In");
            o.writeString(3, "a");
        });
        ByteString affinity = message(o -> o.writeBytes(1, message(n -> n.writeBytes(1,
                message(sel -> sel.writeBytes(1, message(term -> term.writeBytes(1, requirement))))))));
        ByteString meta = message(o -> {
            o.writeString(1, "train-worker-0");
            o.writeString(3, "ml");
            o.writeString(5, "6f1c0b2e-0000-4000-8000-000000000001");
            o.writeString(6, "74246");
            o.writeBytes(11, entry("app", ByteString.copyFromUtf8("train")));
            o.writeBytes(12, entry("k8s.v1.cni.cncf.io/networks", ByteString.copyFromUtf8("lan2,lan3")));
            o.writeBytes(17, ByteString.copyFrom(new byte[] {10, 3, 'k', 'u', 'b', 'e'}));
        });
        ByteString spec = message(o -> {
            o.writeBytes(2, container);
            o.writeString(10, node);
            o.writeBool(11, false);
            o.writeBytes(18, affinity);
            o.writeString(19, "volcano");
        });
        ByteString status = message(o -> {
            o.writeString(1, "Running");
            o.writeBytes(2, message(c -> c.writeString(1, "Ready")));
        });
        ByteString pod = message(o -> {
            o.writeBytes(1, meta);
            o.writeBytes(2, spec);
            o.writeBytes(3, status);
        });
        ByteString list = message(o -> {
            o.writeBytes(1, message(m -> m.writeString(2, "74246")));
            o.writeBytes(2, pod);
        });
        ByteString unknown = message(o -> {
            o.writeBytes(1, message(t -> {
                t.writeString(1, "v1");
                t.writeString(2, "PodList");
            }));
            o.writeBytes(2, list);
        });
        byte[] body = new byte[4 + unknown.size()];
        body[0] = 'k';
        body[1] = '8';
        body[2] = 's';
        unknown.copyTo(body, 4);
        return body;
    }

    private static final String JSON = """
            {"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"74246"},"items":[
             {"metadata":{"name":"train-worker-0","namespace":"ml","uid":"6f1c0b2e-0000-4000-8000-000000000001",
              "resourceVersion":"74246","labels":{"app":"train"},
              "annotations":{"k8s.v1.cni.cncf.io/networks":"lan2,lan3"},"managedFields":[{"manager":"kube"}]},
             "spec":{"containers":[{"name":"worker","image":"nvcr.io/nvidia/pytorch:25.01-py3",
              "resources":{"limits":{"nvidia.com/gpu":"8"},"requests":{"cpu":"4","nvidia.com/gpu":"8"}}}],
              "nodeName":"gpu-a","schedulerName":"volcano","affinity":{"nodeAffinity":{
              "requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[
              {"key":"railyard.dev/rail-set","operator":"In","values":["a"]}]}]}}}},
             "status":{"phase":"Running","conditions":[{"type":"Ready"}]}}]}
            """;

    @Test
    void readsThePodsFieldsAndSkipsTheRest() throws IOException {
        assertThat(ProtobufPodList.read(podList("gpu-a"))).containsExactly(new ProtobufPodList.PodFields(
                "ml/train-worker-0", "gpu-a", "volcano", "Running",
                List.of("worker {cpu=4, nvidia.com/gpu=8} {nvidia.com/gpu=8}"), 1));
    }

    @Test
    void theJsonReadingOfTheSamePodAgreesAndADifferentNodeIsCaught() throws IOException {
        var json = ProtobufListCost.fromJson(JSON.getBytes(StandardCharsets.UTF_8));
        assertThat(ProtobufListCost.firstDifference(json, ProtobufPodList.read(podList("gpu-a")))).isNull();
        assertThat(ProtobufListCost.firstDifference(json, ProtobufPodList.read(podList("gpu-b"))))
                .startsWith("pod 0: ").contains("gpu-a").contains("gpu-b");
    }

    @Test
    void aBodyWithoutTheKubernetesPrefixIsRefused() {
        assertThatThrownBy(() -> ProtobufPodList.read(JSON.getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("k8s\\0");
    }
}
