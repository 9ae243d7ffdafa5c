package dev.railyard.scheduler.cluster;

import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.ipam.IpamObjects;
import dev.railyard.scheduler.ipam.IpamSnapshot;
import dev.railyard.scheduler.ipam.PodChanges;
import dev.railyard.scheduler.ipam.PodNetworksRequest;
import dev.railyard.scheduler.ipam.PodPlacement;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Property: the {@link PodChanges} the cluster state hands the pool ledger with each {@link IpamSnapshot} say exactly
 * which pods' placements changed since the snapshot before (the instances then and now), name at least every pod
 * that came or went, and point at the earlier snapshot's own lists; and a ledger that updates what it carried by them
 * answers every check as a ledger given the same snapshot fresh does (docs/adr/0020, addendum "pod changes").
 *
 * <p>200 seeded runs of 40 informer events over six pods (one with an empty namespace, so its key and its podref
 * differ) and two networks (10.30.0.0/24 and 10.40.0.0/24): a pod
 * created pending, bound to one of two nodes, moved, re-sent equal, given other networks or none, deleted; an IPPool
 * written with some of the pods recorded; a snapshot taken after one to three events.
 */
class PodChangesPropertyTest {
    private static final Instant T0 = Instant.parse("2026-12-03T00:00:00Z");
    private static final List<String> ANNOTATIONS = List.of("rail", "rail,rail2", "rail2", "");

    @Test
    void podChangesMatchTheSnapshotsAndTheCarriedLedgerAnswersAsAFreshOne() {
        PodNetworksRequest both = PodNetworksRequest.ofAnnotation("ml", "rail,rail2");
        for (long seed = 0; seed < 200; seed++) {
            Random rnd = new Random(seed);
            Clock clock = Clock.fixed(T0, ZoneOffset.UTC);
            IpPoolLedger carried = new IpPoolLedger(clock, Duration.ofMinutes(5), null);
            List<IpamSnapshot> fed = new ArrayList<>();
            ClusterState state = new ClusterState(null, null, s -> {
                fed.add(s);
                carried.update(s);
            }, clock);
            state.upsert(WatchedKind.NETWORK_ATTACHMENT_DEFINITION, ClusterFixtures.nad("ml", "rail", "lan2",
                    "10.30.0.0/24"));
            state.upsert(WatchedKind.NETWORK_ATTACHMENT_DEFINITION, ClusterFixtures.nad("ml", "rail2", "lan3",
                    "10.40.0.0/24"));
            state.snapshot();
            assertThat(fed).hasSize(1);
            assertThat(fed.getFirst().podChanges()).as("the first snapshot has no predecessor").isNull();
            for (int event = 0; event < 40; event++) {
                change(state, rnd);
                if (rnd.nextInt(3) != 0) {
                    continue;
                }
                int before = fed.size();
                state.snapshot();
                if (fed.size() == before) {
                    continue; // nothing the ledger reads changed
                }
                IpamSnapshot now = fed.getLast();
                String at = "seed " + seed + " event " + event;
                assertChanges(fed.get(fed.size() - 2), now, at);
                IpPoolLedger fresh = new IpPoolLedger(clock, Duration.ofMinutes(5), null);
                fresh.update(now);
                for (String node : new String[]{"n0", "n1", null}) {
                    int pods = 1 + rnd.nextInt(3);
                    assertThat(carried.check(both, pods, node)).as("%s node %s", at, node)
                            .isEqualTo(fresh.check(both, pods, node));
                }
            }
        }
    }

    /** The changes {@code now} carries, against the two snapshots' own lists. */
    private static void assertChanges(IpamSnapshot before, IpamSnapshot now, String at) {
        PodChanges c = now.podChanges();
        assertThat(c).as(at).isNotNull();
        assertThat(c.livePodsBefore()).as(at).isSameAs(before.livePods());
        assertThat(c.boundPodsBefore()).as(at).isSameAs(before.boundPods());
        // the changes the two snapshots' own lists imply: placements compared by identity (IpamObjects.withChanges)
        PodChanges implied = IpamObjects.withChanges(before, now).podChanges();
        assertThat(c.liveChanged()).as(at).containsAll(implied.liveChanged()); // both are state keys here
        // the state keys its changes by its own pod key; the placements' podrefs name the same pods
        assertThat(byKey(List.copyOf(c.boundBefore().values()))).as(at).isEqualTo(implied.boundBefore());
        assertThat(byKey(List.copyOf(c.boundAfter().values()))).as(at).isEqualTo(implied.boundAfter());
        Map<String, PodPlacement> then = byKey(before.boundPods());
        Map<String, PodPlacement> after = byKey(now.boundPods());
        c.boundBefore().forEach((k, p) -> assertThat(p).as(at).isSameAs(then.get(p.podRef())));
        c.boundAfter().forEach((k, p) -> assertThat(p).as(at).isSameAs(after.get(p.podRef())));
    }

    private static Map<String, PodPlacement> byKey(List<PodPlacement> pods) {
        Map<String, PodPlacement> m = new HashMap<>();
        pods.forEach(p -> m.put(p.podRef(), p));
        return m;
    }

    private static void change(ClusterState state, Random rnd) {
        String pod = "p" + rnd.nextInt(6);
        // p5 has an empty namespace: the state keys it default/p5, whereabouts' podref is "/p5"; its networks are
        // named with their namespace so that it draws from the pools all the same
        String ns = pod.equals("p5") ? "" : "ml";
        switch (rnd.nextInt(6)) {
            case 0 -> state.delete(WatchedKind.POD, ClusterFixtures.pod(ns, pod, null, Map.of(), Map.of()));
            case 1 -> { // whereabouts writes a pool, recording some pods (on net1)
                boolean second = rnd.nextBoolean();
                List<String> refs = new ArrayList<>();
                for (int i = rnd.nextInt(5); i > 0; i--) {
                    refs.add("ml/p" + rnd.nextInt(8));
                }
                state.upsert(WatchedKind.IP_POOL, ClusterFixtures.ipPool("kube-system",
                        second ? "10.40.0.0-24" : "10.30.0.0-24", second ? "10.40.0.0/24" : "10.30.0.0/24", refs));
            }
            default -> {
                String node = switch (rnd.nextInt(3)) {
                    case 0 -> null;
                    case 1 -> "n0";
                    default -> "n1";
                };
                String networks = ANNOTATIONS.get(rnd.nextInt(ANNOTATIONS.size()));
                if (ns.isEmpty() && !networks.isEmpty()) {
                    networks = "ml/" + networks.replace(",", ",ml/");
                }
                GenericKubernetesResource p = ClusterFixtures.pod(ns, pod, node, networks.isEmpty() ? Map.of()
                        : Map.of("k8s.v1.cni.cncf.io/networks", networks), Map.of("cpu", "1"));
                state.upsert(WatchedKind.POD, p);
            }
        }
    }
}
