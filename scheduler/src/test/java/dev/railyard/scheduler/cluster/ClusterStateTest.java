package dev.railyard.scheduler.cluster;

import dev.railyard.api.volcano.PodGroup;
import dev.railyard.scheduler.engine.NodeState;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.railyard.scheduler.cluster.ClusterFixtures.node;
import static dev.railyard.scheduler.cluster.ClusterFixtures.pod;
import static dev.railyard.scheduler.cluster.ClusterFixtures.podGroup;
import static dev.railyard.scheduler.cluster.ClusterFixtures.seedShape;
import static dev.railyard.scheduler.cluster.ClusterFixtures.topology;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The incremental state's sharing rules (docs/adr/0008): a snapshot after one pod change shares every untouched
 * record with the one before, by identity; an update that changes nothing Railyard reads makes no new snapshot.
 */
class ClusterStateTest {
    private static final Map<String, Object> EIGHT = Map.of("nvidia.com/gpu", "8");
    private static final Map<String, Object> TWO = Map.of("nvidia.com/gpu", "2");
    private static final Map<String, String> IN_PG = Map.of(PodView.GROUP_NAME_ANNOTATION, "pg");

    private final ClusterState state = new ClusterState(null, null, null, Clock.systemUTC());

    private void add(GenericKubernetesResource r) {
        state.upsert(ClusterFixtures.objects(List.of(r)).objects().entrySet().stream()
                .filter(e -> !e.getValue().isEmpty()).findFirst().orElseThrow().getKey(), r);
    }

    private void cluster() {
        for (String n : List.of("gpu-a", "gpu-b", "gpu-c", "gpu-d")) {
            add(node(n, Map.of("railyard.dev/leaf", n.equals("gpu-d") ? "leaf-2" : "leaf-1"), Map.of()));
            add(topology(n, seedShape(), null));
        }
        add(pod("prod", "a0", "gpu-a", IN_PG, TWO));
        add(pod("prod", "b0", "gpu-b", IN_PG, EIGHT));
        add(pod("prod", "c0", "gpu-c", Map.of(), TWO));
        add(pod("prod", "p0", null, IN_PG, EIGHT));
        add(podGroup("prod", "pg", 3, Map.of()));
    }

    @Test
    void aSnapshotAfterOnePodChangeSharesEveryUntouchedNodeRecordByIdentity() {
        cluster();
        ClusterView before = state.snapshot();
        NodeRecord aBefore = before.record("gpu-a");

        // the pod on gpu-a finishes: only gpu-a's GPUs change (2 GPUs free again)
        GenericKubernetesResource done = pod("prod", "a0", "gpu-a", IN_PG, TWO);
        done.setAdditionalProperty("status", Map.of("phase", "Succeeded"));
        state.upsert(WatchedKind.POD, done);
        ClusterView after = state.snapshot();

        assertThat(after).isNotSameAs(before);
        assertThat(after.generation()).isGreaterThan(before.generation());
        for (String untouched : List.of("gpu-b", "gpu-c", "gpu-d")) {
            assertThat(after.record(untouched)).isSameAs(before.record(untouched));
            assertThat(after.snapshot().node(untouched)).isSameAs(before.snapshot().node(untouched));
        }
        NodeRecord aAfter = after.record("gpu-a");
        assertThat(aAfter).isNotSameAs(aBefore);
        assertThat(aAfter.generation()).isEqualTo(after.generation()).isGreaterThan(aBefore.generation());
        // seed shape: a0 held 2 of 8 GPUs (the lowest indices, by request count); finished, it holds none
        assertThat(aBefore.state().allocatedGpus()).containsExactly(0, 1);
        assertThat(aAfter.state().allocatedGpus()).isEmpty();
        // cluster-wide data whose inputs did not change is the same object: fabric, node order, topology spec
        assertThat(after.snapshot().fabric()).isSameAs(before.snapshot().fabric());
        assertThat(after.snapshot().nodeNames()).isSameAs(before.snapshot().nodeNames());
        assertThat(aAfter.state().topology()).isSameAs(aBefore.state().topology());
        assertThat(after.podGroups()).isSameAs(before.podGroups());
    }

    @Test
    void anUpdateThatChangesNothingRailyardReadsKeepsTheSnapshot() {
        cluster();
        ClusterView before = state.snapshot();
        long changes = state.changes();

        // a kubelet status heartbeat: new conditions and resourceVersion, same phase and spec
        GenericKubernetesResource heartbeat = pod("prod", "b0", "gpu-b", IN_PG, EIGHT);
        heartbeat.getMetadata().setResourceVersion("999");
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("phase", "Running");
        status.put("conditions", List.of(Map.of("type", "Ready", "status", "True",
                "lastProbeTime", "2026-09-01T00:00:10Z")));
        heartbeat.setAdditionalProperty("status", status);
        state.upsert(WatchedKind.POD, heartbeat);
        // a PodGroup status rewrite (Volcano counts running members) with the same spec
        GenericKubernetesResource pg = podGroup("prod", "pg", 3, Map.of());
        pg.setAdditionalProperty("status", Map.of("phase", "Running", "running", 2));
        state.upsert(WatchedKind.POD_GROUP, pg);

        assertThat(state.changes()).isEqualTo(changes);
        assertThat(state.snapshot()).isSameAs(before);
    }

    @Test
    void gangMembersComeFromTheIndexAndFollowEvents() {
        cluster();
        PodGroup pg = state.snapshot().podGroup("prod/pg");
        assertThat(state.snapshot().members(pg)).extracting(PodView::name).containsExactly("a0", "b0", "p0");

        state.delete(WatchedKind.POD, pod("prod", "b0", "gpu-b", IN_PG, EIGHT));
        // p1 joins by the coscheduling label only: not a member of the Volcano PodGroup
        add(pod("prod", "p1", null, Map.of(PodView.COSCHEDULING_LABEL, "pg"), Map.of(), EIGHT));
        ClusterView v = state.snapshot();
        assertThat(v.members(pg)).extracting(PodView::name).containsExactly("a0", "p0");
        assertThat(state.membersIndex(PodGroup.Convention.COSCHEDULING)).containsOnlyKeys("prod/pg");
        // b0 left gpu-b: its record is new and its GPUs are free
        NodeState b = v.snapshot().node("gpu-b");
        assertThat(b.allocatedGpus()).isEmpty();
    }

    @Test
    void aPodSeenBeforeItsNodeIsCountedWhenTheNodeArrives() {
        add(pod("prod", "early", "gpu-z", Map.of(), TWO));
        assertThat(state.snapshot().snapshot().node("gpu-z")).isNull();

        add(node("gpu-z", Map.of(), Map.of()));
        add(topology("gpu-z", seedShape(), null));

        assertThat(state.snapshot().snapshot().node("gpu-z").allocatedGpus()).containsExactly(0, 1);
    }
}
