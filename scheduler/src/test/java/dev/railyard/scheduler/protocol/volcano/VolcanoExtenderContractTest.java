package dev.railyard.scheduler.protocol.volcano;

import dev.railyard.scheduler.engine.NodeScore;
import dev.railyard.scheduler.engine.Status;
import dev.railyard.scheduler.protocol.AllocationVerdict;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.GangJob;
import dev.railyard.scheduler.protocol.GangReadiness;
import dev.railyard.scheduler.protocol.GangRef;
import dev.railyard.scheduler.protocol.GangVerdict;
import dev.railyard.scheduler.protocol.NeutralPlacementDecisions;
import dev.railyard.scheduler.protocol.PlacementDecisions;
import dev.railyard.scheduler.protocol.PodRef;
import dev.railyard.scheduler.protocol.RecordingDecisions;
import dev.railyard.scheduler.protocol.VolcanoTask;
import dev.railyard.scheduler.protocol.WireFormatException;
import dev.railyard.scheduler.protocol.WireReply;
import dev.railyard.scheduler.protocol.WireResources;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every Volcano verb against request bodies shaped like Volcano's (src/test/resources/wire/volcano, composed as
 * docs/formats/volcano-extender.md §6 describes: Go field-name keys, full Node and Pods with managedFields, sorted map
 * keys, \u003c escapes). Expected replies follow argument.go's response structs at each release (§3, §4).
 */
class VolcanoExtenderContractTest {
    static final String PG = "pretrain-7b-0c1e5b7a-93f2-4b7e-a1d4-5e6f7a8b9c0d";
    static final String WORKER3_UID = "6f1c2b7e-2d0a-4c55-9a8e-1b2f3c4d5e03";

    final RecordingDecisions port = new RecordingDecisions();
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    VolcanoExtender extender(VolcanoSettings s) {
        return new VolcanoExtender(port, s, registry);
    }

    VolcanoExtender extender() {
        return extender(VolcanoSettings.DEFAULTS);
    }

    static String text(WireReply r) {
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.contentType()).isEqualTo(WireReply.JSON);
        return r.bodyText();
    }

    @ParameterizedTest
    @ValueSource(strings = {"v1.6", "v1.10", "v1.15", "v1.16-alpha"})
    void predicateReadsTaskIdentityPodAndNodeInEveryReleaseShape(String release) throws Exception {
        String reply = text(extender().predicate(WireResources.load("volcano/predicate-" + release + ".json")));

        assertThat(reply).isEqualTo("{\"status\":\"\",\"code\":0}");
        assertThat(port.nodeLists).containsExactly(List.of("gpu-a-017"));
        ExtenderPod pod = port.pods.getFirst();
        assertThat(pod.ref()).isEqualTo(new PodRef("llm", "pretrain-7b-worker-3", WORKER3_UID));
        assertThat(pod.schedulerName()).isEqualTo("volcano");
        assertThat(pod.labels()).containsEntry("volcano.sh/task-spec", "worker").containsEntry("volcano.sh/task-index", "3");
        // the body has \u003c \u003e \u0026 escapes; the value must come out decoded
        assertThat(pod.annotations()).containsEntry("railyard.dev/launch", "torchrun --nnodes=4 <rdzv> && echo done > /tmp/x")
                .containsEntry("k8s.v1.cni.cncf.io/networks", "rail0,rail1,rail2,rail3,rail4,rail5,rail6,rail7");
        assertThat(pod.gang()).isEqualTo(new GangRef("llm", PG, GangRef.Convention.VOLCANO));
        assertThat(pod.volcanoTask()).isEqualTo(new VolcanoTask("llm/" + PG, "worker", 1, ""));
        assertThat(pod.requests().gpus()).isEqualTo(8);
    }

    @ParameterizedTest(name = "{0} {1} -> {3}")
    @CsvSource(delimiter = '|', value = {
            // dialect | code | reason | exact reply (argument.go PredicateResponse at v1.6.0 / v1.8.0 / v1.10.0;
            // codes of pkg/scheduler/api/types.go: 0 Success, 1 Error, 2 Unschedulable, 3 UnschedulableAndUnresolvable,
            // whose preempt and reclaim actions keep only code 2 as a candidate: docs/formats/volcano-extender.md §4)
            "V1_10 | SUCCESS                        |                              | {\"status\":\"\",\"code\":0}",
            "V1_10 | UNSCHEDULABLE                  | pool rail5-pool exhausted    | {\"status\":\"pool rail5-pool exhausted\",\"code\":2}",
            "V1_10 | UNSCHEDULABLE_AND_UNRESOLVABLE | no resource nvidia.com/mlx5_3 | {\"status\":\"no resource nvidia.com/mlx5_3\",\"code\":3}",
            "V1_10 | ERROR                          | internal error               | {\"status\":\"internal error\",\"code\":1}",
            "V1_8  | SUCCESS                        |                              | {\"status\":[]}",
            "V1_8  | UNSCHEDULABLE                  | GPUs busy                    | {\"status\":[{\"Code\":2,\"Reason\":\"GPUs busy\",\"Plugin\":\"railyard\"}]}",
            "V1_8  | UNSCHEDULABLE_AND_UNRESOLVABLE | no HCA under the PCIe switch | {\"status\":[{\"Code\":3,\"Reason\":\"no HCA under the PCIe switch\",\"Plugin\":\"railyard\"}]}",
            "V1_6  | SUCCESS                        |                              | {\"errorMessage\":\"\"}",
            "V1_6  | UNSCHEDULABLE_AND_UNRESOLVABLE | no HCA under the PCIe switch | {\"errorMessage\":\"no HCA under the PCIe switch\"}",
    })
    void predicateReplyShapePerRelease(VolcanoReplyDialect dialect, Status.Code code, String reason,
                                       String expected) throws Exception {
        port.verdict = (p, n) -> RecordingDecisions.verdict(n, code, reason);
        String reply = text(extender(new VolcanoSettings(1.0, dialect, 50))
                .predicate(WireResources.load("volcano/predicate-v1.15.json")));
        assertThat(reply).isEqualTo(expected);
    }

    @Test
    void prioritizeSendsScoreTimesWeightForEveryNode() throws Exception {
        Map<String, Integer> scores = Map.of("gpu-a-017", 80, "gpu-a-018", 35, "gpu-b-003", 0);
        port.score = (p, n) -> scores.get(n);
        byte[] body = WireResources.load("volcano/prioritize-v1.15.json");

        assertThat(text(extender().prioritize(body)))
                .isEqualTo("{\"nodeScore\":{\"gpu-a-017\":80,\"gpu-a-018\":35,\"gpu-b-003\":0},\"errorMessage\":\"\"}");
        assertThat(port.nodeLists.getFirst()).containsExactly("gpu-a-017", "gpu-a-018", "gpu-b-003");
        // weight 2.5: 80 -> 200, 35 -> 87.5, 0 -> 0 (Volcano adds these raw floats to the other plugins' scores)
        assertThat(text(extender(new VolcanoSettings(2.5, VolcanoReplyDialect.V1_10, 50)).prioritize(body)))
                .isEqualTo("{\"nodeScore\":{\"gpu-a-017\":200,\"gpu-a-018\":87.5,\"gpu-b-003\":0},\"errorMessage\":\"\"}");
    }

    @Test
    void jobEnqueueableReadsTheGangFromJobInfoTasksOnly() throws Exception {
        port.enqueue = j -> GangVerdict.reject("16 GPUs under one leaf are not free");
        String reply = text(extender().jobEnqueueable(WireResources.load("volcano/jobEnqueueable-v1.15.json")));

        assertThat(reply).isEqualTo("{\"status\":-1}");
        GangJob job = port.jobs.getFirst();
        assertThat(job.jobId()).isEqualTo("llm/" + PG);
        assertThat(job.podGroupUid()).isEqualTo("5d6e7f80-1a2b-4c3d-8e9f-a0b1c2d3e4f5");
        assertThat(job.namespace()).isEqualTo("llm");
        assertThat(job.podGroupName()).isEqualTo(PG);
        assertThat(job.queue()).isEqualTo("research");
        assertThat(job.minAvailable()).isEqualTo(2);
        assertThat(job.taskMinAvailable()).isEqualTo(Map.of("worker", 2));
        // Tasks has 2 entries; TaskStatusIndex repeats them and must not double them
        assertThat(job.tasks()).extracting(p -> p.ref().name()).containsExactly("pretrain-7b-worker-0", "pretrain-7b-worker-1");
        assertThat(job.tasks()).allSatisfy(t -> assertThat(t.gang().podGroupName()).isEqualTo(PG));
    }

    @ParameterizedTest
    @CsvSource({"PERMIT, 1", "ABSTAIN, 0", "REJECT, -1"})
    void jobEnqueueableVotes(GangVerdict.Outcome outcome, int status) throws Exception {
        port.enqueue = j -> new GangVerdict(outcome, "why");
        assertThat(text(extender().jobEnqueueable(WireResources.load("volcano/jobEnqueueable-v1.15.json"))))
                .isEqualTo("{\"status\":" + status + "}");
    }

    @Test
    void jobReadyAnswersABool() throws Exception {
        byte[] body = WireResources.load("volcano/jobReady-v1.15.json");
        assertThat(text(extender().jobReady(body))).isEqualTo("{\"status\":true}");
        port.ready = j -> GangReadiness.notReady("worker-1 has no rail-3 address yet");
        assertThat(text(extender().jobReady(body))).isEqualTo("{\"status\":false}");
    }

    @Test
    void allocateAndDeallocateReportTheTentativeNode() throws Exception {
        byte[] body = WireResources.load("volcano/allocateFunc-v1.15.json");
        assertThat(text(extender().allocateFunc(body))).isEqualTo("{\"errorMessage\":\"\"}");
        assertThat(port.pods.getFirst().volcanoTask().status()).isEqualTo(VolcanoTask.ALLOCATED);

        port.allocation = AllocationVerdict.veto("rail 5 pool exhausted on gpu-a-017");
        assertThat(text(extender().allocateFunc(body))).isEqualTo("{\"errorMessage\":\"rail 5 pool exhausted on gpu-a-017\"}");

        assertThat(text(extender().deallocateFunc(WireResources.load("volcano/deallocateFunc-v1.15.json"))))
                .isEqualTo("{\"errorMessage\":\"\"}");
        assertThat(port.events).containsExactly(
                "allocated llm/pretrain-7b-worker-3 gpu-a-017",
                "allocated llm/pretrain-7b-worker-3 gpu-a-017",
                "deallocated llm/pretrain-7b-worker-3 gpu-a-017");
    }

    @Test
    void allocateWithoutNodeNameIsBadInput() {
        byte[] body = new String(WireResources.load("volcano/allocateFunc-v1.15.json"), StandardCharsets.UTF_8)
                .replace("\"NodeName\":\"gpu-a-017\",\"EvictionOccurred\"", "\"NodeName\":\"\",\"EvictionOccurred\"")
                .getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> extender().allocateFunc(body)).isInstanceOf(WireFormatException.class)
                .hasMessage("volcano allocateFunc: task.NodeName is empty: an allocation event names the node");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "onSessionOpen  | volcano/onSessionOpen-v1.15.json  | {}",
            "onSessionClose | volcano/onSessionClose.json       | {}",
            "jobEnqueued    | volcano/jobEnqueueable-v1.15.json | {}",
            "preemptable    | volcano/preemptable-v1.15.json    | {\"status\":0,\"victims\":null}",
            "reclaimable    | volcano/reclaimable-v1.15.json    | {\"status\":0,\"victims\":null}",
            "queueOverused  | volcano/queueOverused-v1.15.json  | {\"overused\":false}",
    })
    void verbsAnsweredWithoutReadingTheBody(String verb, String resource, String expected) throws Exception {
        var handler = extender().verbs().get(verb);
        assertThat(handler.readsBody()).isFalse();
        // the server passes an empty array for these verbs; the reply must not depend on the body
        assertThat(text(handler.handle(new byte[0]))).isEqualTo(expected);
        assertThat(text(handler.handle(WireResources.load(resource)))).isEqualTo(expected);
        assertThat(port.pods).isEmpty();
    }

    @Test
    void everyConfigurableVerbIsServed() {
        assertThat(extender().verbs().keySet()).containsExactlyInAnyOrder("predicate", "prioritize", "jobEnqueueable",
                "jobReady", "allocateFunc", "deallocateFunc", "onSessionOpen", "onSessionClose", "jobEnqueued",
                "preemptable", "reclaimable", "queueOverused");
    }

    @Test
    void neutralPortPassesEveryNodeWithTheNeutralScoreAndCountsItAsNeutral() throws Exception {
        PlacementDecisions neutral = new NeutralPlacementDecisions(50, "engine not wired");
        var ext = new VolcanoExtender(neutral, VolcanoSettings.DEFAULTS, registry);
        assertThat(text(ext.predicate(WireResources.load("volcano/predicate-v1.15.json"))))
                .isEqualTo("{\"status\":\"\",\"code\":0}");
        assertThat(text(ext.prioritize(WireResources.load("volcano/prioritize-v1.15.json"))))
                .isEqualTo("{\"nodeScore\":{\"gpu-a-017\":50,\"gpu-a-018\":50,\"gpu-b-003\":50},\"errorMessage\":\"\"}");
        assertThat(text(ext.jobEnqueueable(WireResources.load("volcano/jobEnqueueable-v1.15.json")))).isEqualTo("{\"status\":0}");
        assertThat(text(ext.jobReady(WireResources.load("volcano/jobReady-v1.15.json")))).isEqualTo("{\"status\":true}");
        assertThat(registry.get("railyard.decisions").tag("verb", "predicate").tag("outcome", "neutral").counter().count())
                .isEqualTo(1.0);
        assertThat(registry.get("railyard.decisions").tag("verb", "prioritize").tag("outcome", "neutral").counter().count())
                .isEqualTo(3.0);
    }

    @Test
    void aNodeThePortLeftOutGetsTheNeutralAnswer() throws Exception {
        PlacementDecisions forgetful = new RecordingDecisions() {
            @Override
            public List<NodeScore> score(ExtenderPod pod, List<String> nodeNames) {
                return List.of(new NodeScore("gpu-a-018", 90, List.of()));
            }
        };
        var ext = new VolcanoExtender(forgetful, new VolcanoSettings(1.0, VolcanoReplyDialect.V1_10, 40), registry);
        assertThat(text(ext.prioritize(WireResources.load("volcano/prioritize-v1.15.json"))))
                .isEqualTo("{\"nodeScore\":{\"gpu-a-017\":40,\"gpu-a-018\":90,\"gpu-b-003\":40},\"errorMessage\":\"\"}");
    }

    @Test
    void missingTaskOrNodeIsBadInputNamingTheKey() {
        assertThatThrownBy(() -> extender().predicate("{\"node\":{\"Name\":\"n1\"}}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(WireFormatException.class).hasMessage("volcano predicate: request has no \"task\"");
        String taskOnly = new String(WireResources.load("volcano/allocateFunc-v1.15.json"), StandardCharsets.UTF_8);
        assertThatThrownBy(() -> extender().predicate(taskOnly.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(WireFormatException.class)
                .hasMessage("volcano predicate: request has no \"node\" (or it is null)")
                .extracting(e -> ((WireFormatException) e).kind()).isEqualTo(WireFormatException.Kind.MISSING_FIELD);
        assertThatThrownBy(() -> extender().prioritize("{\"task\":null,\"nodes\":[]}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(WireFormatException.class).hasMessage("volcano prioritize: \"task\" is null");
    }

    @Test
    void nodeNameFallsBackToTheEmbeddedNodeMetadata() throws Exception {
        String body = new String(WireResources.load("volcano/predicate-v1.15.json"), StandardCharsets.UTF_8)
                .replace("\"node\":{\"Name\":\"gpu-a-017\",", "\"node\":{");
        assertThat(body).doesNotContain("\"node\":{\"Name\"");
        extender().predicate(body.getBytes(StandardCharsets.UTF_8));
        assertThat(port.nodeLists).containsExactly(List.of("gpu-a-017"));
    }
}
