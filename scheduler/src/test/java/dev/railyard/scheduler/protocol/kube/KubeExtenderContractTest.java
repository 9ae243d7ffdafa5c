package dev.railyard.scheduler.protocol.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.GangRef;
import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.engine.Status;
import dev.railyard.scheduler.input.RateLimitedLog;
import dev.railyard.scheduler.protocol.BindDecision;
import dev.railyard.scheduler.protocol.PodRef;
import dev.railyard.scheduler.protocol.RecordingDecisions;
import dev.railyard.scheduler.protocol.WireFormatException;
import dev.railyard.scheduler.protocol.WireReply;
import dev.railyard.scheduler.protocol.WireResources;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * kube-scheduler extender v1 verbs against bodies shaped like kube-scheduler's (src/test/resources/wire/kube,
 * composed from kube-scheduler extender/v1/types.go: Go field-name keys, full Pod and Node objects).
 */
class KubeExtenderContractTest {
    final RecordingDecisions port = new RecordingDecisions();
    final List<String> binds = new ArrayList<>();
    Binder binder = (pod, node, ann) -> binds.add(pod + " -> " + node + " " + ann);

    KubeExtender extender() {
        return new KubeExtender(port, (p, n, a) -> binder.bind(p, n, a), 50, new SimpleMeterRegistry());
    }

    static String text(WireReply r) {
        assertThat(r.status()).isEqualTo(200);
        return r.bodyText();
    }

    void wireFormatsExampleVerdicts() {
        // the filter exchange of docs/formats/kube-extender.md §1: an Unschedulable node goes under FailedNodes,
        // an UnschedulableAndUnresolvable one under FailedAndUnresolvableNodes (preemption skips it, §3)
        port.verdict = (p, n) -> switch (n) {
            case "gpu-a-018" -> RecordingDecisions.verdict(n, Status.Code.UNSCHEDULABLE, "rail 3 IP pool exhausted");
            case "gpu-b-003" -> RecordingDecisions.verdict(n, Status.Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                    "no RDMA NIC under GPU PCIe switch");
            default -> NodeVerdict.pass(n);
        };
    }

    @Test
    void filterWithNodeCacheReturnsNodeNamesAndBothFailureMaps() throws Exception {
        wireFormatsExampleVerdicts();
        String reply = text(extender().filter(WireResources.load("kube/filter-nodenames.json")));

        assertThat(reply).isEqualTo("{\"Nodes\":null,\"NodeNames\":[\"gpu-a-017\"],"
                + "\"FailedNodes\":{\"gpu-a-018\":\"rail 3 IP pool exhausted\"},"
                + "\"FailedAndUnresolvableNodes\":{\"gpu-b-003\":\"no RDMA NIC under GPU PCIe switch\"},\"Error\":\"\"}");
        assertThat(port.nodeLists).containsExactly(List.of("gpu-a-017", "gpu-a-018", "gpu-b-003"));
        ExtenderPod pod = port.pods.getFirst();
        assertThat(pod.ref()).isEqualTo(new PodRef("ml", "bert-finetune-0", "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f"));
        assertThat(pod.gang()).isEqualTo(new GangRef("ml", "bert-finetune-pg", GangRef.Convention.COSCHEDULING));
        assertThat(pod.volcanoTask()).isNull();
        assertThat(pod.schedulerName()).isEqualTo("default-scheduler");
        assertThat(pod.annotations()).containsEntry("railyard.dev/launch", "torchrun <rdzv> && echo done > /tmp/x");
        // requests 48 cpu + overhead 250m; 4 GPUs; one device each of mlx5_2 and mlx5_3
        assertThat(pod.requests().amount("cpu")).isEqualByComparingTo("48.25");
        assertThat(pod.requests().gpus()).isEqualTo(4);
        assertThat(pod.requests().hcaDevices()).isEqualTo(Map.of("nvidia.com/mlx5_2", 1L, "nvidia.com/mlx5_3", 1L));
    }

    @Test
    void filterWithoutNodeCacheEchoesThePassingNodeObjectsUnchanged() throws Exception {
        wireFormatsExampleVerdicts();
        byte[] body = WireResources.load("kube/filter-nodes.json");
        String reply = text(extender().filter(body));

        ObjectMapper json = new ObjectMapper();
        JsonNode in = json.readTree(body);
        JsonNode out = json.readTree(reply);
        assertThat(out.get("NodeNames").isNull()).isTrue();
        assertThat(out.get("Nodes").get("items")).hasSize(1);
        assertThat(out.get("Nodes").get("items").get(0)).isEqualTo(in.get("Nodes").get("items").get(0));
        // byte for byte: the first item as it appears in the request, \u003c escapes and all
        String requestText = new String(body, StandardCharsets.UTF_8);
        int start = requestText.indexOf("{\"metadata\":{\"name\":\"gpu-a-017\"");
        int end = requestText.indexOf(",{\"metadata\":{\"name\":\"gpu-a-018\"");
        assertThat(reply).contains(requestText.substring(start, end));
        assertThat(out.get("FailedNodes").get("gpu-a-018").asText()).isEqualTo("rail 3 IP pool exhausted");
        assertThat(out.get("FailedAndUnresolvableNodes").get("gpu-b-003").asText()).isEqualTo("no RDMA NIC under GPU PCIe switch");
        assertThat(out.get("Error").asText()).isEmpty();
    }

    @Test
    void reasonsAreWrittenAsTheReplysGeneratorEscapesThemOnEveryCall() throws Exception {
        // what JSON must escape (quote, backslash, control characters) and UTF-8 of two, three and four bytes; the
        // second reason adds a lone surrogate, which cannot be read back but must be written as before
        String reason = "pool \"rail-3\" C:\\x\nline\ttab\u0001 é € 😀 end";
        String lone = reason + " \ud800";
        port.known = dev.railyard.scheduler.protocol.KnownNames.of(List.of("gpu-a-017", "gpu-a-018", "gpu-b-003"));
        NodeVerdict refused = RecordingDecisions.verdict("gpu-a-018", Status.Code.UNSCHEDULABLE, reason);
        NodeVerdict unresolvable = RecordingDecisions.verdict("gpu-b-003", Status.Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                lone);
        port.verdict = (p, n) -> n.equals("gpu-a-018") ? refused : n.equals("gpu-b-003") ? unresolvable
                : NodeVerdict.pass(n);
        // what the reply held before reasons were kept encoded: Jackson's own writeString on a UTF-8 generator
        java.io.ByteArrayOutputStream expected = new java.io.ByteArrayOutputStream();
        try (var g = new com.fasterxml.jackson.core.JsonFactory().createGenerator(expected)) {
            g.writeStartObject();
            g.writeObjectFieldStart("FailedNodes");
            g.writeStringField("gpu-a-018", reason);
            g.writeEndObject();
            g.writeObjectFieldStart("FailedAndUnresolvableNodes");
            g.writeStringField("gpu-b-003", lone);
            g.writeEndObject();
            g.writeEndObject();
        }
        String failed = expected.toString(StandardCharsets.ISO_8859_1); // one char per byte: compared byte for byte
        failed = failed.substring(1, failed.length() - 1);

        KubeExtender kube = extender();
        byte[] first = kube.filter(WireResources.load("kube/filter-nodenames.json")).body();
        byte[] second = kube.filter(WireResources.load("kube/filter-nodenames.json")).body();

        assertThat(new String(first, StandardCharsets.ISO_8859_1)).contains(failed);
        assertThat(second).isEqualTo(first);
        assertThat(new ObjectMapper().readTree(first).get("FailedNodes").get("gpu-a-018").asText())
                .isEqualTo(reason);
    }

    @Test
    void noNodePassingStillSendsAnEmptyNodeNamesList() throws Exception {
        // a reply with neither NodeNames nor Nodes filters every node out in kube-scheduler, so send [] explicitly
        port.verdict = (p, n) -> RecordingDecisions.verdict(n, Status.Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                "no topology match");
        String reply = text(extender().filter(WireResources.load("kube/filter-nodenames.json")));
        assertThat(reply).startsWith("{\"Nodes\":null,\"NodeNames\":[],\"FailedNodes\":{},");
    }

    @Test
    void anErrorVerdictFillsErrorSoKubeSchedulerFailsTheAttemptAsForAFrameworkError() throws Exception {
        // pkg/scheduler/extender.go (v1.35.4) Filter: a non-empty Error fails the call; the maps are not read
        port.verdict = (p, n) -> n.equals("gpu-a-018")
                ? RecordingDecisions.verdict(n, Status.Code.ERROR, "internal error: topology unreadable")
                : NodeVerdict.pass(n);
        String reply = text(extender().filter(WireResources.load("kube/filter-nodenames.json")));
        assertThat(new ObjectMapper().readTree(reply).get("Error").asText())
                .isEqualTo("gpu-a-018: internal error: topology unreadable");
        assertThat(reply).contains("\"FailedNodes\":{},\"FailedAndUnresolvableNodes\":{}");
    }

    @Test
    void prioritizeScalesToZeroToTen() throws Exception {
        Map<String, Integer> scores = Map.of("gpu-a-017", 80, "gpu-a-018", 35, "gpu-b-003", 0);
        port.score = (p, n) -> scores.get(n);
        String expected = "[{\"Host\":\"gpu-a-017\",\"Score\":8},{\"Host\":\"gpu-a-018\",\"Score\":4},{\"Host\":\"gpu-b-003\",\"Score\":0}]";
        assertThat(text(extender().prioritize(WireResources.load("kube/prioritize-nodenames.json")))).isEqualTo(expected);
        assertThat(text(extender().prioritize(WireResources.load("kube/prioritize-nodes.json")))).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({"0,0", "4,0", "5,1", "50,5", "54,5", "55,6", "95,10", "100,10"})
    void scoreRoundsHalfUp(int score, int priority) {
        assertThat(KubeExtender.toExtenderPriority(score)).isEqualTo(priority);
    }

    @Test
    void bindCarriesTheHintsToTheBinder() throws Exception {
        port.hints = Map.of("railyard.dev/rails", "0,1,2,3");
        String reply = text(extender().bind(WireResources.load("kube/bind.json")));
        assertThat(reply).isEqualTo("{\"Error\":\"\"}");
        assertThat(port.events).containsExactly("hints ml/bert-finetune-0 gpu-a-017");
        assertThat(binds).containsExactly("ml/bert-finetune-0 -> gpu-a-017 {railyard.dev/rails=0,1,2,3}");
    }

    @Test
    void aFailedBindGoesBackAsError() throws Exception {
        binder = Binder.unwired();
        String reply = text(extender().bind(WireResources.load("kube/bind.json")));
        assertThat(reply).isEqualTo("{\"Error\":\"railyard cannot bind ml/bert-finetune-0 to gpu-a-017: this instance runs "
                + "without a Kubernetes client (bind is not wired)\"}");
    }

    @Test
    void refusedAndFailedBindsAreLoggedOncePerKindEveryTenSecondsWithTheCountOfTheOthers() throws Exception {
        AtomicLong clock = new AtomicLong();
        List<String> lines = new ArrayList<>();
        RateLimitedLog log = new RateLimitedLog(Duration.ofSeconds(10), clock::get,
                (level, line, thrown) -> lines.add(level + " " + line));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        boolean[] refuse = {true};
        RecordingDecisions refusing = new RecordingDecisions() {
            @Override
            public BindDecision admitBind(PodRef pod, String nodeName) {
                return refuse[0] ? BindDecision.refuse("unknown_pod", "no such pod " + pod.name())
                        : BindDecision.admit(Map.of(), null);
            }
        };
        KubeExtender ext = new KubeExtender(refusing, Binder.unwired(), 50, registry, log);
        byte[] body = WireResources.load("kube/bind.json");
        for (int i = 0; i < 500; i++) {
            assertThat(text(ext.bind(body))).isEqualTo("{\"Error\":\"no such pod bert-finetune-0\"}");
        }
        refuse[0] = false;
        for (int i = 0; i < 500; i++) {
            ext.bind(body); // admitted, then the unwired Binder fails it
        }
        clock.addAndGet(10_000_000_000L);
        ext.bind(body);
        // kube/bind.json: ml/bert-finetune-0 to gpu-a-017. 500 refused: 1 line at INFO; 501 failed: the 1st at WARN,
        // then the 501st 10 s later, counting the 499 between
        String failed = "WARN kube bind ml/bert-finetune-0 to gpu-a-017 failed: railyard cannot bind "
                + "ml/bert-finetune-0 to gpu-a-017: this instance runs without a Kubernetes client (bind is not wired)";
        assertThat(lines).containsExactly(
                "INFO kube bind ml/bert-finetune-0 to gpu-a-017 refused: no such pod bert-finetune-0", failed,
                failed + " (and 499 more like it in the 10 s after the previous one)");
        // the counter stays per request
        assertThat(registry.get("railyard.decisions").tag("verb", "bind").tag("outcome", "failed").counter().count())
                .isEqualTo(501.0);
    }

    @Test
    void badRequestsNameWhatIsMissing() {
        assertThatThrownBy(() -> extender().filter("{\"Pod\":null,\"NodeNames\":[\"a\"]}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(WireFormatException.class).hasMessage("kube filter: request has no \"Pod\" (or it is null)");
        assertThatThrownBy(() -> extender().filter(
                "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"n\"}},\"Nodes\":null,\"NodeNames\":null}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(WireFormatException.class).hasMessage("kube filter: request has neither \"NodeNames\" nor \"Nodes\"");
        // the 7 is the 67th character of this one-line body
        assertThatThrownBy(() -> extender().filter(
                "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"n\"}},\"NodeNames\":[\"a\",7]}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(WireFormatException.class)
                .hasMessage("kube filter: NodeNames[1] must be a string, got a number at line 1, column 67");
        assertThatThrownBy(() -> extender().bind("{\"PodName\":\"p\",\"PodNamespace\":\"n\"}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(WireFormatException.class).hasMessage("kube bind: request has no Node");
    }
}
