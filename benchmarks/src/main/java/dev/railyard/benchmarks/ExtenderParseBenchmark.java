package dev.railyard.benchmarks;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import dev.railyard.scheduler.protocol.NeutralPlacementDecisions;
import dev.railyard.scheduler.protocol.WireReply;
import dev.railyard.scheduler.protocol.kube.Binder;
import dev.railyard.scheduler.protocol.kube.KubeExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Parse-and-answer cost of the protocol adapters without HTTP: the Volcano predicate with a ~128 KB
 * TaskInfo + NodeInfo body, the Volcano prioritize with 100 NodeInfos (~20 MB), the kube-scheduler filter with
 * 5,000 node names, each answered by {@link NeutralPlacementDecisions}. The {@code bytes} counter is the request
 * bytes handled per second (divide by 1e6 for MB/s). {@code jacksonSkipOnly} is the floor: Jackson tokenising the
 * prioritize body with one {@code skipChildren()} and nothing else.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar ExtenderParseBenchmark}
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g", "-Dorg.slf4j.simpleLogger.defaultLogLevel=error"})
@State(Scope.Benchmark)
public class ExtenderParseBenchmark {
    byte[] predicate;
    byte[] prioritize;
    byte[] filter;
    VolcanoExtender volcano;
    KubeExtender kube;
    final JsonFactory json = new JsonFactory();

    /** Request bytes handled, reported per second by JMH. */
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    @State(Scope.Thread)
    public static class Bytes {
        public long bytes;

        @Setup(Level.Iteration)
        public void reset() {
            bytes = 0;
        }
    }

    @Setup
    public void setUp() {
        predicate = SyntheticWireBodies.volcanoPredicate(18);
        prioritize = SyntheticWireBodies.volcanoPrioritize(100, 30);
        filter = SyntheticWireBodies.kubeFilterNodeNames(5000);
        var decisions = new NeutralPlacementDecisions(50, "benchmark");
        var registry = new SimpleMeterRegistry();
        volcano = new VolcanoExtender(decisions, VolcanoSettings.DEFAULTS, registry);
        kube = new KubeExtender(decisions, Binder.unwired(), 50, registry);
    }

    @Benchmark
    public WireReply volcanoPredicate128k(Bytes b) throws Exception {
        b.bytes += predicate.length;
        return volcano.predicate(predicate);
    }

    @Benchmark
    public WireReply volcanoPrioritize20m(Bytes b) throws Exception {
        b.bytes += prioritize.length;
        return volcano.prioritize(prioritize);
    }

    @Benchmark
    public WireReply kubeFilter5000Names(Bytes b) throws Exception {
        b.bytes += filter.length;
        return kube.filter(filter);
    }

    @Benchmark
    public long jacksonSkipOnly(Bytes b) throws Exception {
        b.bytes += prioritize.length;
        try (JsonParser p = json.createParser(prioritize)) {
            p.nextToken();
            p.skipChildren();
            return p.currentLocation().getByteOffset();
        }
    }
}
