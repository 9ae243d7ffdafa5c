package dev.railyard.scheduler.ipam;

import dev.railyard.api.multus.NetworkAttachmentDefinition;
import dev.railyard.api.whereabouts.IPAllocation;
import dev.railyard.api.whereabouts.IPPool;
import dev.railyard.api.whereabouts.NodeSlicePool;
import dev.railyard.api.whereabouts.OverlappingRangeIPReservation;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Property: a ledger that carries its counts from one snapshot to the next ({@link CarriedCounts}) answers every
 * check exactly as a ledger given the same snapshot fresh. 300 seeded runs of 12 snapshots each over a node-slice
 * network (overlapping ranges on, so reservations count) beside a plain one; each step changes a few objects and
 * keeps every other object the same instance, as the informers do: one node's IPPool gains or loses an allocation
 * (or is re-sent unchanged), a reservation appears or goes, a pod is deleted (its allocations turn stale) or comes
 * back, a node takes another slice (a new NodeSlicePool), a pod is bound or unbound, or the NetworkAttachmentDefinition
 * is re-sent (as it was, overlapping ranges off, or a wider range). Checked after each step: each node's check, the whole-network
 * check a gang makes (no node), and both with a hold in flight.
 */
class CarriedCountsPropertyTest {
    private static final int NODES = 6;
    private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");

    @Test
    void carriedCountsAnswerAsAFreshLedgerDoes() {
        for (long seed = 0; seed < 300; seed++) {
            Random rnd = new Random(seed);
            World w = new World();
            // odd seeds: whereabouts' namespace given, so objects elsewhere are left out
            String ns = seed % 2 == 0 ? null : IpamObjects.WHEREABOUTS_NS;
            IpPoolLedger carried = ledger(ns);
            for (int step = 0; step < 12; step++) {
                int changes = 1 + rnd.nextInt(3);
                for (int c = 0; c < changes; c++) {
                    w.change(rnd);
                }
                IpamSnapshot s = w.snapshot(T0.plusSeconds(step));
                carried.update(s);
                IpPoolLedger fresh = ledger(ns);
                fresh.update(s);
                if (rnd.nextInt(3) == 0) { // every pool's unrecorded addresses at once, before the node checks
                    assertThat(carried.holds()).as("seed %d step %d holds", seed, step).isEqualTo(fresh.holds());
                }
                PodNetworksRequest both = PodNetworksRequest.ofAnnotation("ml", "rail1,rail2");
                for (int n = 0; n <= NODES; n++) {
                    String node = n == NODES ? null : "n" + n;
                    assertThat(carried.check(both, 2, node)).as("seed %d step %d node %s", seed, step, node)
                            .isEqualTo(fresh.check(both, 2, node));
                }
                // a hold in both: the in-flight counts of the node's pool and of the whole network agree too
                String node = "n" + rnd.nextInt(NODES);
                HoldRequest hold = new HoldRequest(new PodPlacement("held", both, node), "uid-held",
                        HoldOrigin.ALLOCATE, Duration.ofMinutes(1));
                assertThat(carried.hold(List.of(hold)).reason()).isEqualTo(fresh.hold(List.of(hold)).reason());
                assertThat(carried.check(both, 1, null)).as("seed %d step %d after hold", seed, step)
                        .isEqualTo(fresh.check(both, 1, null));
                assertThat(carried.check(both, 1, node)).isEqualTo(fresh.check(both, 1, node));
                carried.release("ml/held");
            }
        }
    }

    private static IpPoolLedger ledger(String whereaboutsNamespace) {
        return new IpPoolLedger(new IpamObjects.MutableClock(T0), Duration.ofMinutes(5), whereaboutsNamespace);
    }

    /** The objects of a small cluster, changed a few at a time; unchanged objects stay the same instances. */
    private static final class World {
        private static final String SLICED = "\"range\":\"10.20.0.0/24\",\"node_slice_size\":\"/28\","
                + "\"network_name\":\"r1\"";
        NetworkAttachmentDefinition sliced = IpamObjects.whereaboutsNad("ml", "rail1", SLICED);
        final NetworkAttachmentDefinition plain = IpamObjects.whereaboutsNad("ml", "rail2",
                "\"range\":\"10.30.0.0/24\"");
        /** slice CIDR → node ("" free), in the NodeSlicePool's order */
        final Map<String, String> slices = new LinkedHashMap<>();
        NodeSlicePool slicePool;
        final Map<String, IPPool> pools = new LinkedHashMap<>();
        /** copies of node pools in another namespace (the pool choice and its note) */
        final Map<String, IPPool> elsewhere = new LinkedHashMap<>();
        final Map<String, Map<String, IPAllocation>> allocations = new LinkedHashMap<>();
        final Map<String, OverlappingRangeIPReservation> reservations = new LinkedHashMap<>();
        final Set<String> live = new LinkedHashSet<>();
        final Map<String, PodPlacement> bound = new LinkedHashMap<>();

        World() {
            for (int k = 0; k < 16; k++) {
                slices.put("10.20.0." + (16 * k) + "/28", k < NODES ? "n" + k : "");
            }
            slicePool = IpamObjects.slicePool("r1", "10.20.0.0/24", "/28", slices);
            for (int k = 0; k < NODES; k++) {
                String slice = "10.20.0." + (16 * k) + "/28";
                Map<String, IPAllocation> a = new LinkedHashMap<>();
                a.put("1", new IPAllocation("c0", "ml/p" + k, "net1"));
                setPool(PoolNames.ipPool("r1", "n" + k, slice), slice, a);
                reserve(16 * k + 1, "ml/p" + k);
                live.add("ml/p" + k);
                bound.put("p" + k, new PodPlacement("p" + k, PodNetworksRequest.ofAnnotation("ml", "rail1"),
                        "n" + k));
            }
            setPool("10.30.0.0-24", "10.30.0.0/24", new LinkedHashMap<>());
        }

        private void setPool(String name, String range, Map<String, IPAllocation> a) {
            allocations.put(name, a);
            pools.put(name, IpamObjects.poolWith(IpamObjects.WHEREABOUTS_NS, name, range, new LinkedHashMap<>(a)));
        }

        private void reserve(int lastOctet, String podref) {
            String name = "r1-10.20.0." + lastOctet;
            reservations.put(name, IpamObjects.reservation(name, podref));
        }

        void change(Random rnd) {
            int node = rnd.nextInt(NODES);
            String slice = sliceOf("n" + node);
            String poolName = slice == null ? null : PoolNames.ipPool("r1", "n" + node, slice);
            switch (rnd.nextInt(14)) {
                case 0, 1 -> { // whereabouts hands out or frees an address in the node's pool
                    if (poolName == null) {
                        return;
                    }
                    Map<String, IPAllocation> a = new LinkedHashMap<>(allocations.getOrDefault(poolName, Map.of()));
                    String offset = Integer.toString(1 + rnd.nextInt(14));
                    if (a.remove(offset) == null) {
                        a.put(offset, new IPAllocation("c" + rnd.nextInt(99), "ml/p" + rnd.nextInt(NODES + 3),
                                rnd.nextBoolean() ? "net1" : ""));
                    }
                    setPool(poolName, slice, a);
                }
                case 2 -> { // the same pool re-sent: a new instance, the same content
                    if (poolName != null && pools.containsKey(poolName)) {
                        setPool(poolName, slice, allocations.get(poolName));
                    }
                }
                case 3 -> { // a reservation of another range of the same network name appears or goes
                    int octet = 1 + rnd.nextInt(254);
                    if (reservations.remove("r1-10.20.0." + octet) == null) {
                        reserve(octet, "other/q" + octet);
                    }
                }
                case 4 -> { // a pod is deleted (its allocations turn stale) or created again
                    String pod = "ml/p" + rnd.nextInt(NODES + 3);
                    if (!live.remove(pod)) {
                        live.add(pod);
                    }
                }
                case 5 -> { // a node takes a free slice: whereabouts' controller writes the NodeSlicePool
                    String free = null;
                    for (Map.Entry<String, String> e : slices.entrySet()) {
                        if (e.getValue().isEmpty() && rnd.nextBoolean()) {
                            free = e.getKey();
                        }
                    }
                    if (free != null) {
                        if (slice != null) {
                            slices.put(slice, "");
                        }
                        slices.put(free, "n" + node);
                        slicePool = IpamObjects.slicePool("r1", "10.20.0.0/24", "/28", slices);
                    }
                }
                case 6 -> { // a pod bound or unbound, on one or both networks
                    String pod = "p" + (NODES + rnd.nextInt(3));
                    if (bound.remove(pod) == null) {
                        bound.put(pod, new PodPlacement(pod, PodNetworksRequest.ofAnnotation("ml",
                                rnd.nextBoolean() ? "rail1" : "rail1,rail2"), "n" + node));
                        live.add("ml/" + pod);
                    }
                }
                case 7 -> // the NetworkAttachmentDefinition re-sent: as it was, overlapping ranges off, or a wider
                        // range around the same slices
                        sliced = IpamObjects.whereaboutsNad("ml", "rail1", switch (rnd.nextInt(3)) {
                            case 0 -> SLICED;
                            case 1 -> SLICED + ",\"enable_overlapping_ranges\":false";
                            default -> SLICED.replace("/24", "/23");
                        });
                case 9 -> { // an IPPool of the node's pool name appears in, or goes from, another namespace
                    if (poolName != null && elsewhere.remove(poolName) == null) {
                        Map<String, IPAllocation> a = new LinkedHashMap<>();
                        for (int i = rnd.nextInt(4); i > 0; i--) {
                            a.put(Integer.toString(1 + rnd.nextInt(14)), new IPAllocation("e", "ml/p" + i, "net1"));
                        }
                        elsewhere.put(poolName, IpamObjects.poolWith("other", poolName, slice, a));
                    }
                }
                case 10 -> { // a bound pod moves node, takes another interface name, or is re-sent equal
                    List<String> names = new ArrayList<>(bound.keySet());
                    String pod = names.get(rnd.nextInt(names.size()));
                    PodPlacement p = bound.get(pod);
                    bound.put(pod, switch (rnd.nextInt(3)) {
                        case 0 -> new PodPlacement(pod, p.request(), "n" + node);
                        case 1 -> new PodPlacement(pod, PodNetworksRequest.ofAnnotation("ml",
                                rnd.nextBoolean() ? "rail1@eth" + rnd.nextInt(2) : "rail1"), p.node());
                        default -> new PodPlacement(pod, PodNetworksRequest.ofAnnotation("ml",
                                p.request().annotation()), p.node());
                    });
                }
                case 11 -> { // the NodeSlicePool re-sent, deleted or created again, or in a second namespace
                    switch (rnd.nextInt(4)) {
                        case 0 -> slicePool = IpamObjects.slicePool("r1", "10.20.0.0/24", "/28", slices);
                        case 1 -> slicePool = slicePool == null
                                ? IpamObjects.slicePool("r1", "10.20.0.0/24", "/28", slices) : null;
                        case 2 -> { // the node listed twice, its second slice first
                            String free = null;
                            for (Map.Entry<String, String> e : slices.entrySet()) {
                                if (e.getValue().isEmpty()) {
                                    free = e.getKey();
                                }
                            }
                            if (free != null) {
                                Map<String, String> copy = new LinkedHashMap<>();
                                copy.put(free, "n" + node);
                                slices.forEach((k, v) -> copy.putIfAbsent(k, v));
                                slices.clear();
                                slices.putAll(copy);
                                slicePool = IpamObjects.slicePool("r1", "10.20.0.0/24", "/28", slices);
                            }
                        }
                        default -> { // a slice that is not a CIDR, or back
                            if (slice != null) {
                                slices.remove(slice);
                                slices.put(slice.endsWith("/28") ? slice.replace("/28", "/2x") : slice, "n" + node);
                                slicePool = IpamObjects.slicePool("r1", "10.20.0.0/24", "/28", slices);
                            }
                        }
                    }
                }
                case 12 -> { // reservations whose names are not addresses of the network, or of another family
                    String name = switch (rnd.nextInt(3)) {
                        case 0 -> "r1-10.20.0." + (1 + rnd.nextInt(254)) + "x";
                        case 1 -> "r1-fd00--" + rnd.nextInt(9);
                        default -> "r2-10.20.0." + (1 + rnd.nextInt(254));
                    };
                    if (reservations.remove(name) == null) {
                        reservations.put(name, IpamObjects.reservation(name, "other/x"));
                    }
                }
                case 13 -> { // an address handed out to a pod of the node's pool on another interface
                    if (poolName != null) {
                        Map<String, IPAllocation> a = new LinkedHashMap<>(allocations.getOrDefault(poolName, Map.of()));
                        a.put(Integer.toString(1 + rnd.nextInt(14)), new IPAllocation("f",
                                "ml/p" + rnd.nextInt(NODES + 3), "eth" + rnd.nextInt(2)));
                        setPool(poolName, slice, a);
                    }
                }
                default -> { // the plain network's pool hands out an address
                    Map<String, IPAllocation> a = new LinkedHashMap<>(allocations.get("10.30.0.0-24"));
                    a.put(Integer.toString(1 + rnd.nextInt(200)), new IPAllocation("d", "ml/p" + node, "net2"));
                    setPool("10.30.0.0-24", "10.30.0.0/24", a);
                }
            }
        }

        private String sliceOf(String node) {
            for (Map.Entry<String, String> e : slices.entrySet()) {
                if (e.getValue().equals(node)) {
                    return e.getKey();
                }
            }
            return null;
        }

        IpamSnapshot snapshot(Instant at) {
            IpamSnapshot.Builder b = IpamSnapshot.builder(at)
                    .networkAttachmentDefinition(sliced)
                    .networkAttachmentDefinition(plain);
            if (slicePool != null) {
                b.nodeSlicePool(slicePool);
            }
            pools.values().forEach(b::ipPool);
            elsewhere.values().forEach(b::ipPool);
            reservations.values().forEach(b::overlappingRangeIPReservation);
            live.forEach(b::livePod);
            List<PodPlacement> placements = new ArrayList<>(bound.values());
            placements.forEach(b::boundPod);
            // with the pod changes since the snapshot before, as the cluster state hands them over
            last = IpamObjects.withChanges(last, b.build());
            return last;
        }

        private IpamSnapshot last;
    }
}
