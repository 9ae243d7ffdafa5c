package dev.railyard.scheduler.ipam;

import dev.railyard.api.whereabouts.IPAllocation;
import dev.railyard.api.whereabouts.IPPool;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Property: decoding a new version of an IPPool with the last version's decoding at hand
 * ({@link DecodedPool#decode(IPPool, DecodedPool)}, which takes unchanged allocations over) gives what decoding it
 * from nothing gives: the same allocations in the same order, error, inconsistencies and range. 500 seeded runs of
 * 20 versions each; each version changes a few entries as whereabouts and hostile writers would: an allocation added
 * or freed, its owner, interface or container ID changed or left out, an offset beyond the range or the family, a
 * key that is not a decimal offset, a second address for one owner, or the range itself changed (another CIDR,
 * another family, not a CIDR).
 */
class DecodedPoolReusePropertyTest {
    private static final List<String> RANGES = List.of("10.30.0.0/24", "10.30.0.0/28", "fd00:30::/120", "10.30.0.0");

    @Test
    void reusedDecodingEqualsAFreshOne() {
        for (long seed = 0; seed < 500; seed++) {
            Random rnd = new Random(seed);
            String range = RANGES.get(0);
            Map<String, IPAllocation> a = new LinkedHashMap<>();
            for (int i = 0; i < 10; i++) {
                a.put(Integer.toString(1 + rnd.nextInt(40)), owner(rnd));
            }
            DecodedPool last = null;
            for (int version = 0; version < 20; version++) {
                for (int c = 1 + rnd.nextInt(3); c > 0; c--) {
                    String key = Integer.toString(1 + rnd.nextInt(40));
                    switch (rnd.nextInt(8)) {
                        case 0, 1 -> a.put(key, owner(rnd)); // handed out, or its owner rewritten
                        case 2 -> a.remove(key); // freed
                        case 3 -> a.put(Long.toString(4_294_967_296L + rnd.nextInt(3)), owner(rnd)); // past IPv4
                        case 4 -> a.put(rnd.nextBoolean() ? "x" + key : "-" + key, owner(rnd)); // not an offset
                        case 5 -> a.keySet().removeIf(k -> !k.matches("[0-9]+") || k.length() > 3);
                        case 6 -> range = RANGES.get(rnd.nextInt(RANGES.size()));
                        default -> a.put(key, a.getOrDefault(Integer.toString(1 + rnd.nextInt(40)), owner(rnd)));
                    }
                }
                IPPool pool = IpamObjects.poolWith(IpamObjects.WHEREABOUTS_NS, "p", range, new LinkedHashMap<>(a));
                DecodedPool fresh = DecodedPool.decode(pool);
                DecodedPool reused = DecodedPool.decode(pool, last);
                String at = "seed " + seed + " version " + version;
                assertThat(reused.allocations()).as(at).isEqualTo(fresh.allocations());
                assertThat(reused.error()).as(at).isEqualTo(fresh.error());
                assertThat(reused.inconsistencies()).as(at).isEqualTo(fresh.inconsistencies());
                assertThat(reused.range()).as(at).isEqualTo(fresh.range());
                last = rnd.nextInt(5) == 0 ? fresh : reused;
            }
        }
    }

    private static IPAllocation owner(Random rnd) {
        String podref = switch (rnd.nextInt(5)) {
            case 0 -> null;
            case 1 -> "";
            default -> "ml/p" + rnd.nextInt(6);
        };
        String ifname = switch (rnd.nextInt(4)) {
            case 0 -> null;
            case 1 -> "net2";
            default -> "net1";
        };
        return new IPAllocation(rnd.nextBoolean() ? null : "c" + rnd.nextInt(3), podref, ifname);
    }
}
