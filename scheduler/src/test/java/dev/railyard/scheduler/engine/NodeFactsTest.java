package dev.railyard.scheduler.engine;

import dev.railyard.api.topology.NodeTopologySpec;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.railyard.scheduler.engine.EngineFixtures.node;
import static dev.railyard.scheduler.engine.EngineFixtures.seedShape;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link NodeFacts}: worked out once per node state instance, and twin keys interned with the grouping
 * {@link NodeViews} has always used (the topology by instance; allocated GPUs, RDMA resources and schedulability by
 * value).
 */
class NodeFactsTest {
    private final NodeFacts facts = new NodeFacts();
    private final NodeTopologySpec seed = seedShape();

    @Test
    void oneInstanceIsWorkedOutOnce() {
        NodeState a = node("a", seed, Set.of(7));
        NodeFacts.Fact first = facts.of(a);
        assertThat(facts.of(a)).isSameAs(first);
        // the seed shape has 8 GPUs (EngineFixtures.seedShape); GPU 7 is held
        assertThat(first.freeGpus()).isEqualTo(7);
    }

    @Test
    void twinNodesShareOneKeyInstance() {
        // other names and labels, same topology instance, allocation, resources and schedulability: twins
        NodeState a = node("a", seed, Set.of(0, 1));
        NodeState b = new NodeState("b", Map.of("rack", "r2"), seed, Set.of(1, 0), List.of(), true);
        assertThat(facts.of(b).twin()).isSameAs(facts.of(a).twin());
        assertThat(facts.of(b).freeGpus()).isEqualTo(6);
    }

    @Test
    void anyDifferenceTheViewReadsSeparatesTwins() {
        NodeFacts.TwinKey a = facts.of(node("a", seed, Set.of(0))).twin();
        assertThat(facts.of(node("b", seed, Set.of(1))).twin()).isNotSameAs(a);
        assertThat(facts.of(new NodeState("c", Map.of(), seed, Set.of(0), List.of(), false)).twin()).isNotSameAs(a);
        assertThat(facts.of(new NodeState("d", Map.of(), seed, Set.of(0),
                List.of(new HcaResource("nvidia.com/mlx5_0", "mlx5_0", 100, 1)), true)).twin()).isNotSameAs(a);
        // an equal spec that is another instance: the engine's caches are keyed by spec instance, so not a twin
        assertThat(facts.of(node("e", seedShape(), Set.of(0))).twin()).isNotSameAs(a);
        assertThat(facts.of(node("f", null, Set.of(0))).freeGpus()).isZero();
    }
}
