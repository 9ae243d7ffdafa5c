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
 * Bound pods whose address whereabouts has not recorded yet count as in flight, from the snapshot alone: a ledger
 * that has never held anything (a restarted Railyard) counts them, a hold that timed out hands over to them, and a
 * pod with both a hold and a pending address counts once (docs/adr/0005).
 */
class BoundPodAddressesTest {
    // 10.7.0.0/29: 6 usable (.1-.6, whereabouts skips network and broadcast); offsets 1..3 allocated -> 3 free
    private final IpamObjects.MutableClock clock = new IpamObjects.MutableClock(Instant.parse("2026-06-01T00:00:00Z"));
    private final PodNetworksRequest request = PodNetworksRequest.ofAnnotation("job", "rail");

    private IpamSnapshot snapshot(Map<String, IPAllocation> extra, List<PodPlacement> bound) {
        Map<String, IPAllocation> a = new LinkedHashMap<>();
        a.put("1", new IPAllocation("c1", "job/old-1", "net1"));
        a.put("2", new IPAllocation("c2", "job/old-2", "net1"));
        a.put("3", new IPAllocation("c3", "job/old-3", "net1"));
        a.putAll(extra);
        IpamSnapshot.Builder b = IpamSnapshot.builder(clock.instant())
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad("job", "rail", "\"range\":\"10.7.0.0/29\""))
                .ipPool(IpamObjects.poolWith(IpamObjects.WHEREABOUTS_NS, "10.7.0.0-29", "10.7.0.0/29", a))
                .livePods(List.of("job/old-1", "job/old-2", "job/old-3"));
        for (PodPlacement p : bound) {
            b.livePod(p.podRef()).boundPod(p);
        }
        return b.build();
    }

    private PodPlacement bound(String pod) {
        return new PodPlacement(pod, request, "node-1");
    }

    private static PoolStatus status(IpPoolLedger ledger) {
        return ledger.check(PodNetworksRequest.ofAnnotation("job", "rail"), 0, null).pools().get(0);
    }

    @Test
    void aFreshLedgerCountsBoundPodsWhoseAddressIsNotInThePoolYet() {
        IpPoolLedger ledger = new IpPoolLedger(clock);
        ledger.update(snapshot(Map.of(), List.of(bound("w-0"), bound("w-1"))));

        PoolStatus s = status(ledger);
        // 6 usable - 3 allocated - 2 bound pods waiting for their address = 1 free
        assertThat(s.allocated()).isEqualTo(3);
        assertThat(s.inFlight()).isEqualTo(2);
        assertThat(s.free()).isEqualTo(1);
        assertThat(ledger.check(request, 2, null).admitted()).isFalse();
        assertThat(ledger.check(request, 1, null).admitted()).isTrue();
    }

    @Test
    void oncePoolRecordsTheAddressItCountsOnceAsAnAllocation() {
        IpPoolLedger ledger = new IpPoolLedger(clock);
        ledger.update(snapshot(Map.of("4", new IPAllocation("c4", "job/w-0", "net1")), List.of(bound("w-0"))));

        PoolStatus s = status(ledger);
        // w-0 holds .4: 4 allocated, nothing in flight, 2 free
        assertThat(s.allocated()).isEqualTo(4);
        assertThat(s.inFlight()).isZero();
        assertThat(s.free()).isEqualTo(2);
    }

    @Test
    void anAllocationOnAnotherInterfaceDoesNotCountForThisOne() {
        // whereabouts keys an allocation by podref and interface: net2's address does not serve net1
        IpPoolLedger ledger = new IpPoolLedger(clock);
        ledger.update(snapshot(Map.of("4", new IPAllocation("c4", "job/w-0", "net2")), List.of(bound("w-0"))));

        PoolStatus s = status(ledger);
        assertThat(s.allocated()).isEqualTo(4);
        assertThat(s.inFlight()).isEqualTo(1);
        assertThat(s.free()).isEqualTo(1);
    }

    @Test
    void aPodWithAHoldThatIsThenBoundCountsOnce() {
        IpPoolLedger ledger = new IpPoolLedger(clock, Duration.ofMinutes(5), null);
        ledger.update(snapshot(Map.of(), List.of()));
        assertThat(ledger.reserve(List.of(bound("w-0"))).admitted()).isTrue();
        clock.advance(Duration.ofSeconds(1));
        ledger.update(snapshot(Map.of(), List.of(bound("w-0"))));

        assertThat(status(ledger).inFlight()).isEqualTo(1);
        assertThat(status(ledger).free()).isEqualTo(2);
    }

    @Test
    void aTimedOutHoldOfABoundPodStillCounts() {
        // the hold lapses after 5 minutes, but the pod is bound and whereabouts has not recorded it: still promised
        IpPoolLedger ledger = new IpPoolLedger(clock, Duration.ofMinutes(5), null);
        ledger.update(snapshot(Map.of(), List.of()));
        assertThat(ledger.reserve(List.of(bound("w-0"))).admitted()).isTrue();
        clock.advance(Duration.ofMinutes(6));
        ledger.update(snapshot(Map.of(), List.of(bound("w-0"))));

        assertThat(ledger.heldAddresses()).isZero();
        assertThat(status(ledger).inFlight()).isEqualTo(1);
        assertThat(status(ledger).free()).isEqualTo(2);
    }

    @Test
    void reservingAgainForABoundPodDoesNotCountItTwice() {
        // reserve() replaces the pod's own holds; its pending address must not block its own reservation either
        IpPoolLedger ledger = new IpPoolLedger(clock);
        ledger.update(snapshot(Map.of(), List.of(bound("w-0"), bound("w-1"), bound("w-2"))));
        assertThat(status(ledger).free()).isZero();

        PoolVerdict again = ledger.reserve(List.of(bound("w-2")));

        assertThat(again.admitted()).as(again.message()).isTrue();
        assertThat(status(ledger).inFlight()).isEqualTo(3);
    }
}
