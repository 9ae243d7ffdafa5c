package dev.railyard.scheduler.ipam;

import dev.railyard.api.whereabouts.IPAllocation;
import dev.railyard.api.whereabouts.NodeSlicePool;
import dev.railyard.api.multus.NetworkAttachmentDefinition;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Focused cases of {@link CarriedCounts}' reuse. What it keeps of a node no longer asked about (a deleted node: whereabouts' controller frees its
 * slice) must not pin the cluster's NodeSlicePools of that time: each is a list of every node's slice, rewritten on
 * every node that joins or leaves, and the node's entry stays until a map reaches {@link CarriedCounts#MAX_ENTRIES}.
 * Under node churn each deleted node would keep its own version of every NodeSlicePool alive.
 */
class CarriedCountsReuseTest {
    private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");
    private static final NetworkAttachmentDefinition NAD = IpamObjects.whereaboutsNad("ml", "rail1",
            "\"range\":\"10.20.0.0/24\",\"node_slice_size\":\"/28\",\"network_name\":\"r1\"");
    private static final PodNetworksRequest RAIL1 = PodNetworksRequest.ofAnnotation("ml", "rail1");

    @Test
    void aDeletedNodesCountsDoNotKeepTheNodeSlicePoolsOfTheirTime() throws InterruptedException {
        IpPoolLedger ledger = new IpPoolLedger(new IpamObjects.MutableClock(T0), Duration.ofMinutes(5), null);
        WeakReference<NodeSlicePool> before = countNodeGone(ledger);
        for (int i = 0; i < 50 && before.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertThat(before.get()).as("the NodeSlicePool n0 was counted under, before it left").isNull();
    }

    /** n0 is checked (its pod not recorded yet), then leaves; n1 is checked twice after. */
    private static WeakReference<NodeSlicePool> countNodeGone(IpPoolLedger ledger) {
        NodeSlicePool withN0 = slicePool(Map.of("10.20.0.0/28", "n0", "10.20.0.16/28", "n1"));
        ledger.update(snapshot(withN0, 1, new PodPlacement("p0", RAIL1, "n0"), new PodPlacement("p1", RAIL1, "n1")));
        assertThat(ledger.check(RAIL1, 1, "n0").admitted()).isTrue();
        assertThat(ledger.check(RAIL1, 1, "n1").admitted()).isTrue();
        for (int s = 2; s <= 3; s++) { // n0 deleted: its slice freed, the NodeSlicePool rewritten each time
            ledger.update(snapshot(slicePool(Map.of("10.20.0.0/28", "", "10.20.0.16/28", "n1")), s,
                    new PodPlacement("p1", RAIL1, "n1")));
            assertThat(ledger.check(RAIL1, 1, "n1").admitted()).isTrue();
            assertThat(ledger.check(RAIL1, 1, null).admitted()).isTrue();
        }
        return new WeakReference<>(withN0);
    }

    /**
     * Two node-slice networks without {@code network_name} over one range name a node's pool alike (whereabouts'
     * {@code IPPoolName}: node and slice), each from its own NodeSlicePool. A pod of the second network drawing from
     * the pool counts in flight in the first's check on the node until the second's NodeSlicePool moves the node to
     * another slice: then the pod draws from another pool, though the pod, the first's slice and the pool did not
     * change.
     */
    @Test
    void aPodLeavesAPoolItsOwnNetworksSliceNoLongerNames() {
        String ipam = "\"range\":\"10.20.0.0/24\",\"node_slice_size\":\"/28\"";
        NetworkAttachmentDefinition a = IpamObjects.whereaboutsNad("ml", "rail-a", ipam);
        NetworkAttachmentDefinition b = IpamObjects.whereaboutsNad("ml", "rail-b", ipam);
        NodeSlicePool sliceA = IpamObjects.slicePool("rail-a", "10.20.0.0/24", "/28",
                new LinkedHashMap<>(Map.of("10.20.0.0/28", "n0")));
        PodPlacement pod = new PodPlacement("p", PodNetworksRequest.ofAnnotation("ml", "rail-b"), "n0");
        PodNetworksRequest railA = PodNetworksRequest.ofAnnotation("ml", "rail-a");
        IpPoolLedger carried = new IpPoolLedger(new IpamObjects.MutableClock(T0), Duration.ofMinutes(5), null);
        for (int s = 1; s <= 2; s++) { // n0's slice of rail-b: the same as rail-a's, then another
            IpamSnapshot snapshot = IpamSnapshot.builder(T0.plusSeconds(s)).networkAttachmentDefinition(a)
                    .networkAttachmentDefinition(b).nodeSlicePool(sliceA)
                    .nodeSlicePool(IpamObjects.slicePool("rail-b", "10.20.0.0/24", "/28", new LinkedHashMap<>(
                            Map.of(s == 1 ? "10.20.0.0/28" : "10.20.0.16/28", "n0"))))
                    .boundPod(pod).livePod(pod.podRef()).build();
            carried.update(snapshot);
            IpPoolLedger fresh = new IpPoolLedger(new IpamObjects.MutableClock(T0), Duration.ofMinutes(5), null);
            fresh.update(snapshot);
            PoolVerdict v = carried.check(railA, 1, "n0");
            assertThat(v).as("snapshot %d", s).isEqualTo(fresh.check(railA, 1, "n0"));
            assertThat(v.networks().get(0).pools().get(0).inFlight()).as("snapshot %d", s).isEqualTo(2 - s);
        }
    }

    private static NodeSlicePool slicePool(Map<String, String> slices) {
        return IpamObjects.slicePool("r1", "10.20.0.0/24", "/28", new LinkedHashMap<>(slices));
    }

    private static IpamSnapshot snapshot(NodeSlicePool nsp, int second, PodPlacement... bound) {
        IpamSnapshot.Builder b = IpamSnapshot.builder(T0.plusSeconds(second)).networkAttachmentDefinition(NAD)
                .nodeSlicePool(nsp)
                .ipPool(IpamObjects.poolWith(IpamObjects.WHEREABOUTS_NS, "r1-n1-10.20.0.16-28", "10.20.0.16/28",
                        Map.of("1", new IPAllocation("c", "ml/other", "net1"))));
        for (PodPlacement p : List.of(bound)) {
            b.boundPod(p).livePod(p.podRef());
        }
        return b.build();
    }
}
