package dev.railyard.scheduler.service;

import dev.railyard.scheduler.cluster.ClusterObjects;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.scheduler.ipam.HoldAnnotation;
import dev.railyard.scheduler.ipam.HoldOrigin;
import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.protocol.AllocationVerdict;
import dev.railyard.scheduler.protocol.BindDecision;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.GangRef;
import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.protocol.PlacementDecisions;
import dev.railyard.scheduler.protocol.PodRef;
import dev.railyard.scheduler.protocol.ResourceRequests;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static dev.railyard.scheduler.cluster.ClusterFixtures.ipPool;
import static dev.railyard.scheduler.cluster.ClusterFixtures.nad;
import static dev.railyard.scheduler.cluster.ClusterFixtures.node;
import static dev.railyard.scheduler.cluster.ClusterFixtures.objects;
import static dev.railyard.scheduler.cluster.ClusterFixtures.pod;
import static dev.railyard.scheduler.cluster.ClusterFixtures.podGroup;
import static dev.railyard.scheduler.cluster.ClusterFixtures.seedShape;
import static dev.railyard.scheduler.cluster.ClusterFixtures.topology;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reservation model through the protocol port (docs/adr/0011-address-holds.md): Volcano's allocateFunc holds
 * and writes the hold on the pod, a restarted replica adopts the written holds, kube's bind checks the pod and holds
 * before its Binding, and a gang short of addresses is refused for every task with one reason (issue 19).
 *
 * <p>Cluster: seed-shaped gpu-a and gpu-b; network prod/rail0 (master lan2 = mlx5_0) with range 192.168.4.0/28: 14
 * usable addresses (.1-.14), offsets 1..4 allocated to running pods, so K = 10 free. Pods p-0..p-19 attach rail0
 * and ask for no GPU, {@code schedulerName: volcano}.
 */
class ReservationsTest {
    private static final Map<String, String> RDMA = Map.of("nvidia.com/mlx5_0", "100", "nvidia.com/mlx5_1", "100",
            "nvidia.com/mlx5_2", "100", "nvidia.com/mlx5_3", "100");
    private static final String NETWORKS = "k8s.v1.cni.cncf.io/networks";
    private final Clock clock = Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC);

    /** Records writes by pod; fails every write while {@code down}. */
    static final class RecordingWriter implements HoldWriter {
        final Map<String, String> written = new ConcurrentHashMap<>();
        final List<String> cleared = new ArrayList<>();
        volatile boolean down;

        @Override
        public void write(String namespace, String name, String uid, String value, Duration budget)
                throws WriteException {
            if (down) {
                throw new WriteException("API server unreachable: cannot connect (connection refused)");
            }
            written.put(namespace + "/" + name, value);
        }

        @Override
        public synchronized void clear(String namespace, String name, String value) {
            cleared.add(namespace + "/" + name);
            written.remove(namespace + "/" + name, value);
        }
    }

    private static GenericKubernetesResource railPod(String name, String node, Map<String, String> extra) {
        Map<String, String> a = new LinkedHashMap<>(extra);
        a.put(NETWORKS, "rail0");
        GenericKubernetesResource p = pod("prod", name, node, a, Map.of());
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = (Map<String, Object>) p.getAdditionalProperties().get("spec");
        spec.put("schedulerName", "volcano");
        return p;
    }

    private static List<GenericKubernetesResource> cluster(Map<String, String> holdsByPod) {
        List<GenericKubernetesResource> all = new ArrayList<>(List.of(
                node("gpu-a", Map.of(), RDMA), node("gpu-b", Map.of(), RDMA),
                topology("gpu-a", seedShape(), null), topology("gpu-b", seedShape(), null),
                nad("prod", "rail0", "lan2", "192.168.4.0/28"),
                ipPool("kube-system", "192.168.4.0-28", "192.168.4.0/28",
                        List.of("prod/old-1", "prod/old-2", "prod/old-3", "prod/old-4"))));
        for (int i = 1; i <= 4; i++) {
            all.add(railPod("old-" + i, "gpu-a", Map.of()));
        }
        for (int i = 0; i < 20; i++) {
            String hold = holdsByPod.get("prod/p-" + i);
            all.add(railPod("p-" + i, null, hold == null ? Map.of() : Map.of(HoldAnnotation.KEY, hold)));
        }
        return all;
    }

    private EnginePlacementDecisions decisions(List<GenericKubernetesResource> all, HoldWriter writer) {
        ClusterObjects o = objects(all);
        EnginePlacementDecisions d = new EnginePlacementDecisions(() -> o, new IpPoolLedger(clock),
                new PlacementEngine(), null, 50, new SimpleMeterRegistry());
        d.reserveWith(Reservations.Settings.DEFAULTS, writer);
        return d;
    }

    private static ExtenderPod task(String name) {
        return new ExtenderPod(new PodRef("prod", name, "uid-" + name), Map.of(), Map.of(NETWORKS, "rail0"),
                "volcano", ResourceRequests.NONE, null, null);
    }

    @Test
    void allocateFuncHoldsWritesTheHoldOnThePodAndVetoesThe11th() {
        RecordingWriter writer = new RecordingWriter();
        EnginePlacementDecisions d = decisions(cluster(Map.of()), writer);
        for (int i = 0; i < 10; i++) {
            AllocationVerdict v = d.allocated(task("p-" + i), "gpu-b");
            assertThat(v.accepted()).as(v.reason()).isTrue();
        }
        AllocationVerdict eleventh = d.allocated(task("p-10"), "gpu-b");
        assertThat(eleventh.accepted()).isFalse();
        assertThat(eleventh.reason()).contains("192.168.4.0-28").contains("0 of 14 free");
        assertThat(writer.written).hasSize(10);
        HoldAnnotation.Value v = HoldAnnotation.read(writer.written.get("prod/p-3"));
        assertThat(v.uid()).isEqualTo("uid-p-3");
        assertThat(v.node()).isEqualTo("gpu-b");
        assertThat(v.origin()).isEqualTo(HoldOrigin.ALLOCATE);
        assertThat(v.until()).isEqualTo(v.since().plus(Duration.ofMinutes(5)));

        d.deallocated(task("p-3"), "gpu-b");
        assertThat(writer.cleared).containsExactly("prod/p-3");
        assertThat(writer.written).doesNotContainKey("prod/p-3");
        assertThat(d.allocated(task("p-10"), "gpu-b").accepted()).isTrue();
    }

    @Test
    void aDeallocateFuncThatDoesNotNameTheHoldLeavesItAlone() {
        // found by an attacker review: a deallocateFunc with no UID and a made-up node released any pod's hold and
        // removed its annotation, so the address could go to another pod before this one was bound
        RecordingWriter writer = new RecordingWriter();
        EnginePlacementDecisions d = decisions(cluster(Map.of()), writer);
        for (int i = 0; i < 10; i++) { // the 10 addresses the pool has left, as in the test above
            assertThat(d.allocated(task("p-" + i), "gpu-b").accepted()).isTrue();
        }
        ExtenderPod noUid = new ExtenderPod(new PodRef("prod", "p-3", ""), Map.of(), Map.of(NETWORKS, "rail0"),
                "volcano", ResourceRequests.NONE, null, null);
        ExtenderPod otherUid = new ExtenderPod(new PodRef("prod", "p-3", "uid-forged"), Map.of(),
                Map.of(NETWORKS, "rail0"), "volcano", ResourceRequests.NONE, null, null);

        d.deallocated(noUid, "gpu-b");
        d.deallocated(otherUid, "gpu-b");
        d.deallocated(task("p-3"), "gpu-99999");

        // every free address is held: nothing was released, nothing cleared
        assertThat(writer.cleared).isEmpty();
        assertThat(d.allocated(task("p-10"), "gpu-b").accepted()).isFalse();
        // the call that names the hold (UID and node) still releases it
        d.deallocated(task("p-3"), "gpu-b");
        assertThat(writer.cleared).containsExactly("prod/p-3");
        assertThat(d.allocated(task("p-10"), "gpu-b").accepted()).isTrue();
    }

    @Test
    void aHoldThatCannotBeWrittenIsDroppedAndTheAllocationVetoed() {
        RecordingWriter writer = new RecordingWriter();
        EnginePlacementDecisions d = decisions(cluster(Map.of()), writer);
        writer.down = true;
        AllocationVerdict v = d.allocated(task("p-0"), "gpu-b");
        assertThat(v.accepted()).isFalse();
        assertThat(v.reason()).contains("could not record the address hold on pod prod/p-0")
                .contains("connection refused");
        // a write that timed out may land later: the veto also asks for the annotation to be taken off again
        assertThat(writer.cleared).containsExactly("prod/p-0");
        writer.down = false;
        for (int i = 0; i < 10; i++) {
            assertThat(d.allocated(task("p-" + (i + 1)), "gpu-b").accepted()).isTrue(); // nothing was left held
        }
    }

    @Test
    void aRestartedReplicaKeepsTheHoldsWrittenOnThePods() {
        RecordingWriter writer = new RecordingWriter();
        EnginePlacementDecisions before = decisions(cluster(Map.of()), writer);
        for (int i = 0; i < 10; i++) {
            assertThat(before.allocated(task("p-" + i), "gpu-b").accepted()).isTrue();
        }
        // kill -9: a new process sees only the cluster, where the ten pods carry their holds
        EnginePlacementDecisions after = decisions(cluster(writer.written), new RecordingWriter());
        AllocationVerdict v = after.allocated(task("p-10"), "gpu-a");
        assertThat(v.accepted()).isFalse();
        assertThat(v.reason()).contains("0 of 14 free").contains("10 in flight");
        BindDecision bind = after.admitBind(new PodRef("prod", "p-11", "uid-p-11"), "gpu-a");
        assertThat(bind.admitted()).isFalse();
        assertThat(bind.why()).isIn("pool", "infeasible");
        assertThat(bind.reason()).contains("192.168.4.0-28");
    }

    @Test
    void bindActsOnlyOnAnUnboundPodOfTheRightUidAndSchedulerThatIsFeasibleThereAndHoldsItsAddress() {
        List<GenericKubernetesResource> all = cluster(Map.of());
        GenericKubernetesResource foreign = pod("prod", "foreign", null, Map.of(NETWORKS, "rail0"), Map.of());
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = (Map<String, Object>) foreign.getAdditionalProperties().get("spec");
        spec.put("schedulerName", "my-scheduler");
        all.add(foreign);
        EnginePlacementDecisions d = decisions(all, new RecordingWriter());

        assertThat(d.admitBind(new PodRef("prod", "ghost", "uid-ghost"), "gpu-a").why()).isEqualTo("unknown_pod");
        assertThat(d.admitBind(new PodRef("prod", "p-0", "other-uid"), "gpu-a").why()).isEqualTo("uid_mismatch");
        assertThat(d.admitBind(new PodRef("prod", "p-0", ""), "gpu-a").why()).isEqualTo("uid_mismatch");
        assertThat(d.admitBind(new PodRef("prod", "old-1", "uid-old-1"), "gpu-b").why()).isEqualTo("already_bound");
        BindDecision other = d.admitBind(new PodRef("prod", "foreign", "uid-foreign"), "gpu-a");
        assertThat(other.why()).isEqualTo("other_scheduler");
        assertThat(other.reason()).isEqualTo("railyard bind of prod/foreign to gpu-a refused: its schedulerName is "
                + "my-scheduler, not one Railyard serves (default-scheduler, volcano)");

        BindDecision ok = d.admitBind(new PodRef("prod", "p-0", "uid-p-0"), "gpu-a");
        assertThat(ok.admitted()).as(ok.reason()).isTrue();
        HoldAnnotation.Value hold = HoldAnnotation.read(ok.annotations().get(HoldAnnotation.KEY));
        assertThat(hold.origin()).isEqualTo(HoldOrigin.BIND);
        assertThat(hold.node()).isEqualTo("gpu-a");
        assertThat(hold.since()).isEqualTo(ok.holdSince());
        // the Binding failed: the hold goes, so the pool shows 10 free again
        d.bindFinished(new PodRef("prod", "p-0", "uid-p-0"), "gpu-a", ok, PlacementDecisions.BindOutcome.FAILED);
        for (int i = 1; i <= 10; i++) {
            assertThat(d.admitBind(new PodRef("prod", "p-" + i, "uid-p-" + i), "gpu-a").admitted()).isTrue();
        }
        BindDecision full = d.admitBind(new PodRef("prod", "p-11", "uid-p-11"), "gpu-a");
        assertThat(full.admitted()).isFalse();
        assertThat(full.why()).isEqualTo("infeasible"); // Filter itself now sees the pool empty
        assertThat(full.reason()).contains("IP pool exhausted").contains("0 of 14 free");
    }

    @Test
    void kubeFilterHoldsForThePodThatPassesSoTheNextFilterSeesTheAddressTaken() {
        EnginePlacementDecisions d = decisions(cluster(Map.of()), new RecordingWriter());
        for (int i = 0; i < 10; i++) {
            assertThat(d.filterAndHold(task("p-" + i), List.of("gpu-a", "gpu-b"))).allMatch(NodeVerdict::feasible);
        }
        List<NodeVerdict> eleventh = d.filterAndHold(task("p-10"), List.of("gpu-a", "gpu-b"));
        assertThat(eleventh).noneMatch(NodeVerdict::feasible);
        assertThat(eleventh.get(0).describe()).contains("192.168.4.0-28").contains("10 in flight");
        // the pods that passed bind without a refusal: their filter holds are their own
        for (int i = 0; i < 10; i++) {
            BindDecision b = d.admitBind(new PodRef("prod", "p-" + i, "uid-p-" + i), "gpu-a");
            assertThat(b.admitted()).as(b.reason()).isTrue();
        }
    }

    @Test
    void aGangShortOfAddressesIsRefusedForEveryTaskWithOneReasonAndAFittingGangIsNotDoubleCounted() {
        List<GenericKubernetesResource> all = cluster(Map.of());
        Map<String, String> inGang = Map.of(GangRef.VOLCANO_GROUP_ANNOTATION, "g");
        all.add(podGroup("prod", "g", 11, Map.of()));
        for (int i = 0; i < 11; i++) {
            all.add(railPod("g-" + i, null, inGang));
        }
        EnginePlacementDecisions d = decisions(all, new RecordingWriter());
        Set<String> reasons = new java.util.HashSet<>();
        for (int i = 0; i < 11; i++) {
            List<NodeVerdict> v = d.filter(gangTask("g", "g-" + i), List.of("gpu-a", "gpu-b"));
            assertThat(v).noneMatch(NodeVerdict::feasible);
            v.forEach(x -> reasons.add(x.describe()));
        }
        assertThat(reasons).singleElement().asString()
                .startsWith("IP pool exhausted: gang prod/g cannot get addresses for all its remaining pods: ")
                .contains("10 of 14 free").contains("11 needed");

        // ten members fit exactly: allocating the first does not make the plan count its address twice
        List<GenericKubernetesResource> ten = cluster(Map.of());
        ten.add(podGroup("prod", "h", 10, Map.of()));
        for (int i = 0; i < 10; i++) {
            ten.add(railPod("h-" + i, null, Map.of(GangRef.VOLCANO_GROUP_ANNOTATION, "h")));
        }
        EnginePlacementDecisions e = decisions(ten, new RecordingWriter());
        for (int i = 0; i < 10; i++) {
            ExtenderPod t = gangTask("h", "h-" + i);
            assertThat(e.filter(t, List.of("gpu-b"))).as("h-" + i).allMatch(NodeVerdict::feasible);
            assertThat(e.allocated(t, "gpu-b").accepted()).isTrue();
        }
    }

    private static ExtenderPod gangTask(String gang, String name) {
        Map<String, String> a = Map.of(GangRef.VOLCANO_GROUP_ANNOTATION, gang, NETWORKS, "rail0");
        return new ExtenderPod(new PodRef("prod", name, "uid-" + name), Map.of(), a, "volcano",
                ResourceRequests.NONE, GangRef.of("prod", Map.of(), a), null);
    }
}
