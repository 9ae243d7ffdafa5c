package dev.railyard.scheduler.ipam;

import dev.railyard.api.whereabouts.IPAllocation;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Property: for 500 seeded random snapshots of a node-slice network beside a plain one (slices taken, free, not CIDRs,
 * of the wrong family or without usable addresses; node pools present, absent or unreadable; pods bound to nodes with
 * and without a slice, their addresses recorded on this interface, on none, on another or not at all),
 * {@link LedgerState#unrecordedByPool()}, which looks each node's pool up without counting it, equals what the
 * per-node {@link LedgerState#view views} give: the same pool, skipped where the view fails; and one node pool's
 * entry made from that node's pods alone ({@link LedgerState#unrecorded}) equals the whole map's.
 */
class UnrecordedAddressesPropertyTest {
    private static final String SLICED = "\"range\":\"10.20.0.0/24\",\"node_slice_size\":\"/28\",\"network_name\":\"r1\"";

    @Test
    void unrecordedAddressesMatchThePerNodeViews() {
        for (long seed = 0; seed < 500; seed++) {
            Random rnd = new Random(seed);
            IpamSnapshot snapshot = snapshot(rnd);
            Map<String, Set<String>> reference = byViews(new LedgerState(snapshot, null));
            // one node's slice pool first, from that node's pods alone (a fresh state: the whole map not made yet)
            for (int node = 0; node < 8; node++) {
                LedgerState fresh = new LedgerState(snapshot, null);
                NetworkResolution res = fresh.resolve(PodNetworksRequest.ofAnnotation("ml", "rail1").selections()
                        .getFirst());
                RangeView v = fresh.view(res, 0, "n" + node);
                for (String pool : v.memberPools()) {
                    assertThat(fresh.unrecorded(pool, "n" + node)).as("seed %d node n%d", seed, node)
                            .isEqualTo(reference.getOrDefault(pool, Set.of()));
                }
            }
            LedgerState state = new LedgerState(snapshot, null);
            assertThat(state.unrecordedByPool()).as("seed %d", seed).isEqualTo(reference);
        }
    }

    /** The reference: every bound pod's range through the full view, as the ledger did before the lookup. */
    private static Map<String, Set<String>> byViews(LedgerState s) {
        Map<String, Set<String>> out = new HashMap<>();
        for (PodPlacement p : s.snapshot.boundPods()) {
            for (NetworkSelection sel : p.request().selections()) {
                NetworkResolution res = s.resolve(sel);
                if (res.failure() != null || res.ipam() == null) {
                    continue;
                }
                for (int i = 0; i < res.ipam().ranges().size(); i++) {
                    RangeView v = s.view(res, i, p.node());
                    if (v.failure() == null && !v.memberPools().isEmpty()
                            && !LedgerState.recorded(v.pool(), p.podRef(), sel.podInterface())) {
                        out.computeIfAbsent(v.memberPools().get(0), k -> new HashSet<>())
                                .add(LedgerState.slot(p.podRef(), sel.podInterface()));
                    }
                }
            }
        }
        return Map.copyOf(out);
    }

    private static IpamSnapshot snapshot(Random rnd) {
        IpamSnapshot.Builder b = IpamSnapshot.builder(Instant.EPOCH)
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad("ml", "rail1", SLICED))
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad("ml", "rail2", "\"range\":\"10.30.0.0/24\""));
        Map<String, String> slices = new LinkedHashMap<>();
        Map<String, String> sliceOfNode = new HashMap<>();
        for (int k = 0; k < 16; k++) {
            String slice = switch (rnd.nextInt(12)) {
                case 0 -> "bogus-" + k;
                case 1 -> "fd00::" + k + "/124";
                case 2 -> "10.20.0." + (16 * k) + "/31";
                default -> "10.20.0." + (16 * k) + "/28";
            };
            String node = rnd.nextInt(4) == 0 ? "" : "n" + rnd.nextInt(7);
            slices.put(slice, node);
            sliceOfNode.putIfAbsent(node, slice);
        }
        if (rnd.nextInt(10) != 0) {
            b.nodeSlicePool(IpamObjects.slicePool("r1", "10.20.0.0/24", "/28", slices));
        }
        List<String> ifnames = List.of("net1", "", "net2");
        for (Map.Entry<String, String> e : sliceOfNode.entrySet()) {
            if (e.getKey().isEmpty() || rnd.nextInt(4) == 0) {
                continue;
            }
            Map<String, IPAllocation> a = new LinkedHashMap<>();
            for (int k = 0; k < 8; k++) {
                if (rnd.nextBoolean()) {
                    a.put(Integer.toString(k + 1), new IPAllocation("c" + k, "ml/p" + rnd.nextInt(10),
                            ifnames.get(rnd.nextInt(3))));
                }
            }
            String range = rnd.nextInt(8) == 0 ? "garbage" : e.getValue();
            b.ipPool(IpamObjects.poolWith(IpamObjects.WHEREABOUTS_NS, PoolNames.ipPool("r1", e.getKey(),
                    e.getValue()), range, a));
        }
        Map<String, IPAllocation> plain = new LinkedHashMap<>();
        for (int k = 0; k < 10; k++) {
            if (rnd.nextBoolean()) {
                plain.put(Integer.toString(k + 1), new IPAllocation("d" + k, "ml/p" + k, "net2"));
            }
        }
        b.ipPool(IpamObjects.poolWith(IpamObjects.WHEREABOUTS_NS, "10.30.0.0-24", "10.30.0.0/24", plain));
        for (int k = 0; k < 10; k++) {
            String networks = rnd.nextInt(3) == 0 ? "rail1,rail2" : "rail1";
            b.boundPod(new PodPlacement("p" + k, PodNetworksRequest.ofAnnotation("ml", networks), "n" + rnd.nextInt(8)));
            b.livePod("ml/p" + k);
        }
        return b.build();
    }
}
