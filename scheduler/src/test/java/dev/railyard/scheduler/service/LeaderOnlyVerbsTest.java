package dev.railyard.scheduler.service;

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
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** A standby refuses the deciding verbs with 503 and keeps answering the others; the leader answers all. */
class LeaderOnlyVerbsTest {
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final AtomicReference<String> standby = new AtomicReference<>("railyard-1 is a standby: the leader is railyard-0 "
            + "(Lease railyard-system/railyard)");
    final LeaderOnlyVerbs gate = new LeaderOnlyVerbs(() -> Optional.ofNullable(standby.get()), registry);
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
}
