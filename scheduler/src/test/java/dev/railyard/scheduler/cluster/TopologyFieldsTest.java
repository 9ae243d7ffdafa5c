package dev.railyard.scheduler.cluster;

import dev.railyard.api.topology.NodeTopologySpec;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static dev.railyard.scheduler.cluster.ClusterFixtures.seedShape;
import static dev.railyard.scheduler.cluster.ClusterFixtures.topology;
import static org.assertj.core.api.Assertions.assertThat;

/** Reading NodeTopologies into records: specs of equal content share one instance, statuses stay per node. */
class TopologyFieldsTest {

    @Test
    void nodesOfOneMachineModelShareOneSpecInstanceAndKeepTheirOwnStatus() {
        // two NodeTopologies decoded separately (distinct JSON trees of equal content), as two nodes of one model are
        GenericKubernetesResource a = topology("gpu-a", seedShape(), Map.of("allocatedGpus", List.of(0, 1)));
        GenericKubernetesResource b = topology("gpu-b", seedShape(), Map.of("allocatedGpus", List.of(5)));
        assertThat(ObjectFields.at(a, "spec")).isNotSameAs(ObjectFields.at(b, "spec"))
                .isEqualTo(ObjectFields.at(b, "spec"));

        TopologyFields fa = TopologyFields.of(a);
        TopologyFields fb = TopologyFields.of(b);

        assertThat(fb.spec()).isSameAs(fa.spec()).isEqualTo(seedShape());
        assertThat(fa.status().allocatedGpus()).containsExactly(0, 1);
        assertThat(fb.status().allocatedGpus()).containsExactly(5);
    }

    @Test
    void aSpecThatDiffersInOneFieldIsReadOnItsOwn() {
        NodeTopologySpec seed = seedShape();
        // the same machine with its discovery marked incomplete: one field apart
        NodeTopologySpec cut = new NodeTopologySpec(seed.source(), false, seed.warnings(), seed.gpus(), seed.hcas(),
                seed.pcieBridges(), seed.numaNodes(), seed.distances(), seed.pairs(), seed.excluded(), seed.locality());

        TopologyFields full = TopologyFields.of(topology("gpu-a", seed, null));
        TopologyFields partial = TopologyFields.of(topology("gpu-b", cut, null));

        assertThat(partial.spec()).isNotSameAs(full.spec()).isEqualTo(cut);
        assertThat(partial.spec().complete()).isFalse();
        assertThat(full.spec().complete()).isTrue();
    }
}
