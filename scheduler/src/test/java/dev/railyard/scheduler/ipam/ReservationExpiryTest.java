package dev.railyard.scheduler.ipam;

import dev.railyard.api.whereabouts.IPAllocation;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Holds end when the pool shows the pod's new allocation, when the pod is gone, on release, or on timeout. */
class ReservationExpiryTest {
    // 10.7.0.0/29: 6 usable (.1-.6); offsets 1..3 allocated -> 3 free
    private final IpamObjects.MutableClock clock = new IpamObjects.MutableClock(Instant.parse("2026-06-01T00:00:00Z"));
    private final IpPoolLedger ledger = new IpPoolLedger(clock, Duration.ofMinutes(5), null);
    private final PodNetworksRequest request = PodNetworksRequest.ofAnnotation("job", "rail");

    private IpamSnapshot snapshot(Instant takenAt, Map<String, IPAllocation> extra, String... livePods) {
        Map<String, IPAllocation> a = new LinkedHashMap<>();
        a.put("1", new IPAllocation("c1", "job/old-1", "net1"));
        a.put("2", new IPAllocation("c2", "job/old-2", "net1"));
        a.put("3", new IPAllocation("c3", "job/old-3", "net1"));
        a.putAll(extra);
        return IpamSnapshot.builder(takenAt)
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad("job", "rail", "\"range\":\"10.7.0.0/29\""))
                .ipPool(IpamObjects.poolWith(IpamObjects.WHEREABOUTS_NS, "10.7.0.0-29", "10.7.0.0/29", a))
                .livePods(List.of(livePods))
                .build();
    }

    private PoolStatus status() {
        return ledger.check(request, 0, null).pools().get(0);
    }

    private PodPlacement place(String pod) {
        return new PodPlacement(pod, request, "node-1");
    }

    @Test
    void holdEndsWhenThePoolShowsThePodsAllocation() {
        ledger.update(snapshot(clock.instant(), Map.of(), "job/w-0"));
        assertThat(ledger.reserve(List.of(place("w-0"))).admitted()).isTrue();
        assertThat(status().free()).isEqualTo(2);
        assertThat(status().inFlight()).isEqualTo(1);

        clock.advance(Duration.ofSeconds(3));
        ledger.update(snapshot(clock.instant(), Map.of("4", new IPAllocation("c9", "job/w-0", "net1")), "job/w-0"));
        assertThat(status().inFlight()).isZero(); // counted once, as an allocation
        assertThat(status().allocated()).isEqualTo(4);
        assertThat(status().free()).isEqualTo(2);
    }

    @Test
    void anAllocationThePodAlreadyHadDoesNotEndTheHold() {
        // StatefulSet pod re-placed while its old address is still in the pool (case-28/31 situation)
        Map<String, IPAllocation> old = Map.of("5", new IPAllocation("old", "job/w-0", "net1"));
        ledger.update(snapshot(clock.instant(), old, "job/w-0"));
        assertThat(ledger.reserve(List.of(place("w-0"))).admitted()).isTrue();
        clock.advance(Duration.ofSeconds(1));
        ledger.update(snapshot(clock.instant(), old, "job/w-0"));
        assertThat(status().inFlight()).isEqualTo(1);
        assertThat(status().free()).isEqualTo(1); // 6 usable - 4 allocated - 1 held
    }

    @Test
    void holdEndsWhenALaterSnapshotNoLongerListsThePod() {
        ledger.update(snapshot(clock.instant(), Map.of(), "job/w-0"));
        Instant before = clock.instant();
        clock.advance(Duration.ofSeconds(1));
        assertThat(ledger.reserve(List.of(place("w-0"))).admitted()).isTrue();

        ledger.update(snapshot(before, Map.of())); // older than the hold: the pod may simply not be seen yet
        assertThat(status().inFlight()).isEqualTo(1);

        clock.advance(Duration.ofSeconds(1));
        ledger.update(snapshot(clock.instant(), Map.of()));
        assertThat(status().inFlight()).isZero();
    }

    @Test
    void holdEndsAfterTheTimeout() {
        ledger.update(snapshot(clock.instant(), Map.of(), "job/w-0", "job/w-1"));
        assertThat(ledger.reserve(List.of(place("w-0"))).admitted()).isTrue();
        clock.advance(Duration.ofMinutes(2));
        assertThat(ledger.reserve(List.of(place("w-1"))).admitted()).isTrue();
        assertThat(status().inFlight()).isEqualTo(2);
        clock.advance(Duration.ofMinutes(3)); // w-0 is 5 minutes old
        assertThat(status().inFlight()).isEqualTo(1);
        clock.advance(Duration.ofMinutes(2));
        assertThat(status().inFlight()).isZero();
        assertThat(ledger.heldAddresses()).isZero();
    }

    @Test
    void releaseDropsThePodsHoldsAndReReserveDoesNotDoubleCount() {
        ledger.update(snapshot(clock.instant(), Map.of(), "job/w-0"));
        assertThat(ledger.reserve(List.of(place("w-0"))).admitted()).isTrue();
        assertThat(ledger.reserve(List.of(place("w-0"))).admitted()).isTrue();
        assertThat(status().inFlight()).isEqualTo(1);
        assertThat(ledger.release("job/w-0")).isEqualTo(1);
        assertThat(ledger.release("job/w-0")).isZero();
        assertThat(status().free()).isEqualTo(3);
    }

    @Test
    void gangReservationIsAllOrNothing() {
        ledger.update(snapshot(clock.instant(), Map.of()));
        PoolVerdict four = ledger.reserve(List.of(place("w-0"), place("w-1"), place("w-2"), place("w-3")));
        assertThat(four.reason()).isEqualTo(PoolReason.POOL_EXHAUSTED);
        assertThat(four.message()).contains("3 of 6 free").contains("4 needed");
        assertThat(ledger.heldAddresses()).isZero();
        assertThat(ledger.reserve(List.of(place("w-0"), place("w-1"), place("w-2"))).admitted()).isTrue();
        assertThat(status().free()).isZero();
    }

    @Test
    void aNetworkListedTwiceNeedsTwoAddressesPerPod() {
        ledger.update(snapshot(clock.instant(), Map.of()));
        PodNetworksRequest twice = PodNetworksRequest.ofAnnotation("job", "rail,rail");
        assertThat(ledger.check(twice, 1, null).admitted()).isTrue();
        PoolVerdict two = ledger.check(twice, 2, null);
        assertThat(two.reason()).isEqualTo(PoolReason.POOL_EXHAUSTED);
        assertThat(two.pools()).singleElement().satisfies(p -> assertThat(p.needed()).isEqualTo(4));
        assertThat(ledger.reserve(List.of(new PodPlacement("w-0", twice, "n")))).satisfies(v ->
                assertThat(v.admitted()).isTrue());
        assertThat(status().inFlight()).isEqualTo(2);
    }
}
