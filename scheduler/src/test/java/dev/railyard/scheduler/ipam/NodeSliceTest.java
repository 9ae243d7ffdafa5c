package dev.railyard.scheduler.ipam;

import dev.railyard.api.whereabouts.IPPool;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Node-slice ("fast IPAM") mode: each node draws from its own slice into a per-node IPPool, exclude and
 * range_start/range_end are dropped (pkg/storage/kubernetes/ipam.go IPManagementKubernetesUpdate), and the slice's
 * first and last address are skipped.
 */
class NodeSliceTest {
    private final IpPoolLedger ledger = new IpPoolLedger(new IpamObjects.MutableClock(Instant.EPOCH),
            Duration.ofMinutes(5), null);
    private final PodNetworksRequest request = PodNetworksRequest.ofAnnotation("ml", "rail1");

    NodeSliceTest() {
        Map<String, String> slices = new LinkedHashMap<>();
        slices.put("10.20.0.0/24", "node-a");
        slices.put("10.20.1.0/24", "node-b");
        slices.put("10.20.2.0/24", "");
        Map<String, String> onA = new LinkedHashMap<>();
        for (int i = 1; i <= 10; i++) {
            onA.put(Integer.toString(i), "ml/p" + i);
        }
        ledger.update(IpamSnapshot.builder(Instant.EPOCH)
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad("ml", "rail1", "\"range\":\"10.20.0.0/16\","
                        + "\"node_slice_size\":\"/24\",\"network_name\":\"r1\",\"exclude\":[\"10.20.0.0/28\"],"
                        + "\"range_start\":\"10.20.0.100\""))
                .nodeSlicePool(IpamObjects.slicePool("r1", "10.20.0.0/16", "/24", slices))
                .ipPool(IpamObjects.pool("r1-node-a-10.20.0.0-24", "10.20.0.0/24", onA))
                .build());
    }

    @Test
    void eachNodeCountsItsOwnSliceWithoutExcludes() {
        PoolStatus a = ledger.check(request, 1, "node-a").pools().get(0);
        assertThat(a.poolName()).isEqualTo("r1-node-a-10.20.0.0-24");
        assertThat(a.node()).isEqualTo("node-a");
        assertThat(a.span()).isEqualTo("10.20.0.1-10.20.0.254");
        assertThat(a.usable()).isEqualTo(254); // the exclude 10.20.0.0/28 and range_start do not apply
        assertThat(a.free()).isEqualTo(244);
        PoolStatus b = ledger.check(request, 1, "node-b").pools().get(0);
        assertThat(b.poolName()).isEqualTo("r1-node-b-10.20.1.0-24");
        assertThat(b.free()).isEqualTo(254);
        assertThat(ledger.check(request, 245, "node-a").reason()).isEqualTo(PoolReason.POOL_EXHAUSTED);
        assertThat(ledger.check(request, 245, "node-b").admitted()).isTrue();
    }

    @Test
    void aNodeWithoutASliceIsRefused() {
        PoolVerdict c = ledger.check(request, 1, "node-c");
        assertThat(c.reason()).isEqualTo(PoolReason.NODE_SLICE_MISSING);
        assertThat(c.message()).contains("node node-c has no slice in NodeSlicePool r1");
    }

    @Test
    void withoutANodeTheSlicesAreSummedAndHoldsNeedTheNode() {
        PoolVerdict any = ledger.check(request, 498, null);
        assertThat(any.admitted()).isTrue();
        assertThat(any.pools().get(0).poolName()).isEqualTo("r1 (2 node slices)");
        assertThat(ledger.check(request, 499, null).admitted()).isFalse();
        assertThat(ledger.reserve(List.of(new PodPlacement("p", request, null))).reason())
                .isEqualTo(PoolReason.NODE_SLICE_MISSING);
        assertThat(ledger.reserve(List.of(new PodPlacement("p", request, "node-b"))).admitted()).isTrue();
        assertThat(ledger.check(request, 1, "node-b").pools().get(0).inFlight()).isEqualTo(1);
        assertThat(ledger.check(request, 1, "node-a").pools().get(0).inFlight()).isZero();
    }

    @Test
    void aNodeListedTwiceKeepsItsFirstSlice() {
        // whereabouts' node-slice lookup walks status.allocations in order and takes the first entry naming the node
        Map<String, String> slices = new LinkedHashMap<>();
        slices.put("10.20.5.0/24", "node-a");
        slices.put("10.20.6.0/24", "node-a");
        IpPoolLedger twice = new IpPoolLedger(new IpamObjects.MutableClock(Instant.EPOCH), Duration.ofMinutes(5), null);
        twice.update(IpamSnapshot.builder(Instant.EPOCH)
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad("ml", "rail1", "\"range\":\"10.20.0.0/16\","
                        + "\"node_slice_size\":\"/24\",\"network_name\":\"r1\""))
                .nodeSlicePool(IpamObjects.slicePool("r1", "10.20.0.0/16", "/24", slices))
                .build());
        assertThat(twice.check(request, 1, "node-a").pools().get(0).range()).isEqualTo("10.20.5.0/24");
    }

    @Test
    void aNewSnapshotReusesWhatItsPredecessorDecodedFromTheSameObjectsOnly() {
        IpamSnapshot before = ledger.snapshot();
        IPPool a = before.ipPools().getFirst();
        LedgerState first = new LedgerState(before, null);
        DecodedPool decoded = first.decode(a);
        // the same IPPool instance in the next snapshot (an informer event for another object): reused, not decoded
        LedgerState second = new LedgerState(before, null, first);
        assertThat(second.decode(a)).isSameAs(decoded);
        // a new version of the pool (whereabouts wrote one more allocation): decoded again, with it
        Map<String, String> more = new LinkedHashMap<>();
        for (int i = 1; i <= 11; i++) {
            more.put(Integer.toString(i), "ml/p" + i);
        }
        IPPool changed = IpamObjects.pool("r1-node-a-10.20.0.0-24", "10.20.0.0/24", more);
        LedgerState third = new LedgerState(before, null, second);
        assertThat(third.decode(changed)).isNotSameAs(decoded);
        assertThat(third.decode(changed).allocations()).hasSize(11);
        assertThat(decoded.allocations()).hasSize(10);
    }

    @Test
    void theOriginOfASlicedNetworkNamesItsRangeWithoutCountingSlices() {
        // the whole range and the NodeSlicePool; a network without slices: as check(request, 0, null) names it
        assertThat(ledger.origin(request)).isEqualTo(new AddressPools.NetworkOrigin("lan2", "10.20.0.0/16",
                "r1 (node slices)"));
        IpPoolLedger unsliced = new IpPoolLedger(new IpamObjects.MutableClock(Instant.EPOCH), Duration.ofMinutes(5),
                null);
        unsliced.update(IpamSnapshot.builder(Instant.EPOCH)
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad("ml", "rail1", "\"range\":\"10.30.0.0/24\""))
                .build());
        assertThat(unsliced.origin(request)).isEqualTo(new AddressPools.NetworkOrigin("lan2", "10.30.0.0/24",
                "10.30.0.0-24"));
        // before whereabouts' controller has sliced the range, neither is known, as the count cannot be made
        IpPoolLedger unsplit = new IpPoolLedger(new IpamObjects.MutableClock(Instant.EPOCH), Duration.ofMinutes(5),
                null);
        unsplit.update(IpamSnapshot.builder(Instant.EPOCH)
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad("ml", "rail1", "\"range\":\"10.20.0.0/16\","
                        + "\"node_slice_size\":\"/24\",\"network_name\":\"r1\""))
                .build());
        assertThat(unsplit.origin(request)).isEqualTo(new AddressPools.NetworkOrigin("lan2", null, null));
        assertThat(unsplit.check(request, 0, null).networks().get(0).pools()).isEmpty();
    }
}
