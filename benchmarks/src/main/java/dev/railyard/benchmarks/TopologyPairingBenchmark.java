package dev.railyard.benchmarks;

import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.topology.discovery.NvidiaSmiTopoParser;
import dev.railyard.topology.pairing.RailPairing;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Parse plus pairing of the canonical 8-GPU/8-HCA {@code nvidia-smi topo -m} dump (fixture case-01, a DGX/HGX
 * H100), the work {@code railyard topology pair} and the node agent do per node. Target: under 1 ms (issue 2).
 * {@code parse} alone is reported too, so the pairing cost is the difference. Each measurement iteration also
 * prints the benchmark thread's CPU time per operation, which stays meaningful when the machine is shared and the
 * wall-clock score is inflated by waiting for a core.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar TopologyPairingBenchmark}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class TopologyPairingBenchmark {
    private String dump;
    private final NvidiaSmiTopoParser parser = new NvidiaSmiTopoParser();
    private final RailPairing pairing = new RailPairing();

    @Setup
    public void load() throws IOException {
        try (InputStream in = Objects.requireNonNull(getClass().getResourceAsStream(
                "/fixtures/case-01-dgx-h100-8gpu-8nic-1to1.txt"), "case-01 fixture")) {
            dump = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        NodeTopologySpec check = parseAndPair();
        if (check.pairs().size() != 8) {
            throw new IllegalStateException("case-01 should pair 8 GPUs, got " + check.pairs());
        }
    }

    private NodeTopologySpec parseAndPair() {
        return pairing.pair(parser.parseText("case-01", dump));
    }

    /** @return the paired node: parse of the text plus {@link RailPairing#pair(NodeTopologySpec)} */
    @Benchmark
    public NodeTopologySpec parseAndPair(ThreadCpuClock clock) {
        clock.calls++;
        return parseAndPair();
    }

    /** @return the parsed node, unpaired */
    @Benchmark
    public NodeTopologySpec parse(ThreadCpuClock clock) {
        clock.calls++;
        return parser.parseText("case-01", dump);
    }
}
