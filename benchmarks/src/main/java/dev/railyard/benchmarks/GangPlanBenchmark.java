package dev.railyard.benchmarks;

import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.GangRequest;
import dev.railyard.scheduler.engine.NodeState;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.scheduler.engine.PlacementPolicy;
import dev.railyard.scheduler.engine.PlanOutcome;
import dev.railyard.scheduler.engine.PodRequest;
import dev.railyard.scheduler.simulate.GeneratedCluster;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Gang plan for a 64-pod × 8-GPU job on a generated 4,096-node, 3-tier rail-optimised cluster (issue 3: goal p99 ≤
 * 50 ms on a 2-core machine). {@code SampleTime} mode, so JMH prints p50/p90/p99 of single plans. Clusters:
 * {@code empty} (every GPU free) and {@code busy} (seeded: 40 % of nodes full, 20 % half used, the rest free). Each
 * iteration also prints the thread CPU time per plan, meaningful when the machine is shared.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar GangPlanBenchmark}
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class GangPlanBenchmark {
    @Param({"busy", "empty"})
    public String cluster;

    @Param({"dgx:1", "dgx:3,hgx4:1"})
    public String machines;

    private ClusterSnapshot snapshot;
    private GangRequest gang;
    private final PlacementEngine engine = new PlacementEngine();

    @Setup
    public void build() {
        ClusterSnapshot c = GeneratedCluster.build(4096, 3, machines);
        if (cluster.equals("busy")) {
            Random rnd = new Random(1);
            List<NodeState> nodes = new ArrayList<>();
            for (NodeState n : c.nodes()) {
                int x = rnd.nextInt(10);
                Set<Integer> taken = new HashSet<>();
                if (x < 4) {
                    for (int g = 0; g < 8; g++) {
                        taken.add(g);
                    }
                } else if (x < 6) {
                    int half = rnd.nextInt(2);
                    for (int g = 0; g < 4; g++) {
                        taken.add(4 * half + g);
                    }
                }
                nodes.add(n.withAllocated(taken, Map.of()));
            }
            c = c.withNodes(nodes);
        }
        snapshot = c;
        List<PodRequest> pods = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            pods.add(new PodRequest("bench", "worker-" + i, 8, Map.of(), null, false));
        }
        gang = new GangRequest("bench", "pretrain", pods, PlacementPolicy.defaults());
        PlanOutcome check = engine.plan(snapshot, gang);
        if (!check.schedulable()) {
            throw new IllegalStateException("the benchmark gang should fit: " + check.summary());
        }
    }

    /** @return the plan of the 64 × 8 gang */
    @Benchmark
    public PlanOutcome plan64x8(ThreadCpuClock clock) {
        clock.calls++;
        return engine.plan(snapshot, gang);
    }
}
