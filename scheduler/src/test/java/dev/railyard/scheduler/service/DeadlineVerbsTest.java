package dev.railyard.scheduler.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.railyard.scheduler.protocol.BindDecision;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.input.RateLimitedLog;
import dev.railyard.scheduler.protocol.PlacementDecisions;
import dev.railyard.scheduler.protocol.PodRef;
import dev.railyard.scheduler.protocol.RecordingDecisions;
import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.WireResources;
import dev.railyard.scheduler.protocol.kube.Binder;
import dev.railyard.scheduler.protocol.kube.KubeExtender;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The deciding verbs answer within their deadline whatever the state behind them does (issue 15, docs/serve.md
 * "Deadlines, and which way each verb fails"): a kube {@code filter} stuck behind the API server passes every node
 * (fail open), a stuck {@code bind} is refused (fail closed) and never reaches the Binder, a quick verb passes
 * through untouched. Filter and prioritize answer on the HTTP server's I/O thread by default, where no wait is
 * possible: there the deadline counts late answers and the fallback applies with {@code --decide-on-io-threads=false}
 * (docs/adr/0017-netty-transport.md, "Verbs on the event loop"). Overruns are logged at most once per verb every
 * 10 s, on a clock the test moves.
 */
class DeadlineVerbsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration DEADLINE = Duration.ofMillis(200);
    /** Generous: a loaded 2-core machine schedules virtual threads late; the stuck verb would take 10 s. */
    private static final long WITHIN_MILLIS = DEADLINE.toMillis() + 800;

    private final CountDownLatch unstick = new CountDownLatch(1);
    private final List<String> binds = Collections.synchronizedList(new ArrayList<>());
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AtomicLong clock = new AtomicLong();
    private final List<String> warnings = Collections.synchronizedList(new ArrayList<>());
    private final RateLimitedLog log = new RateLimitedLog(Duration.ofSeconds(10), clock::get,
            (level, line, thrown) -> warnings.add(level + " " + line));

    /** Decisions whose filter and bind admission block (as over an API server that does not answer). */
    private PlacementDecisions stuck() {
        return new RecordingDecisions() {
            @Override
            public List<NodeVerdict> filter(ExtenderPod pod, List<String> nodeNames) {
                await();
                return nodeNames.stream().map(n -> new NodeVerdict(n, List.of(new dev.railyard.scheduler.engine.Reason(
                        dev.railyard.scheduler.engine.ReasonCode.POOL_EXHAUSTED, "IP pool exhausted", "late"))))
                        .toList();
            }

            @Override
            public BindDecision admitBind(PodRef pod, String nodeName) {
                await();
                return BindDecision.admit(Map.of(), null);
            }
        };
    }

    private void await() {
        try {
            unstick.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** As {@code serve --decide-on-io-threads=false}: every verb on its own thread, so the deadline can answer. */
    private Map<String, VerbHandler> gated(PlacementDecisions decisions) {
        Map<String, VerbHandler> own = new java.util.LinkedHashMap<>();
        new KubeExtender(decisions, (pod, node, a) -> binds.add(pod + " -> " + node), 50, registry).verbs()
                .forEach((verb, h) -> own.put(verb, VerbHandler.offIoThread(h)));
        return gated(own);
    }

    private Map<String, VerbHandler> gated(Map<String, VerbHandler> verbs) {
        Binder binder = (pod, node, a) -> binds.add(pod + " -> " + node);
        Map<String, VerbHandler> fallbacks = new KubeExtender(new DeadlineFallbacks(50, DEADLINE), binder, 50,
                registry).verbs();
        return new DeadlineVerbs(registry, log).gate("kube", verbs, fallbacks, LeaderOnlyVerbs.KUBE, DEADLINE);
    }

    @Test
    void aStuckFilterPassesEveryNodeWithinTheDeadline() throws Exception {
        VerbHandler filter = gated(stuck()).get("filter");
        long start = System.nanoTime();
        JsonNode reply = JSON.readTree(filter.handle(WireResources.load("kube/filter-nodenames.json")).body());
        long millis = (System.nanoTime() - start) / 1_000_000;
        unstick.countDown();
        assertThat(millis).isBetween(DEADLINE.toMillis(), WITHIN_MILLIS);
        // filter-nodenames.json asks about gpu-a-017, gpu-a-018 and gpu-b-003: fail open, all pass
        assertThat(reply.path("NodeNames")).extracting(JsonNode::asText)
                .containsExactly("gpu-a-017", "gpu-a-018", "gpu-b-003");
        assertThat(registry.get("railyard_deadline_answers").tag("verb", "filter").counter().count()).isEqualTo(1);
    }

    @Test
    void aStuckBindIsRefusedWithinTheDeadlineAndBindsNothing() throws Exception {
        VerbHandler bind = gated(stuck()).get("bind");
        long start = System.nanoTime();
        JsonNode reply = JSON.readTree(bind.handle(WireResources.load("kube/bind.json")).body());
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertThat(millis).isBetween(DEADLINE.toMillis(), WITHIN_MILLIS);
        assertThat(reply.path("Error").asText()).isEqualTo("Railyard gave no answer within its 200 ms deadline: "
                + "bind of ml/bert-finetune-0 to gpu-a-017 not confirmed; the scheduler retries");
        assertThat(binds).isEmpty();
        assertThat(registry.get("railyard_deadline_answers").tag("verb", "bind").counter().count()).isEqualTo(1);
        unstick.countDown();
    }

    @Test
    void aFilterOnTheIoThreadRunsOnTheCallersThreadAndALateAnswerIsCountedNotReplaced() throws Exception {
        List<Thread> ran = Collections.synchronizedList(new ArrayList<>());
        PlacementDecisions slow = new RecordingDecisions() {
            @Override
            public List<NodeVerdict> filter(ExtenderPod pod, List<String> nodeNames) {
                ran.add(Thread.currentThread());
                try {
                    Thread.sleep(DEADLINE.toMillis() + 100); // stands for a long CPU-bound judgement
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return nodeNames.stream().map(n -> new NodeVerdict(n, List.of(new dev.railyard.scheduler.engine
                        .Reason(dev.railyard.scheduler.engine.ReasonCode.POOL_EXHAUSTED, "IP pool exhausted",
                        "late")))).toList();
            }
        };
        Map<String, VerbHandler> verbs = gated(new KubeExtender(slow, (pod, node, a) -> { }, 50, registry).verbs());
        VerbHandler filter = verbs.get("filter");
        assertThat(filter.threading()).isEqualTo(VerbHandler.Threading.IO_THREAD);
        assertThat(verbs.get("bind").threading()).isEqualTo(VerbHandler.Threading.OWN_THREAD);
        JsonNode reply = JSON.readTree(filter.handle(WireResources.load("kube/filter-nodenames.json")).body());
        assertThat(ran).containsExactly(Thread.currentThread());
        // the verb's own (late) answer, not the fail-open fallback: every node refused with its reason
        assertThat(reply.path("NodeNames")).isEmpty();
        assertThat(reply.path("FailedNodes").path("gpu-a-017").asText()).contains("late");
        assertThat(registry.get("railyard_deadline_late_answers").tag("verb", "filter").counter().count())
                .isEqualTo(1);
        assertThat(registry.find("railyard_deadline_answers").tag("verb", "filter").counter()).isNull();
        // slept 200 + 100 ms: "answered in" at least 300 ms, past the 200 ms deadline
        assertThat(warnings).singleElement().asString().matches("WARN kube filter answered in ([3-9]\\d{2}|\\d{4,}) ms, "
                + "past its 200 ms deadline \\(it runs on the I/O thread, without a fallback\\)");
    }

    @Test
    void overrunsAreLoggedOncePerVerbEveryTenSecondsAndTheNextLineCountsTheOthers() throws Exception {
        Map<String, VerbHandler> verbs = gated(stuck());
        byte[] filterBody = WireResources.load("kube/filter-nodenames.json");
        for (int i = 0; i < 3; i++) {
            verbs.get("filter").handle(filterBody);
        }
        verbs.get("bind").handle(WireResources.load("kube/bind.json"));
        clock.addAndGet(10_000_000_000L); // the filter's window ends 10 s after its first line
        verbs.get("filter").handle(filterBody);
        unstick.countDown();
        // 4 filter overruns: the 1st written, the 2nd and 3rd counted in the 4th's line; the bind has its own window;
        // the fallbacks as DeadlineFallbacks.describe says: "neutral" for filter, "refused; ..." for bind
        assertThat(warnings).containsExactly(
                "WARN kube filter gave no answer within 200 ms: answered with its fallback (neutral)",
                "WARN kube bind gave no answer within 200 ms: answered with its fallback (refused; the scheduler "
                        + "retries)",
                "WARN kube filter gave no answer within 200 ms: answered with its fallback (neutral)"
                        + " (and 2 more like it in the 10 s after the previous one)");
        assertThat(registry.get("railyard_deadline_answers").tag("verb", "filter").counter().count()).isEqualTo(4);
    }

    @Test
    void aQuickVerbPassesThrough() throws Exception {
        unstick.countDown();
        JsonNode reply = JSON.readTree(gated(stuck()).get("filter")
                .handle(WireResources.load("kube/filter-nodenames.json")).body());
        assertThat(reply.path("NodeNames")).isEmpty();
        assertThat(reply.path("FailedNodes").path("gpu-a-017").asText()).contains("late");
    }
}
