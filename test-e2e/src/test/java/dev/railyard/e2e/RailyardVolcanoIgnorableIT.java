package dev.railyard.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.railyard.api.hints.HintAnnotations;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Railyard as vc-scheduler's extender with {@code ignorable: true} and every verb Volcano v1.14 offers except
 * {@code jobReadyVerb} (with ignorable, a failed jobReady returns "not ready" and nothing would commit during an
 * outage; docs/formats/volcano-extender.md §4 and docs/serve.md). {@code onSessionOpenVerb} is set here on purpose, to record its
 * body: with ignorable it cannot make Volcano skip the extender. Scenario: Railyard stopped mid-run, scheduling
 * continues without hints (its {@code pods/binding} webhook is down too, failurePolicy Ignore); once it is back the
 * hints are backfilled onto the bound pods, with a {@code RailyardHintsBackfilled} Event.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RailyardVolcanoIgnorableIT {

    private static final Duration BIND = Duration.ofSeconds(90);
    /** Railyard's start and cache sync, a hint sweep (every 2 s), the backfill's first delay (1 s) and its retries. */
    private static final Duration BACKFILL = Duration.ofSeconds(60);

    static final RecordingProxy PROXY = RailyardExtenders.proxy("RailyardVolcanoIgnorableIT");
    private static final RailyardProcess[] RAILYARD = new RailyardProcess[1];

    private static Map<String, String> verbsWithoutJobReady() {
        Map<String, String> v = new LinkedHashMap<>(RailyardExtenders.ALL_VOLCANO_VERBS);
        v.remove("jobReadyVerb");
        return v;
    }

    @RegisterExtension
    static final ControlPlaneExtension CLUSTER = new ControlPlaneExtension(ControlPlane.Options.volcano(
            SeedCluster.nodeNames(), RailyardExtenders.volcano(PROXY, verbsWithoutJobReady(), true),
            RailyardExtenders.prelude(PROXY, RAILYARD)));

    private KubernetesClient client;
    private ClusterView view;

    @BeforeEach
    void view() {
        client = CLUSTER.controlPlane().client();
        view = new ClusterView(client, SeedWorkloads.NAMESPACE);
    }

    @AfterEach
    void cleanUp() throws Exception {
        view.deleteAll(BIND);
        if (!RAILYARD[0].running()) {
            PROXY.backend(RAILYARD[0].start());
        }
        assertThat(CLUSTER.controlPlane().kubelet().errors()).isZero();
    }

    @AfterAll
    static void report() {
        System.out.println("[e2e] RailyardVolcanoIgnorableIT extender calls: " + PROXY.callCounts());
        PROXY.close();
    }

    @Test
    @Order(1)
    void withRailyardUpTheSeedJobIsPlacedOnAPairedNodeAndEveryConfiguredVerbIsCalled() {
        client.resource(SeedWorkloads.rdmaTestJob(client)).create();
        Pod pod = view.awaitJobBound("rdma-test", 1, BIND).getFirst();
        view.awaitPodGroupPhase("rdma-test", "Running", BIND);

        assertThat(pod.getSpec().getNodeName()).isIn(SeedCluster.nodesOf(FixtureMachines.PCIE_8GPU));
        // Verbs every cycle or every job reaches (preemptable/reclaimable need the preempt/reclaim actions).
        for (String verb : List.of("onSessionOpen", "onSessionClose", "predicate", "prioritize", "queueOverused",
                "jobEnqueueable", "allocateFunc")) {
            assertThat(PROXY.calls("/volcano/" + verb)).as(verb + " calls").isPositive();
        }
        // Hints on Volcano-bound pods are asserted in RailyardVolcanoIT; here only that Railyard took part.
    }

    @Test
    @Order(2)
    void railyardStoppedWithIgnorableTrueSchedulingContinuesWithoutHintsWhichAreBackfilledWithAnEventOnceItIsBack()
            throws Exception {
        RAILYARD[0].stop();
        PROXY.backend(null);
        int failedBefore = PROXY.totalFailures();

        try (PodVersions versions = PodVersions.watch(client, SeedWorkloads.NAMESPACE)) {
            // pinned to the case-06 nodes: Volcano without Railyard could put an 8-GPU pod on a case-05 node, whose
            // fixture dump ends inside GPU7's row, so Railyard knows only 7 of its GPUs and can write no hint there
            client.resource(SeedWorkloads.gangJob(client, "during-outage", 2, 8, Map.of(),
                    SeedCluster.nodesOf(FixtureMachines.PCIE_8GPU))).create();
            List<Pod> pods = view.awaitJobBound("during-outage", 2, BIND);
            view.awaitPodGroupPhase("during-outage", "Running", BIND);

            // vc-scheduler did call Railyard and got transport errors, and placed the gang anyway; the pods/binding
            // webhook was unreachable too, and with failurePolicy Ignore the API server bound them without hints.
            assertThat(PROXY.totalFailures()).as("failed extender calls during the outage").isGreaterThan(failedBefore);
            List<String> names = pods.stream().map(p -> p.getMetadata().getName()).toList();
            for (String n : names) {
                assertThat(ClusterView.annotation(view.pod(n), HintAnnotations.PLACEMENT)).as("hint on " + n).isEmpty();
            }

            // Railyard back: its sweep finds the bound pods without hints, patches the hints onto them after the fact
            // and says so in an Event (HintBackfill, docs/hints.md "backfilled")
            PROXY.backend(RAILYARD[0].start());
            for (Pod p : pods) {
                String n = p.getMetadata().getName();
                String node = view.pod(n).getSpec().getNodeName();
                versions.assertHintsPatchedAfterBinding(n, PodVersions.ATOMIC_KEYS, BACKFILL);
                Event event = awaitBackfillEvent(n);
                assertThat(event.getType()).isEqualTo("Normal");
                assertThat(event.getSource().getComponent()).isEqualTo("railyard");
                // HintBackfill.eventMessage with HintSweep's reason
                assertThat(event.getMessage()).isEqualTo("Railyard placement hints were not on the Binding (neither "
                        + "the bind verb nor the pods/binding webhook added them); added to the pod after binding to " + node
                        + ". Containers started before now (e.g. a 'railyard env' init container) did not see them.");
            }
            System.out.println("[e2e] RailyardVolcanoIgnorableIT pod versions (backfill path):\n"
                    + versions.describe(names));
        }
    }

    private Event awaitBackfillEvent(String pod) {
        try {
            return await().atMost(BACKFILL).pollInterval(Duration.ofMillis(250)).until(() -> view.events(pod).stream()
                    .filter(e -> "RailyardHintsBackfilled".equals(e.getReason())).findFirst(), Optional::isPresent)
                    .orElseThrow();
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("no RailyardHintsBackfilled Event on " + pod + " within " + BACKFILL.toSeconds()
                    + " s; events " + view.events(pod).stream().map(x -> x.getReason() + ": " + x.getMessage())
                    .toList(), e);
        }
    }
}
