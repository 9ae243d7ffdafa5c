package dev.railyard.scheduler.service;

import dev.railyard.scheduler.input.RateLimitedLog;
import dev.railyard.scheduler.protocol.NeutralPlacementDecisions;
import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.WireReply;
import dev.railyard.scheduler.protocol.WireResources;
import dev.railyard.scheduler.protocol.kube.Binder;
import dev.railyard.scheduler.protocol.kube.KubeExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A standby refuses the deciding verbs with 503 and keeps answering the others; the leader answers all. Refusals are
 * logged at most once per verb every 10 s, on a clock the test moves.
 */
class LeaderOnlyVerbsTest {
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final AtomicReference<String> standby = new AtomicReference<>("railyard-1 is a standby: the leader is railyard-0 "
            + "(Lease railyard-system/railyard)");
    final AtomicLong clock = new AtomicLong();
    final List<String> warnings = new ArrayList<>();
    final LeaderOnlyVerbs gate = new LeaderOnlyVerbs(() -> Optional.ofNullable(standby.get()), registry,
            new RateLimitedLog(Duration.ofSeconds(10), clock::get,
                    (level, line, thrown) -> warnings.add(level + " " + line)));
    final NeutralPlacementDecisions decisions = new NeutralPlacementDecisions(50, "test");

    Map<String, VerbHandler> volcano() {
        return gate.gate("volcano", new VolcanoExtender(decisions, VolcanoSettings.DEFAULTS, registry).verbs(),
                LeaderOnlyVerbs.VOLCANO);
    }

    static String text(WireReply r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    @Test
    void standbyRefusesEveryDecidingVerbWithTheLeadersName() throws Exception {
        Map<String, VerbHandler> v = volcano();
        for (String verb : LeaderOnlyVerbs.VOLCANO) {
            WireReply r = v.get(verb).handle("{}".getBytes(StandardCharsets.UTF_8));
            assertThat(r.status()).as(verb).isEqualTo(503);
            assertThat(text(r)).isEqualTo("volcano " + verb + ": railyard-1 is a standby: the leader is railyard-0 "
                    + "(Lease railyard-system/railyard); only the leader decides\n");
        }
        Map<String, VerbHandler> k = gate.gate("kube",
                new KubeExtender(decisions, Binder.unwired(), 50, registry).verbs(), LeaderOnlyVerbs.KUBE);
        assertThat(k.get("filter").handle(new byte[0]).status()).isEqualTo(503);
        assertThat(k.get("bind").handle(new byte[0]).status()).isEqualTo(503);
        assertThat(registry.get("railyard_standby_refusals").tag("protocol", "volcano").tag("verb", "predicate")
                .counter().count()).isEqualTo(1.0);
        assertThat(registry.get("railyard_standby_refusals").tag("protocol", "kube").tag("verb", "bind")
                .counter().count()).isEqualTo(1.0);
    }

    @Test
    void standbyKeepsAnsweringTheVerbsWhoseErrorWouldHarm() throws Exception {
        Map<String, VerbHandler> v = volcano();
        // docs/formats/volcano-extender.md §4: an onSessionOpen error drops the extender for the session, a
        // preemptable error means "no victims", a queueOverused error with ignorable=false marks the queue overused
        assertThat(text(v.get("onSessionOpen").handle(new byte[0]))).isEqualTo("{}");
        assertThat(v.get("onSessionOpen").readsBody()).isFalse();
        assertThat(v.get("preemptable").handle(new byte[0]).status()).isEqualTo(200);
        assertThat(v.get("queueOverused").handle("{}".getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(200);
        assertThat(v.keySet()).containsExactlyElementsOf(
                new VolcanoExtender(decisions, VolcanoSettings.DEFAULTS, registry).verbs().keySet());
    }

    @Test
    void leaderAnswersFromTheEngine() throws Exception {
        standby.set(null);
        // a real predicate body; the neutral decisions pass the node: {"status":"","code":0} (v1.10+ reply)
        WireReply r = volcano().get("predicate").handle(WireResources.load("volcano/predicate-v1.15.json"));
        assertThat(r.status()).isEqualTo(200);
        assertThat(text(r)).isEqualTo("{\"status\":\"\",\"code\":0}");
        assertThat(registry.find("railyard_standby_refusals").counters())
                .allSatisfy(c -> assertThat(c.count()).isZero());
    }

    @Test
    void aFloodOfRefusalsIsOneLinePerVerbAndTheNextWindowCountsIt() throws Exception {
        Map<String, VerbHandler> v = volcano();
        byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < 1000; i++) {
            assertThat(v.get("predicate").handle(body).status()).isEqualTo(503);
        }
        v.get("jobReady").handle(body); // another verb: its own window
        clock.addAndGet(10_000_000_000L);
        v.get("predicate").handle(body);
        String line = "refused with 503 (a scheduler reached a standby; check the Service routes to the leader only): "
                + "volcano %s: railyard-1 is a standby: the leader is railyard-0 (Lease railyard-system/railyard); "
                + "only the leader decides";
        // 1,001 predicate refusals: the 1st and the 1,001st written, the 999 between counted in the latter
        assertThat(warnings).containsExactly("WARN " + line.formatted("predicate"),
                "WARN " + line.formatted("jobReady"),
                "WARN " + line.formatted("predicate") + " (and 999 more like it in the 10 s after the previous one)");
        assertThat(registry.get("railyard_standby_refusals").tag("verb", "predicate").counter().count())
                .isEqualTo(1001.0);
    }
}
