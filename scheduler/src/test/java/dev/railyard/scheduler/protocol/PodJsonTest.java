package dev.railyard.scheduler.protocol;

import com.fasterxml.jackson.core.JsonParser;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PodJsonTest {

    private static PodJson.Fields read(String podJson) throws Exception {
        JsonParser p = WireJson.openObject(podJson.getBytes(StandardCharsets.UTF_8), "test");
        return PodJson.read(p, "test", "Pod");
    }

    private static String pod(String initContainers, String containers, String extraSpec) {
        return "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"uid\":\"u1\"},\"spec\":{"
                + (initContainers == null ? "" : "\"initContainers\":" + initContainers + ",")
                + "\"containers\":" + containers + extraSpec + "}}";
    }

    private static String container(String requests, String restartPolicy) {
        return "{\"name\":\"c\",\"resources\":{\"requests\":" + requests + "}"
                + (restartPolicy == null ? "" : ",\"restartPolicy\":\"" + restartPolicy + "\"") + "}";
    }

    @Test
    void volcanoWorkerPodGetsKubernetesEffectiveRequests() throws Exception {
        // predicate-v1.15.json task.Pod: trainer 96 cpu / 960Gi / 8 GPUs / mlx5_0..7 x1; init wait-rdzv 500m/64Mi;
        // sidecar nccl-sidecar (restartPolicy Always) 250m/128Mi. PodRequests: app + sidecar = 96.25 cpu,
        // 960Gi+128Mi memory; the plain init container (500m + sidecars started before it: none) is smaller.
        // Cross-check: the same file's TaskInfo.Resreq says MilliCPU 96250, Memory 1030926368768.
        byte[] body = WireResources.load("volcano/predicate-v1.15.json");
        var recording = new RecordingDecisions();
        new dev.railyard.scheduler.protocol.volcano.VolcanoExtender(recording,
                dev.railyard.scheduler.protocol.volcano.VolcanoSettings.DEFAULTS,
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry()).predicate(body);
        ResourceRequests r = recording.pods.getFirst().requests();
        assertThat(r.amount("cpu")).isEqualByComparingTo("96.25");
        assertThat(r.amount("memory")).isEqualByComparingTo(BigDecimal.valueOf(1030926368768L));
        assertThat(r.gpus()).isEqualTo(8);
        assertThat(r.hcaDevices()).hasSize(8).containsEntry("nvidia.com/mlx5_0", 1L).containsEntry("nvidia.com/mlx5_7", 1L);
    }

    @Test
    void plainInitContainerLargerThanAppsWins() throws Exception {
        // containers 2 cpu; init 4 cpu then sidecar 1 cpu: apps+sidecar = 3, init phase max(4+0, 1) = 4 -> 4
        var f = read(pod("[" + container("{\"cpu\":\"4\"}", null) + "," + container("{\"cpu\":\"1\"}", "Always") + "]",
                "[" + container("{\"cpu\":\"2\"}", null) + "]", ""));
        assertThat(f.requests().amount("cpu")).isEqualByComparingTo("4");
    }

    @Test
    void sidecarStartedBeforeAnInitContainerAddsToIt() throws Exception {
        // sidecar 1 cpu first, then init 4 cpu: that init runs beside the sidecar -> 5; apps+sidecar = 3 -> 5
        var f = read(pod("[" + container("{\"cpu\":\"1\"}", "Always") + "," + container("{\"cpu\":\"4\"}", null) + "]",
                "[" + container("{\"cpu\":\"2\"}", null) + "]", ""));
        assertThat(f.requests().amount("cpu")).isEqualByComparingTo("5");
    }

    @Test
    void overheadIsAddedAndQuantitiesUseBaseUnits() throws Exception {
        // two containers 500m + 1500m = 2 cpu, 1Gi + 512Mi; overhead 250m / 120Mi
        var f = read(pod(null, "[" + container("{\"cpu\":\"500m\",\"memory\":\"1Gi\"}", null) + ","
                        + container("{\"cpu\":\"1500m\",\"memory\":\"512Mi\",\"nvidia.com/gpu\":\"2\"}", null) + "]",
                ",\"overhead\":{\"cpu\":\"250m\",\"memory\":\"120Mi\"}"));
        assertThat(f.requests().amount("cpu")).isEqualByComparingTo("2.25");
        assertThat(f.requests().amount("memory")).isEqualByComparingTo(BigDecimal.valueOf((1L << 30) + (512L << 20) + (120L << 20)));
        assertThat(f.requests().gpus()).isEqualTo(2);
        assertThat(f.requests().amounts()).doesNotContainKey("ephemeral-storage");
    }

    @Test
    void podWithoutRequestsHasNone() throws Exception {
        var f = read("{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}}");
        assertThat(f.requests().amounts()).isEmpty();
        assertThat(f.requests().gpus()).isZero();
    }

    @Test
    void badQuantityNamesThePath() {
        assertThatThrownBy(() -> read(pod(null, "[" + container("{\"nvidia.com/gpu\":\"lots\"}", null) + "]", "")))
                .isInstanceOf(WireFormatException.class)
                .hasMessage("test: Pod.spec.containers[0].resources.requests.nvidia.com/gpu: \"lots\" is not a Kubernetes quantity")
                .extracting(e -> ((WireFormatException) e).kind()).isEqualTo(WireFormatException.Kind.WRONG_TYPE);
    }

    @Test
    void labelOfWrongTypeNamesPathAndColumn() {
        // the 1 after "a": is the 39th character of the one-line body below (1-based columns)
        String body = "{\"metadata\":{\"name\":\"p\",\"labels\":{\"a\":1}}}";
        assertThatThrownBy(() -> read(body))
                .isInstanceOf(WireFormatException.class)
                .hasMessage("test: Pod.metadata.labels.a must be a string, got a number at line 1, column 39");
    }

    @Test
    void gangFromVolcanoAnnotationThenCoschedulingLabels() {
        assertThat(GangRef.of("ns", Map.of(GangRef.COSCHEDULING_LABEL, "x"), Map.of(GangRef.VOLCANO_GROUP_ANNOTATION, "pg-1")))
                .isEqualTo(new GangRef("ns", "pg-1", GangRef.Convention.VOLCANO));
        assertThat(GangRef.of("ns", Map.of(GangRef.COSCHEDULING_LABEL, "pg-2"), Map.of()))
                .isEqualTo(new GangRef("ns", "pg-2", GangRef.Convention.COSCHEDULING));
        assertThat(GangRef.of("ns", Map.of(GangRef.COSCHEDULING_LEGACY_LABEL, "pg-3"), Map.of()))
                .isEqualTo(new GangRef("ns", "pg-3", GangRef.Convention.COSCHEDULING));
        assertThat(GangRef.of("ns", Map.of(), Map.of(GangRef.VOLCANO_GROUP_ANNOTATION, " "))).isNull();
    }
}
