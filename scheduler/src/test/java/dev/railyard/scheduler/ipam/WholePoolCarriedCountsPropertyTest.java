package dev.railyard.scheduler.ipam;

import dev.railyard.api.multus.NetworkAttachmentDefinition;
import dev.railyard.api.whereabouts.IPAllocation;
import dev.railyard.api.whereabouts.IPPool;
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
 * Property: with whole pools only (one IPPool per network range, no node slices, the shape of the 5,000-node
 * benchmark), a ledger that carries its counts and its pods' unrecorded addresses from one snapshot to the next
 * ({@link CarriedCounts}: the whole pools' views, and which bound pods draw from which pool) answers every check,
 * and lists every hold, exactly as a ledger given the same snapshot fresh; and each pool's unrecorded addresses equal
 * the entry of the whole map a fresh state walks every pod for ({@link LedgerState#unrecordedByPool()}).
 *
 * <p>300 seeded runs of 14 snapshots over two networks: {@code rail2} (10.30.0.0/24, no network name) and
 * {@code rail3} (10.40.0.0/24, {@code network_name} r3), overlapping ranges on (whereabouts' default) so
 * reservations count. Each step changes one to three objects and keeps every other object the same instance, as the
 * informers do: a pool gains or loses an allocation (for a bound pod on its interface, on none, on another, or for
 * a stranger), a pool is re-sent unchanged, a copy of a pool appears in or goes from another namespace, a
 * reservation appears or goes, a pool is deleted or written with a range whereabouts cannot read, a pod is bound,
 * unbound, moved or re-sent equal, a pod is deleted or created again, or a NetworkAttachmentDefinition is re-sent
 * (as it was, overlapping ranges off, or a narrower range). {@code rail3}'s pool does not exist at first; a third
 * network, {@code rail2b}, draws from {@code rail2}'s pool within other bounds; odd seeds give the ledger
 * whereabouts' namespace, so the pool copies in another namespace are left out. Every snapshot after the first
 * carries the {@link PodChanges} since the one before, as the cluster state hands them over, so the carried ledger
 * updates its drawers, unrecorded addresses and stale allocations by them where it can.
 */
class WholePoolCarriedCountsPropertyTest {
    private static final int NODES = 4;
    private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");
    private static final String RAIL2 = "\"range\":\"10.30.0.0/24\"";
    private static final String RAIL3 = "\"range\":\"10.40.0.0/24\",\"network_name\":\"r3\"";
    /** pool names as whereabouts forms them (PoolNames.ipPool): network name, then the range with '/' as '-' */
    private static final String POOL2 = "10.30.0.0-24";
    private static final String POOL3 = "r3-10.40.0.0-24";

    @Test
    void carriedWholePoolsAnswerAsAFreshLedgerDoes() {
        PodNetworksRequest both = PodNetworksRequest.ofAnnotation("ml", "rail2,rail3");
        for (long seed = 0; seed < 300; seed++) {
            Random rnd = new Random(seed);
            World w = new World();
            // odd seeds: whereabouts' namespace given, so the copies in another namespace are left out
            String ns = seed % 2 == 0 ? null : IpamObjects.WHEREABOUTS_NS;
            IpPoolLedger carried = ledger(ns);
            LedgerState carriedState = null;
            for (int step = 0; step < 14; step++) {
                for (int c = 1 + rnd.nextInt(3); c > 0; c--) {
                    w.change(rnd);
                }
                IpamSnapshot s = w.snapshot(T0.plusSeconds(step));
                carried.update(s);
                IpPoolLedger fresh = ledger(ns);
                fresh.update(s);
                carriedState = new LedgerState(s, ns, carriedState);
                LedgerState freshState = new LedgerState(s, ns);
                for (String pool : List.of(POOL2, POOL3)) {
                    assertThat(carriedState.unrecorded(pool, null)).as("seed %d step %d pool %s", seed, step, pool)
                            .isEqualTo(freshState.unrecordedByPool().getOrDefault(pool, Set.of()));
                }
                for (int n = 0; n <= NODES; n++) {
                    String node = n == NODES ? null : "n" + n;
                    assertThat(carried.check(both, 2, node)).as("seed %d step %d node %s", seed, step, node)
                            .isEqualTo(fresh.check(both, 2, node));
                }
                if (rnd.nextInt(3) == 0) {
                    assertThat(carried.holds()).as("seed %d step %d holds", seed, step).isEqualTo(fresh.holds());
                }
                HoldRequest hold = new HoldRequest(new PodPlacement("held", both, "n" + rnd.nextInt(NODES)),
                        "uid-held", HoldOrigin.ALLOCATE, Duration.ofMinutes(1));
                assertThat(carried.hold(List.of(hold)).reason()).isEqualTo(fresh.hold(List.of(hold)).reason());
                assertThat(carried.check(both, 1, null)).as("seed %d step %d after hold", seed, step)
                        .isEqualTo(fresh.check(both, 1, null));
                carried.release("ml/held");
            }
        }
    }

    /**
     * An address change (one pool written anew, the bound pods the same objects) reuses which pods draw from which
     * pool, and the other pool's unrecorded addresses, instead of walking the pods again.
     */
    @Test
    void anAddressChangeKeepsTheDrawersAndTheOtherPool() {
        World w = new World();
        Map<String, IPAllocation> a = new LinkedHashMap<>(w.allocations.get(POOL2));
        a.remove("2"); // p1 (bound, rail2 on net1) not recorded yet
        w.setPool(POOL2, "10.30.0.0/24", a);
        LedgerState first = new LedgerState(w.snapshot(T0), null);
        java.util.Set<String> otherPool = first.unrecorded(POOL3, null);
        assertThat(first.unrecorded(POOL2, null)).containsExactly(LedgerState.slot("ml/p1", "net1"));
        CarriedCounts.Drawers drawers = first.nodeCounts().drawers();
        a = new LinkedHashMap<>(a);
        a.put("99", new IPAllocation("c99", "ml/p1", "net1")); // whereabouts records p1's address
        w.setPool(POOL2, "10.30.0.0/24", a);
        LedgerState second = new LedgerState(w.snapshot(T0.plusSeconds(1)), null, first);
        assertThat(second.unrecorded(POOL2, null)).isEmpty();
        assertThat(second.nodeCounts().drawers()).isSameAs(drawers);
        assertThat(second.unrecorded(POOL3, null)).isSameAs(otherPool);
    }

    /**
     * A whole pool whose name equals a node's slice pool (whereabouts would share the object): a check on the node
     * counts the whole pool's unrecorded pod whether or not the whole map was made first (it once depended on which
     * call came first).
     */
    @Test
    void aWholePoolNamedLikeANodeSliceCountsTheSameInEitherOrder() {
        Map<String, String> slices = new LinkedHashMap<>();
        slices.put("10.9.0.0/28", "n1");
        slices.put("10.9.0.16/28", "");
        IpamSnapshot.Builder b = IpamSnapshot.builder(T0)
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad("ml", "wide",
                        "\"range\":\"10.9.0.0/28\",\"network_name\":\"r-n1\""))
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad("ml", "sliced",
                        "\"range\":\"10.9.0.0/24\",\"node_slice_size\":\"/28\",\"network_name\":\"r\""))
                .nodeSlicePool(IpamObjects.slicePool("r", "10.9.0.0/24", "/28", slices))
                .livePod("ml/a");
        IpamSnapshot withPod = b.boundPod(new PodPlacement("a", PodNetworksRequest.ofAnnotation("ml", "wide"), "n1"))
                .build();
        PodNetworksRequest both = PodNetworksRequest.ofAnnotation("ml", "wide,sliced");
        IpPoolLedger mapFirst = ledger();
        mapFirst.update(withPod);
        mapFirst.holds();
        IpPoolLedger checkFirst = ledger();
        checkFirst.update(withPod);
        assertThat(checkFirst.check(both, 1, "n1")).isEqualTo(mapFirst.check(both, 1, "n1"));
        LedgerState s = new LedgerState(withPod, null);
        assertThat(s.unrecorded("r-n1-10.9.0.0-28", "n1")).containsExactly(LedgerState.slot("ml/a", "net1"));
    }

    private static IpPoolLedger ledger() {
        return ledger(null);
    }

    private static IpPoolLedger ledger(String whereaboutsNamespace) {
        return new IpPoolLedger(new IpamObjects.MutableClock(T0), Duration.ofMinutes(5), whereaboutsNamespace);
    }

    /** The objects of a small cluster, changed a few at a time; unchanged objects stay the same instances. */
    private static final class World {
        NetworkAttachmentDefinition rail2 = IpamObjects.whereaboutsNad("ml", "rail2", RAIL2);
        NetworkAttachmentDefinition rail3 = IpamObjects.whereaboutsNad("ml", "rail3", RAIL3);
        /** a second network of rail2's range and name: its pods draw from the same pool, under other bounds */
        final NetworkAttachmentDefinition rail2b = IpamObjects.whereaboutsNad("ml", "rail2b",
                RAIL2 + ",\"range_start\":\"10.30.0.8\"");
        final Map<String, Map<String, IPAllocation>> allocations = new LinkedHashMap<>();
        final Map<String, IPPool> pools = new LinkedHashMap<>();
        final Map<String, IPPool> elsewhere = new LinkedHashMap<>();
        final Map<String, OverlappingRangeIPReservation> reservations = new LinkedHashMap<>();
        final Set<String> live = new LinkedHashSet<>();
        final Map<String, PodPlacement> bound = new LinkedHashMap<>();

        World() {
            Map<String, IPAllocation> a2 = new LinkedHashMap<>();
            Map<String, IPAllocation> a3 = new LinkedHashMap<>();
            for (int k = 0; k < NODES; k++) {
                String pod = "p" + k;
                bound.put(pod, new PodPlacement(pod, PodNetworksRequest.ofAnnotation("ml",
                        k % 2 == 0 ? "rail2,rail3" : "rail2"), "n" + k));
                live.add("ml/" + pod);
                a2.put(Integer.toString(k + 1), new IPAllocation("c" + k, "ml/" + pod, "net1"));
            }
            setPool(POOL2, "10.30.0.0/24", a2);
            allocations.put(POOL3, a3); // rail3's pool not created yet: whereabouts creates it on first use
        }

        private void setPool(String name, String range, Map<String, IPAllocation> a) {
            allocations.put(name, a);
            pools.put(name, IpamObjects.poolWith(IpamObjects.WHEREABOUTS_NS, name, range, new LinkedHashMap<>(a)));
        }

        void change(Random rnd) {
            boolean second = rnd.nextBoolean();
            String pool = second ? POOL3 : POOL2;
            String range = second ? "10.40.0.0/24" : "10.30.0.0/24";
            switch (rnd.nextInt(11)) {
                case 0, 1, 2 -> { // whereabouts hands out or frees an address
                    Map<String, IPAllocation> a = new LinkedHashMap<>(allocations.get(pool));
                    String offset = Integer.toString(1 + rnd.nextInt(12));
                    if (a.remove(offset) == null) {
                        String ifname = switch (rnd.nextInt(4)) {
                            case 0 -> "";
                            case 1 -> "eth9";
                            default -> second ? "net2" : "net1";
                        };
                        a.put(offset, new IPAllocation("c" + rnd.nextInt(99), "ml/p" + rnd.nextInt(NODES + 3),
                                ifname));
                    }
                    setPool(pool, range, a);
                }
                case 3 -> setPool(pool, range, allocations.get(pool)); // re-sent: a new instance, the same content
                case 9 -> { // the pool deleted, or written with a spec.range whereabouts cannot read
                    if (rnd.nextBoolean()) {
                        pools.remove(pool);
                    } else {
                        pools.put(pool, IpamObjects.poolWith(IpamObjects.WHEREABOUTS_NS, pool, "10.30.0.0/33",
                                new LinkedHashMap<>(allocations.get(pool))));
                    }
                }
                case 4 -> { // a copy of the pool in another namespace (the pool choice and its note)
                    if (elsewhere.remove(pool) == null) {
                        Map<String, IPAllocation> a = new LinkedHashMap<>();
                        for (int i = rnd.nextInt(20); i > 0; i--) {
                            a.put(Integer.toString(1 + rnd.nextInt(30)), new IPAllocation("e", "ml/p" + i, "net1"));
                        }
                        elsewhere.put(pool, IpamObjects.poolWith("other", pool, range, a));
                    }
                }
                case 5 -> { // a reservation of the network appears or goes (whereabouts' names: NormalizeIP)
                    String name = (second ? "r3-10.40.0." : "10.30.0.") + (1 + rnd.nextInt(20));
                    if (reservations.remove(name) == null) {
                        reservations.put(name, IpamObjects.reservation(name, "other/q" + rnd.nextInt(5)));
                    }
                }
                case 6 -> { // a pod bound, unbound, moved or re-sent equal
                    String pod = "p" + rnd.nextInt(NODES + 3);
                    PodPlacement p = bound.get(pod);
                    String annotation = switch (rnd.nextInt(5)) {
                        case 0 -> "rail2";
                        case 1 -> "rail3";
                        case 2 -> "rail2@eth9";
                        case 3 -> "rail2b,rail3";
                        default -> "rail2,rail3";
                    };
                    switch (rnd.nextInt(4)) {
                        case 0 -> bound.remove(pod);
                        case 1 -> bound.put(pod, new PodPlacement(pod, p == null
                                ? PodNetworksRequest.ofAnnotation("ml", annotation) : p.request(),
                                "n" + rnd.nextInt(NODES)));
                        case 2 -> {
                            if (p != null) {
                                bound.put(pod, new PodPlacement(pod, PodNetworksRequest.ofAnnotation("ml",
                                        p.request().annotation()), p.node()));
                            }
                        }
                        default -> bound.put(pod, new PodPlacement(pod, PodNetworksRequest.ofAnnotation("ml",
                                annotation), "n" + rnd.nextInt(NODES)));
                    }
                }
                case 7 -> { // a pod is deleted (its allocations turn stale) or created again
                    String pod = "ml/p" + rnd.nextInt(NODES + 3);
                    if (!live.remove(pod)) {
                        live.add(pod);
                    }
                }
                default -> { // a NetworkAttachmentDefinition re-sent: as it was, overlapping ranges off, or narrower
                    String members = switch (rnd.nextInt(3)) {
                        case 0 -> second ? RAIL3 : RAIL2;
                        case 1 -> (second ? RAIL3 : RAIL2) + ",\"enable_overlapping_ranges\":false";
                        default -> (second ? RAIL3 : RAIL2) + ",\"range_end\":\"" + (second ? "10.40" : "10.30")
                                + ".0.20\"";
                    };
                    if (second) {
                        rail3 = IpamObjects.whereaboutsNad("ml", "rail3", members);
                    } else {
                        rail2 = IpamObjects.whereaboutsNad("ml", "rail2", members);
                    }
                }
            }
        }

        /** The snapshot before, for the {@link PodChanges} of the next (as the cluster state hands them over). */
        private IpamSnapshot last;

        IpamSnapshot snapshot(Instant at) {
            IpamSnapshot.Builder b = IpamSnapshot.builder(at).networkAttachmentDefinition(rail2)
                    .networkAttachmentDefinition(rail3).networkAttachmentDefinition(rail2b);
            pools.values().forEach(b::ipPool);
            elsewhere.values().forEach(b::ipPool);
            reservations.values().forEach(b::overlappingRangeIPReservation);
            live.forEach(b::livePod);
            new ArrayList<>(bound.values()).forEach(b::boundPod);
            last = IpamObjects.withChanges(last, b.build());
            return last;
        }
    }
}
