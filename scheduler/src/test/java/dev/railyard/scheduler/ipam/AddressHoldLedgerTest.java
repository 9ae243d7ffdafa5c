package dev.railyard.scheduler.ipam;

import dev.railyard.api.whereabouts.IPAllocation;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ledger's holds as the reservation model describes them (docs/adr/0011-address-holds.md): who, since, until,
 * a pod's own hold not counted against it, persisted holds adopted after a restart, releases not undone by an
 * annotation still in the cluster, a Binding that never landed.
 *
 * <p>Pool: 10.7.0.0/28, 14 usable (.1-.14, whereabouts skips network and broadcast); offsets 1..4 allocated to
 * running pods, so 10 free: the K = 10 of issue 15.
 */
class AddressHoldLedgerTest {
    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
    private final IpamObjects.MutableClock clock = new IpamObjects.MutableClock(T0);
    private final IpPoolLedger ledger = new IpPoolLedger(clock, Duration.ofMinutes(5), null);
    private final PodNetworksRequest rail = PodNetworksRequest.ofAnnotation("job", "rail");

    private IpamSnapshot.Builder snapshot(Instant takenAt) {
        return IpamObjects.tenFreeRail(takenAt);
    }

    private HoldRequest request(String pod, HoldOrigin origin, Duration ttl) {
        return new HoldRequest(new PodPlacement(pod, rail, "gpu-a1"), "uid-" + pod, origin, ttl);
    }

    private PoolStatus pool() {
        return ledger.check(rail, 0, null).pools().get(0);
    }

    @Test
    void aHoldNamesThePodItsUidNodeOriginSinceAndUntil() {
        ledger.update(snapshot(T0).build());
        assertThat(ledger.hold(List.of(request("w-0", HoldOrigin.BIND, Duration.ofMinutes(5)))).admitted()).isTrue();

        assertThat(ledger.holds()).singleElement().satisfies(h -> {
            assertThat(h.podRef()).isEqualTo("job/w-0");
            assertThat(h.uid()).isEqualTo("uid-w-0");
            assertThat(h.node()).isEqualTo("gpu-a1");
            assertThat(h.origin()).isEqualTo(HoldOrigin.BIND);
            assertThat(h.since()).isEqualTo(T0);
            assertThat(h.until()).isEqualTo(T0.plus(Duration.ofMinutes(5)));
            assertThat(h.pools()).containsExactly("10.7.0.0-28");
            assertThat(h.interfaces()).containsExactly("net1");
            assertThat(h.persisted()).isFalse();
        });
        assertThat(pool().inFlight()).isEqualTo(1);
        assertThat(pool().free()).isEqualTo(9); // 14 usable - 4 allocated - 1 held
    }

    @Test
    void aRepeatedCheckIsAnsweredAgainAfterEveryHoldReleaseExpiryAndPoolChange() {
        ledger.update(snapshot(T0).build());
        // the same question asked again (as a gang's predicates ask it once per node) gets the same answer ...
        PoolVerdict first = ledger.checkPod(rail, "job/w-19", null);
        assertThat(ledger.checkPod(rail, "job/w-19", null)).isSameAs(first);
        assertThat(first.pools().get(0).free()).isEqualTo(10);
        // ... until a hold is taken (14 usable - 4 allocated - 1 held), released, or expires
        assertThat(ledger.hold(List.of(request("w-0", HoldOrigin.FILTER, Duration.ofSeconds(30)))).admitted()).isTrue();
        assertThat(ledger.checkPod(rail, "job/w-19", null).pools().get(0).free()).isEqualTo(9);
        ledger.release("job/w-0");
        assertThat(ledger.checkPod(rail, "job/w-19", null).pools().get(0).free()).isEqualTo(10);
        assertThat(ledger.hold(List.of(request("w-1", HoldOrigin.FILTER, Duration.ofSeconds(30)))).admitted()).isTrue();
        assertThat(ledger.checkPod(rail, "job/w-19", null).pools().get(0).free()).isEqualTo(9);
        clock.advance(Duration.ofSeconds(31));
        assertThat(ledger.checkPod(rail, "job/w-19", null).pools().get(0).free()).isEqualTo(10);
        // ... or the pools change: a fifth address allocated to a running pod
        Map<String, IPAllocation> a = new LinkedHashMap<>();
        for (int i = 1; i <= 5; i++) {
            a.put(Integer.toString(i), new IPAllocation("c" + i, "job/old-" + i, "net1"));
        }
        ledger.update(IpamSnapshot.builder(clock.instant())
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad("job", "rail", "\"range\":\"10.7.0.0/28\""))
                .ipPool(IpamObjects.poolWith(IpamObjects.WHEREABOUTS_NS, "10.7.0.0-28", "10.7.0.0/28", a))
                .livePods(List.of("job/w-19")).build());
        assertThat(ledger.checkPod(rail, "job/w-19", null).pools().get(0).free()).isEqualTo(9);
    }

    @Test
    void aPodsOwnHoldDoesNotCountAgainstItAndHoldingAgainReplacesIt() {
        ledger.update(snapshot(T0).build());
        for (int i = 0; i < 10; i++) {
            assertThat(ledger.hold(List.of(request("w-" + i, HoldOrigin.FILTER, Duration.ofSeconds(30))))
                    .admitted()).isTrue();
        }
        // the pool is full for everyone else ...
        assertThat(ledger.checkPod(rail, "job/w-10", null).admitted()).isFalse();
        assertThat(ledger.hold(List.of(request("w-10", HoldOrigin.BIND, Duration.ofMinutes(5)))).reason())
                .isEqualTo(PoolReason.POOL_EXHAUSTED);
        // ... but w-3's filter hold is its own: its bind is admitted and replaces it (still 10 in flight)
        assertThat(ledger.checkPod(rail, "job/w-3", null).admitted()).isTrue();
        clock.advance(Duration.ofSeconds(1));
        assertThat(ledger.hold(List.of(request("w-3", HoldOrigin.BIND, Duration.ofMinutes(5)))).admitted()).isTrue();
        assertThat(pool().inFlight()).isEqualTo(10);
        assertThat(ledger.holdOf("job/w-3").origin()).isEqualTo(HoldOrigin.BIND);
        assertThat(ledger.holdOf("job/w-3").since()).isEqualTo(T0.plusSeconds(1));
    }

    @Test
    void filterHoldsEndAtTheirShortExpiryBindHoldsStay() {
        ledger.update(snapshot(T0).build());
        ledger.hold(List.of(request("w-0", HoldOrigin.FILTER, Duration.ofSeconds(30))));
        ledger.hold(List.of(request("w-1", HoldOrigin.BIND, Duration.ofMinutes(5))));
        clock.advance(Duration.ofSeconds(30));
        assertThat(ledger.holds()).extracting(AddressHold::podRef).containsExactly("job/w-1");
        assertThat(pool().free()).isEqualTo(9);
    }

    @Test
    void persistedHoldsAreAdoptedByAFreshLedgerUntilTheirExpiry() {
        // a restarted replica: nothing in memory, ten holds written on pods by the replica before it
        IpamSnapshot.Builder b = snapshot(T0.plusSeconds(60));
        for (int i = 0; i < 10; i++) {
            b.heldPod(new PersistedHold(new PodPlacement("w-" + i, rail, "gpu-a1"), "uid-w-" + i,
                    HoldOrigin.ALLOCATE, T0, T0.plus(Duration.ofMinutes(5))));
        }
        b.heldPod(new PersistedHold(new PodPlacement("w-10", rail, "gpu-a1"), "uid-w-10", HoldOrigin.ALLOCATE,
                T0.minus(Duration.ofMinutes(6)), T0.minus(Duration.ofMinutes(1)))); // expired: not adopted
        clock.advance(Duration.ofSeconds(60));
        ledger.update(b.build());

        assertThat(pool().inFlight()).isEqualTo(10);
        assertThat(pool().free()).isZero();
        assertThat(ledger.hold(List.of(request("w-11", HoldOrigin.ALLOCATE, Duration.ofMinutes(5)))).admitted())
                .isFalse();
        assertThat(ledger.holds()).hasSize(10).allSatisfy(h -> {
            assertThat(h.persisted()).isTrue();
            assertThat(h.origin()).isEqualTo(HoldOrigin.ALLOCATE);
            assertThat(h.since()).isEqualTo(T0);
        });
        clock.advance(Duration.ofMinutes(4)); // T0 + 5 min: every adopted hold has expired
        assertThat(pool().free()).isEqualTo(10);
    }

    @Test
    void anAdoptedHoldEndsWhenTheClusterNoLongerShowsIt() {
        PersistedHold h = new PersistedHold(new PodPlacement("w-0", rail, "gpu-a1"), "uid-w-0", HoldOrigin.ALLOCATE,
                T0, T0.plus(Duration.ofMinutes(5)));
        ledger.update(snapshot(T0).heldPod(h).build());
        assertThat(pool().inFlight()).isEqualTo(1);
        // the leader that took it released it (deallocateFunc removed the annotation)
        ledger.update(snapshot(T0.plusSeconds(1)).build());
        assertThat(pool().inFlight()).isZero();
    }

    @Test
    void aReleaseIsNotUndoneByTheAnnotationStillInTheCluster() {
        ledger.update(snapshot(T0).build());
        ledger.hold(List.of(request("w-0", HoldOrigin.ALLOCATE, Duration.ofMinutes(5))));
        PersistedHold written = new PersistedHold(new PodPlacement("w-0", rail, "gpu-a1"), "uid-w-0",
                HoldOrigin.ALLOCATE, T0, T0.plus(Duration.ofMinutes(5)));
        ledger.update(snapshot(T0).heldPod(written).build());
        assertThat(ledger.holdOf("job/w-0").persisted()).isTrue();

        assertThat(ledger.release("job/w-0")).isEqualTo(1); // deallocateFunc; the annotation's removal is on its way
        ledger.update(snapshot(T0.plusSeconds(1)).heldPod(written).build());
        assertThat(pool().inFlight()).isZero();
        // removal seen, then the pod is held again with a new annotation: adopted as any other
        ledger.update(snapshot(T0.plusSeconds(2)).build());
        PersistedHold again = new PersistedHold(new PodPlacement("w-0", rail, "gpu-a1"), "uid-w-0",
                HoldOrigin.ALLOCATE, T0.plusSeconds(3), T0.plus(Duration.ofMinutes(6)));
        IpPoolLedger restarted = new IpPoolLedger(clock, Duration.ofMinutes(5), null);
        restarted.update(snapshot(T0.plusSeconds(4)).heldPod(again).build());
        assertThat(restarted.check(rail, 0, null).pools().get(0).inFlight()).isEqualTo(1);
    }

    @Test
    void aBindHoldWhoseBindingNeverLandedEndsAfterTheGrace() {
        ledger.update(snapshot(T0).build());
        ledger.hold(List.of(request("w-0", HoldOrigin.BIND, Duration.ofMinutes(5))));
        ledger.update(snapshot(T0.plusSeconds(29)).build()); // pod still unbound, within the grace: held
        assertThat(pool().inFlight()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(31));
        ledger.update(snapshot(T0.plusSeconds(31)).build());
        assertThat(pool().inFlight()).isZero();
    }

    @Test
    void aBoundPodAndItsHoldCountOnceAndTheBoundPodIsListedAsAHolder() {
        ledger.update(snapshot(T0).build());
        ledger.hold(List.of(request("w-0", HoldOrigin.BIND, Duration.ofMinutes(5))));
        clock.advance(Duration.ofSeconds(40));
        ledger.update(snapshot(T0.plusSeconds(40)).boundPod(new PodPlacement("w-0", rail, "gpu-a1"))
                .boundPod(new PodPlacement("w-1", rail, "gpu-a2")).build());
        assertThat(pool().inFlight()).isEqualTo(2); // w-0 held and bound: once; w-1 bound without a hold
        assertThat(ledger.holds()).extracting(AddressHold::podRef, AddressHold::origin, AddressHold::node)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("job/w-0", HoldOrigin.BIND, "gpu-a1"),
                        org.assertj.core.groups.Tuple.tuple("job/w-1", HoldOrigin.BOUND, "gpu-a2"));
    }

    @Test
    void aGangsOwnHoldsDoNotCountAgainstTheGang() {
        ledger.update(snapshot(T0).build());
        for (int i = 0; i < 6; i++) {
            ledger.hold(List.of(request("other-" + i, HoldOrigin.ALLOCATE, Duration.ofMinutes(5))));
        }
        // 4 free; a gang of 4 whose first member Volcano allocated: 3 free for others, 4 for the gang itself
        ledger.hold(List.of(request("w-0", HoldOrigin.ALLOCATE, Duration.ofMinutes(5))));
        java.util.Set<String> gang = java.util.Set.of("job/w-0", "job/w-1", "job/w-2", "job/w-3");
        assertThat(ledger.check(List.of(new PoolDemand(rail, 4, null, gang))).admitted()).isTrue();
        assertThat(ledger.check(List.of(new PoolDemand(rail, 4, null))).admitted()).isFalse();
    }
}
