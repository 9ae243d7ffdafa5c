package dev.railyard.scheduler.cli;

import dev.railyard.scheduler.protocol.NeutralPlacementDecisions;
import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.kube.Binder;
import dev.railyard.scheduler.protocol.kube.KubeExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code serve --decide-on-io-threads}: by default Filter and Score stay on the I/O thread through the deadline gate
 * (their deadline counts late answers), bind/allocate keep their own thread; {@code false} puts every verb on its own
 * thread, where the deadline fallbacks answer (docs/serve.md, "Deadlines, and which way each verb fails").
 */
class DecideOnIoThreadsTest {
    private static final NeutralPlacementDecisions NEUTRAL = new NeutralPlacementDecisions(50, "test");

    private static FreshnessOptions parsed(String... args) {
        FreshnessOptions o = new FreshnessOptions();
        new CommandLine(o).parseArgs(args);
        return o;
    }

    private static Map<String, VerbHandler> kube(FreshnessOptions o) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        return o.gateKube(new KubeExtender(NEUTRAL, Binder.unwired(), 50, registry).verbs(), o.resolve(), 50,
                Binder.unwired(), registry);
    }

    private static Map<String, VerbHandler> volcano(FreshnessOptions o) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        return o.gateVolcano(new VolcanoExtender(NEUTRAL, VolcanoSettings.DEFAULTS, registry).verbs(), o.resolve(),
                50, VolcanoSettings.DEFAULTS, registry);
    }

    @Test
    void byDefaultFilterAndScoreStayOnTheIoThreadThroughTheDeadlineGate() {
        FreshnessOptions o = parsed();
        assertThat(kube(o).get("filter").threading()).isEqualTo(VerbHandler.Threading.IO_THREAD);
        assertThat(kube(o).get("prioritize").threading()).isEqualTo(VerbHandler.Threading.IO_THREAD);
        assertThat(kube(o).get("bind").threading()).isEqualTo(VerbHandler.Threading.OWN_THREAD);
        assertThat(volcano(o).get("predicate").threading()).isEqualTo(VerbHandler.Threading.IO_THREAD);
        assertThat(volcano(o).get("allocateFunc").threading()).isEqualTo(VerbHandler.Threading.OWN_THREAD);
    }

    @Test
    void falsePutsEveryVerbOnItsOwnThread() {
        FreshnessOptions o = parsed("--decide-on-io-threads=false");
        kube(o).forEach((verb, h) -> assertThat(h.threading()).as(verb).isEqualTo(VerbHandler.Threading.OWN_THREAD));
        volcano(o).forEach((verb, h) -> assertThat(h.threading()).as(verb)
                .isEqualTo(VerbHandler.Threading.OWN_THREAD));
    }
}
