package dev.railyard.scheduler.engine;

import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.api.hints.FabricScope;
import dev.railyard.topology.fabric.FabricModel;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static dev.railyard.scheduler.engine.EngineFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

/** Acceptance (issue 3): required rail alignment is never traded for a mixed-rail plan. */
class RailAlignmentTest {
    private final GangPlanner planner = new GangPlanner();

    /** node-a has only GPUs 0,1 free (rails 0,1), node-b only GPUs 6,7 (rails 6,7): no rail pair is on both. */
    private static ClusterSnapshot disjointRails() {
        List<NodeState> nodes = List.of(
                node("node-a", dgx(), Set.of(2, 3, 4, 5, 6, 7)),
                node("node-b", dgx(), Set.of(0, 1, 2, 3, 4, 5)));
        return cluster(nodes, railOptimised(List.of(List.of("node-a", "node-b")), 8, 1));
    }

    @Test
    void requiredAlignmentThatCannotBeMetIsUnschedulableWithTheReason() {
        PlanOutcome o = planner.plan(disjointRails(), gang("aligned", 2, 2,
                policy(AffinityPolicy.REQUIRED, AffinityPolicy.REQUIRED, FabricScope.ANY)));
        assertThat(o.schedulable()).isFalse();
        assertThat(o.plan()).isNull();
        assertThat(o.reasons()).extracting(Reason::code).containsExactly(ReasonCode.NO_COMMON_RAIL_SET);
        // {0,1} (node-a) and {6,7} (node-b) each host one pod; ties go to the first in rail order
        assertThat(o.reasons().get(0).detail())
                .isEqualTo("with rail alignment the 2 pods of shape 2 GPUs need one rail set; the most available, "
                        + "{0,1}, fits 1 of them");
        // node-a passes alone and offers {0,1}; node-b passes alone but lacks it
        assertThat(o.verdicts().get(0).feasible()).isTrue();
        assertThat(o.verdicts().get(1).reasons()).extracting(Reason::code)
                .containsExactly(ReasonCode.RAIL_SET_UNAVAILABLE);
        assertThat(o.summary()).endsWith("1/2 nodes available: 1 rail set {0,1} unavailable");
    }

    @Test
    void ignoredAlignmentMixesRailsAndPreferredSaysItRelaxed() {
        PlanOutcome ignore = planner.plan(disjointRails(), gang("free", 2, 2,
                policy(AffinityPolicy.REQUIRED, AffinityPolicy.IGNORE, FabricScope.ANY)));
        assertThat(ignore.plan().pods()).extracting(p -> p.rails().toString()).containsExactly("{0,1}", "{6,7}");
        assertThat(ignore.plan().cost().relaxations()).isZero();

        PlanOutcome preferred = planner.plan(disjointRails(), gang("pref", 2, 2,
                policy(AffinityPolicy.REQUIRED, AffinityPolicy.PREFERRED, FabricScope.ANY)));
        assertThat(preferred.plan().cost().relaxations()).isEqualTo(PlanCost.ALIGNMENT_RELAXED);
        assertThat(preferred.plan().notices()).anyMatch(n -> n.startsWith("relaxed rail alignment: no common rail set"));
    }

    @Test
    void everyMultiNodePlanWithRequiredAlignmentUsesOneRailVector() {
        int plans = 0;
        for (int seed = 1; seed <= 200; seed++) {
            Random rnd = new Random(seed);
            List<NodeState> nodes = new ArrayList<>();
            List<String> names = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                Set<Integer> taken = new HashSet<>();
                for (int g = 0; g < 8; g++) {
                    if (rnd.nextInt(10) < 4) {
                        taken.add(g);
                    }
                }
                nodes.add(node("n" + i, i % 3 == 0 ? seedShape() : dgx(), taken));
                names.add("n" + i);
            }
            FabricModel fabric = railOptimised(List.of(names.subList(0, 8), names.subList(8, 16)), 8, 1);
            int pods = 2 + rnd.nextInt(7);
            int gpus = 1 + rnd.nextInt(4);
            PlanOutcome o = planner.plan(cluster(nodes, fabric), gang("g" + seed, pods, gpus,
                    policy(AffinityPolicy.REQUIRED, AffinityPolicy.REQUIRED, FabricScope.ANY)));
            if (!o.schedulable()) {
                assertThat(o.reasons()).isNotEmpty();
                continue;
            }
            if (o.plan().nodes().size() > 1) {
                plans++;
                assertThat(o.plan().pods()).extracting(p -> p.rails().toString()).as("seed %d", seed)
                        .containsOnly(o.plan().pods().get(0).rails().toString());
            }
        }
        assertThat(plans).isGreaterThan(50);
    }
}
