package dev.railyard.scheduler.service;

import dev.railyard.scheduler.cluster.ClusterObjects;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.GangJob;
import dev.railyard.scheduler.protocol.GangRef;
import dev.railyard.scheduler.protocol.GangVerdict;
import dev.railyard.scheduler.protocol.PodRef;
import dev.railyard.scheduler.protocol.ResourceRequests;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.railyard.scheduler.cluster.ClusterFixtures.node;
import static dev.railyard.scheduler.cluster.ClusterFixtures.objects;
import static dev.railyard.scheduler.cluster.ClusterFixtures.pod;
import static dev.railyard.scheduler.cluster.ClusterFixtures.podGroup;
import static dev.railyard.scheduler.cluster.ClusterFixtures.seedShape;
import static dev.railyard.scheduler.cluster.ClusterFixtures.topology;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Volcano's {@code jobEnqueueable} judges the whole gang the cluster shows, not only the tasks in the scheduler's
 * snapshot: vc-scheduler's pod and PodGroup informers race, so a session can see the PodGroup with some (or none) of
 * its pods, and a permit on that partial view enqueues a gang that then fails predicates every session (the e2e
 * {@code AddressPoolSchedulersIT} short-gang case saw 84 predicate calls in 15 s that way).
 *
 * <p>Cluster: two seed-shaped nodes (8 GPUs each); gpu-a is full (a running pod holds its 8 GPUs), gpu-b free.
 * PodGroup pg (minMember 2): p0 and p1 pending with 8 GPUs each. Only gpu-b has 8 free GPUs, so one member fits and
 * the gang of two does not.
 */
class GangAdmissionTest {
    private static final Map<String, String> RDMA = Map.of("nvidia.com/mlx5_0", "100");
    private static final Map<String, Object> EIGHT_GPUS = Map.of("nvidia.com/gpu", "8");
    private static final Map<String, String> IN_GROUP = Map.of(GangRef.VOLCANO_GROUP_ANNOTATION, "pg");
    private final Clock clock = Clock.fixed(Instant.parse("2026-09-01T00:00:00Z"), ZoneOffset.UTC);

    /** A pending member of pg asking for {@code gpus} GPUs, for vc-scheduler ({@code schedulerName: volcano}). */
    @SuppressWarnings("unchecked")
    private static GenericKubernetesResource member(String name, int gpus, String scheduler) {
        GenericKubernetesResource p = pod("prod", name, null, IN_GROUP, Map.of("nvidia.com/gpu", Integer.toString(gpus)));
        ((Map<String, Object>) p.getAdditionalProperties().get("spec")).put("schedulerName", scheduler);
        return p;
    }

    private static List<GenericKubernetesResource> cluster(boolean withMembers) {
        List<GenericKubernetesResource> o = new ArrayList<>(List.of(
                node("gpu-a", Map.of(), RDMA), node("gpu-b", Map.of(), RDMA),
                topology("gpu-a", seedShape(), null), topology("gpu-b", seedShape(), null),
                pod("prod", "busy", "gpu-a", Map.of(), EIGHT_GPUS),
                podGroup("prod", "pg", 2, Map.of())));
        if (withMembers) {
            o.add(member("p0", 8, "volcano"));
            o.add(member("p1", 8, "volcano"));
        }
        return o;
    }

    private EnginePlacementDecisions decisions(ClusterObjects objects) {
        return new EnginePlacementDecisions(() -> objects, new IpPoolLedger(clock), new PlacementEngine(), null, 50,
                new SimpleMeterRegistry());
    }

    private static ExtenderPod member(String name) {
        return new ExtenderPod(new PodRef("prod", name, "uid-" + name), Map.of(), IN_GROUP, "volcano",
                new ResourceRequests(Map.of("nvidia.com/gpu", BigDecimal.valueOf(8))),
                GangRef.of("prod", Map.of(), IN_GROUP), null);
    }

    private static GangJob job(List<ExtenderPod> tasks) {
        return job(2, tasks);
    }

    private static GangJob job(int minAvailable, List<ExtenderPod> tasks) {
        return new GangJob("prod/pg", "", "prod", "pg", "default", minAvailable, Map.of(), tasks);
    }

    @Test
    void aSnapshotWithOneOfTwoMembersIsJudgedAsTheWholeGangAndRejected() {
        var d = decisions(objects(cluster(true)));

        // p0 alone fits on gpu-b; with p1, which the cluster shows pending, the gang needs two free nodes
        GangVerdict v = d.enqueueable(job(List.of(member("p0"))));

        assertThat(v.outcome()).isEqualTo(GangVerdict.Outcome.REJECT);
        // answered by the free-GPU bound, without a search (GangPlanner#planUnlessShort): two 8-GPU pods, and only
        // gpu-b of the two nodes has 8 free GPUs
        assertThat(v.reason()).startsWith("not enough room for the gang: 2 pods of shape 8 GPUs")
                .endsWith(" needed, the cluster's free GPUs hold at most 1; 1/2 nodes have 8 free GPUs or more");
    }

    @Test
    void aSnapshotWithNoTasksYetIsJudgedByThePendingMembersTheClusterShows() {
        var d = decisions(objects(cluster(true)));

        assertThat(d.enqueueable(job(List.of())).outcome()).isEqualTo(GangVerdict.Outcome.REJECT);
    }

    @Test
    void aGangWhosePodsDoNotExistYetIsLeftToVolcano() {
        // a Volcano Job's controller creates the pods only once the PodGroup is Inqueue: a reject would wedge it
        var d = decisions(objects(cluster(false)));

        assertThat(d.enqueueable(job(List.of())).outcome()).isEqualTo(GangVerdict.Outcome.ABSTAIN);
    }

    @Test
    void aGangThatFitsIsPermitted() {
        List<GenericKubernetesResource> o = new ArrayList<>(cluster(false));
        o.add(member("p0", 8, "volcano"));
        var d = decisions(objects(o));

        // minMember 2 but only p0 exists: Railyard judges the room of the pods it can see (gang readiness is
        // Volcano's gang plugin's), and p0 fits on gpu-b
        assertThat(d.enqueueable(job(List.of(member("p0")))).outcome()).isEqualTo(GangVerdict.Outcome.PERMIT);
    }

    @Test
    void anElasticGangIsEnqueuedWhenItsMinimumFits() {
        // minAvailable 1 of 2 members: Volcano enqueues on the minimum (its minResources), and one 8-GPU pod fits
        var d = decisions(objects(cluster(true)));

        assertThat(d.enqueueable(job(1, List.of(member("p0"), member("p1")))).outcome())
                .isEqualTo(GangVerdict.Outcome.PERMIT);
    }

    @Test
    void aTaskSentTwiceOrFromAnotherNamespaceIsCountedOnceOrNot() {
        List<GenericKubernetesResource> o = new ArrayList<>(cluster(false));
        o.add(member("p0", 8, "volcano"));
        var d = decisions(objects(o));
        ExtenderPod elsewhere = new ExtenderPod(new PodRef("other", "victim", "uid-victim"), Map.of(), IN_GROUP,
                "volcano", new ResourceRequests(Map.of("nvidia.com/gpu", BigDecimal.valueOf(8))),
                GangRef.of("other", Map.of(), IN_GROUP), null);

        // p0 twice and a pod of namespace "other" in a job of "prod": one 8-GPU request, which gpu-b holds
        assertThat(d.enqueueable(job(List.of(member("p0"), member("p0"), elsewhere))).outcome())
                .isEqualTo(GangVerdict.Outcome.PERMIT);
    }

    @Test
    void aMemberBeingDeletedOrOfAnotherSchedulerDoesNotCount() {
        List<GenericKubernetesResource> o = new ArrayList<>(cluster(false));
        o.add(member("p0", 8, "volcano"));
        GenericKubernetesResource leaving = member("p1", 8, "volcano");
        leaving.getMetadata().setDeletionTimestamp("2026-09-01T00:00:00Z");
        o.add(leaving);
        // any pod may carry the group annotation: one for kube-scheduler asking 64 GPUs must not hold the gang out
        o.add(member("squatter", 64, "default-scheduler"));
        var d = decisions(objects(o));

        assertThat(d.enqueueable(job(List.of(member("p0")))).outcome()).isEqualTo(GangVerdict.Outcome.PERMIT);
        // and the same when the snapshot carries no task yet: the members are counted for Volcano's schedulers only
        assertThat(d.enqueueable(job(List.of())).outcome()).isEqualTo(GangVerdict.Outcome.PERMIT);
    }
}
