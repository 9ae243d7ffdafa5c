package dev.railyard.scheduler.engine;

import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.api.volcano.PodGroup;
import dev.railyard.topology.fabric.FabricModel;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.railyard.scheduler.engine.EngineFixtures.cluster;
import static dev.railyard.scheduler.engine.EngineFixtures.node;
import static dev.railyard.scheduler.engine.EngineFixtures.pod;
import static dev.railyard.scheduler.engine.EngineFixtures.seedShape;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code railyard.dev/} key Railyard does not know was ignored without a word (issue 19: a misspelt
 * {@code railyard.dev/rail-alignmnet} left rail alignment at its default). Now every reader of the policy gets a
 * warning naming where the key is and the closest job-author key.
 */
class UnknownHintKeysTest {
    @Test
    void aMisspeltKeyIsNamedWithTheClosestKnownOne() {
        PlacementPolicy p = PlacementPolicy.resolve(Map.of("railyard.dev/rail-alignmnet", "required"), null, null,
                FabricModel.empty());
        // "alignmnet" → "alignment" is two substitutions; every other input key is farther
        assertThat(p.warnings()).containsExactly("annotation railyard.dev/rail-alignmnet on the Job is not a Railyard "
                + "key and is ignored; did you mean railyard.dev/rail-alignment?");
        assertThat(p.railAlignment()).isEqualTo(AffinityPolicy.PREFERRED);
    }

    @Test
    void eachKeyIsReportedOnceAtTheMostSpecificObject() {
        // Volcano's PodGroup carries the Job's annotations: a key on both is reported for the PodGroup only
        PodGroup pg = new PodGroup("prod", "train", 2, null, Map.of("railyard.dev/fabric-scop", "leaf"));
        PlacementPolicy p = PlacementPolicy.resolve(Map.of("railyard.dev/fabric-scop", "leaf"), pg,
                Map.of("railyard.dev/rank", "3", "railyard.dev/colour", "blue"), FabricModel.empty());
        assertThat(p.warnings()).containsExactly(
                "annotation railyard.dev/colour on the pod is not a Railyard key and is ignored; the job-author keys "
                        + "are railyard.dev/gpu-hca-affinity, railyard.dev/gpu-hca-max-distance, "
                        + "railyard.dev/rail-alignment, railyard.dev/fabric-scope, railyard.dev/fabric-scope-policy, "
                        + "railyard.dev/rank-order",
                "annotation railyard.dev/fabric-scop on PodGroup prod/train is not a Railyard key and is ignored; "
                        + "did you mean railyard.dev/fabric-scope?");
    }

    @Test
    void knownKeysAndOtherPrefixesGiveNoWarning() {
        PlacementPolicy p = PlacementPolicy.resolve(Map.of("railyard.dev/rail-alignment", "required",
                "example.com/rail-alignmnet", "x"), null, Map.of("railyard.dev/placement", "{}"), FabricModel.empty());
        assertThat(p.warnings()).isEmpty();
        assertThat(UnknownHintKeys.warnings(null, "the pod", new java.util.HashSet<>())).isEmpty();
    }

    @Test
    void theGangPlanCarriesTheWarningsToItsReaders() {
        PlacementPolicy p = PlacementPolicy.resolve(Map.of("railyard.dev/rail-alignmnet", "required"), null, null,
                FabricModel.empty());
        ClusterSnapshot snap = cluster(List.of(node("n1", seedShape(), Set.of())), FabricModel.empty());
        PlanOutcome o = new GangPlanner().plan(snap, new GangRequest("prod", "g", List.of(pod("p-0", 2)), p));
        assertThat(o.schedulable()).isTrue();
        assertThat(o.notices()).contains(p.warnings().get(0));
        assertThat(o.plan().notices()).contains(p.warnings().get(0));
    }
}
