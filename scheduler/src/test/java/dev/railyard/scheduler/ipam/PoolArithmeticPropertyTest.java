package dev.railyard.scheduler.ipam;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.railyard.api.whereabouts.IPAllocation;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Property: for 1,000 seeded random whereabouts configs and pool contents, the ledger's free count equals a
 * brute-force walk over every address that applies whereabouts' rules literally.
 *
 * <p>The oracle ({@link #bruteForce}) transcribes {@code IterateForAssignment} (pkg/allocate/allocate.go) and
 * {@code GetIPRange}/{@code HasUsableIPs} (pkg/iphelpers/iphelpers.go): start at network+1 or a valid range_start, stop
 * at broadcast−1 or a valid range_end (valid = inside [first, broadcast−1] after range_start applied), skip reserved
 * addresses (pool allocations plus, with enable_overlapping_ranges, OverlappingRangeIPReservations of the same
 * network_name), jump to the broadcast of the first exclude block containing the address. Each address the walk
 * reaches is one more pod served: whereabouts takes the lowest free address and adds it to the reserved list, so
 * counting in one pass equals allocating until "could not allocate IP in range". It works on the generator's numbers,
 * names pools and reservations with its own RFC 5952 formatter, and never calls ledger code.
 *
 * <p>/31 and /32 (and /127, /128): whereabouts' {@code HasUsableIPs} requires more than one host bit, so every
 * allocation fails ("net mask is too short"); the oracle gives 0 and the ledger refuses with IPAM_CONFIG_INVALID.
 */
class PoolArithmeticPropertyTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int CASES = 1000;

    record Exclude(String text, BigInteger lo, BigInteger hi, boolean sameFamily) {
    }

    record Orip(String networkName, BigInteger ip) {
    }

    record Case(int index, boolean v4, int prefix, BigInteger net, String rangeText, BigInteger rangeStart,
                BigInteger rangeEnd, List<Exclude> excludes, String networkName, Boolean overlapping,
                String poolRange, List<BigInteger> allocated, List<BigInteger> offsets, List<Orip> orips,
                String ipamJson) {
        int bits() {
            return v4 ? 32 : 128;
        }

        BigInteger broadcast() {
            return net.add(BigInteger.ONE.shiftLeft(bits() - prefix)).subtract(BigInteger.ONE);
        }
    }

    @Test
    void freeCountEqualsBruteForceForThousandRandomConfigs() {
        Random rnd = new Random(0x5EED_0004L);
        Map<String, Integer> coverage = new TreeMap<>();
        for (int i = 0; i < CASES; i++) {
            Case c = generate(rnd, i, coverage);
            long expected = bruteForce(c);
            long usable = usableIgnoringReservations(c);
            IpPoolLedger ledger = new IpPoolLedger(new IpamObjects.MutableClock(Instant.EPOCH), Duration.ofMinutes(5),
                    null);
            ledger.update(snapshot(c));
            PodNetworksRequest request = PodNetworksRequest.ofAnnotation("prod", "net-" + i);
            PoolVerdict one = ledger.check(request, 1, null);
            String context = "case " + i + ": ipam " + c.ipamJson() + ", pool " + c.poolRange() + " offsets "
                    + c.offsets() + ", reservations " + c.orips() + " -> expected " + expected + " free of " + usable
                    + "; verdict " + one.reason() + ": " + one.message();
            if (usable == 0) {
                assertThat(one.reason()).as(context).isEqualTo(PoolReason.IPAM_CONFIG_INVALID);
                count(coverage, "no usable address (refused as config)");
                continue;
            }
            assertThat(one.networks()).as(context).hasSize(1);
            assertThat(one.pools()).as(context).hasSize(1);
            PoolStatus status = one.pools().get(0);
            assertThat(status.usable()).as(context).isEqualTo(usable);
            assertThat(status.free()).as(context).isEqualTo(expected);
            if (expected == 0) {
                assertThat(one.reason()).as(context).isEqualTo(PoolReason.POOL_EXHAUSTED);
                count(coverage, "exhausted");
            } else {
                assertThat(one.admitted()).as(context).isTrue();
                assertThat(ledger.check(request, (int) expected, null).admitted()).as(context).isTrue();
                PoolVerdict over = ledger.check(request, (int) expected + 1, null);
                assertThat(over.reason()).as(context).isEqualTo(PoolReason.POOL_EXHAUSTED);
            }
            if (status.reservedElsewhere() > 0) {
                count(coverage, "reserved by other ranges counted");
            }
        }
        // The generator must really have produced every feature the property is about.
        assertThat(coverage).as("coverage " + coverage).containsKeys("ipv4", "ipv6", "/30 or /126", "/31 or /127",
                "/32 or /128", "dash form", "range_start outside", "range_end outside", "range_end below start",
                "exclude over network edge", "exclude over broadcast edge", "exclude larger than range",
                "pool range written with host bits", "reserved by other ranges counted", "exhausted",
                "no usable address (refused as config)", "network_name", "overlapping disabled");
        assertThat(coverage.values()).allSatisfy(n -> assertThat(n).isGreaterThanOrEqualTo(5));
    }

    // ---- generator ---------------------------------------------------------------------------------------------

    private static void count(Map<String, Integer> coverage, String key) {
        coverage.merge(key, 1, Integer::sum);
    }

    private static BigInteger randomIn(Random rnd, BigInteger lo, BigInteger hi) {
        BigInteger span = hi.subtract(lo).add(BigInteger.ONE);
        BigInteger r;
        do {
            r = new BigInteger(span.bitLength(), rnd);
        } while (r.compareTo(span) >= 0);
        return lo.add(r);
    }

    private static Case generate(Random rnd, int index, Map<String, Integer> coverage) {
        boolean v4 = rnd.nextInt(3) != 0;
        int bits = v4 ? 32 : 128;
        int hostBits = rnd.nextInt(11);
        int prefix = bits - hostBits;
        count(coverage, v4 ? "ipv4" : "ipv6");
        if (hostBits == 2) {
            count(coverage, "/30 or /126");
        } else if (hostBits == 1) {
            count(coverage, "/31 or /127");
        } else if (hostBits == 0) {
            count(coverage, "/32 or /128");
        }
        BigInteger max = BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE);
        BigInteger raw = new BigInteger(bits, rnd);
        if (!v4 && raw.shiftRight(112).signum() == 0) {
            raw = raw.or(BigInteger.valueOf(0xfd00).shiftLeft(112)); // keep clear of ::/16 (v4-mapped forms)
        }
        BigInteger net = raw.shiftRight(hostBits).shiftLeft(hostBits);
        BigInteger size = BigInteger.ONE.shiftLeft(hostBits);
        BigInteger bcast = net.add(size).subtract(BigInteger.ONE);

        ObjectNode ipam = JSON.createObjectNode();
        ipam.put("type", "whereabouts");
        ipam.putObject("kubernetes").put("kubeconfig", "/etc/cni/net.d/whereabouts.d/whereabouts.kubeconfig");
        BigInteger rangeStart = null;
        BigInteger rangeEnd = null;
        String rangeText;
        if (rnd.nextInt(5) == 0) {
            rangeStart = randomIn(rnd, net, bcast);
            rangeEnd = randomIn(rnd, net, bcast);
            rangeText = format(v4, rangeStart) + "-" + format(v4, rangeEnd) + "/" + prefix;
            count(coverage, "dash form");
            if (rnd.nextBoolean()) {
                ipam.put("range_start", format(v4, net)); // overridden by the dash form
            }
        } else {
            rangeText = format(v4, net) + "/" + prefix;
            if (rnd.nextBoolean()) {
                rangeStart = pickBound(rnd, net, bcast, max, coverage, "range_start outside");
                if (rangeStart != null) {
                    ipam.put("range_start", format(v4, rangeStart));
                }
            }
            if (rnd.nextBoolean()) {
                rangeEnd = pickBound(rnd, net, bcast, max, coverage, "range_end outside");
                if (rangeEnd != null) {
                    ipam.put("range_end", format(v4, rangeEnd));
                    if (rangeStart != null && rangeEnd.compareTo(rangeStart) < 0) {
                        count(coverage, "range_end below start");
                    }
                }
            }
        }
        ipam.put("range", rangeText);
        if (rnd.nextInt(4) == 0) {
            ipam.put("gateway", format(v4, net.add(BigInteger.ONE).min(max))); // never excluded
        }

        List<Exclude> excludes = new ArrayList<>();
        int nExcludes = rnd.nextInt(4);
        if (nExcludes > 0) {
            ArrayNode arr = ipam.putArray("exclude");
            for (int k = 0; k < nExcludes; k++) {
                Exclude e = exclude(rnd, v4, prefix, net, bcast, coverage);
                excludes.add(e);
                arr.add(e.text());
            }
        }
        String networkName = "";
        if (rnd.nextBoolean()) {
            networkName = "rail-a";
            ipam.put("network_name", networkName);
            count(coverage, "network_name");
        }
        Boolean overlapping = switch (rnd.nextInt(6)) {
            case 0 -> Boolean.FALSE;
            case 1 -> Boolean.TRUE;
            default -> null;
        };
        if (overlapping != null) {
            ipam.put("enable_overlapping_ranges", overlapping);
            if (!overlapping) {
                count(coverage, "overlapping disabled");
            }
        }

        // pool contents: offsets from the IP written in spec.range
        String poolRange = null;
        List<BigInteger> allocated = new ArrayList<>();
        List<BigInteger> offsets = new ArrayList<>();
        if (rnd.nextInt(7) != 0) {
            BigInteger written = net;
            if (rnd.nextInt(5) == 0 && hostBits > 0) {
                written = net.add(BigInteger.valueOf(rnd.nextInt((int) Math.min(8, size.longValue()))));
                count(coverage, "pool range written with host bits");
            }
            poolRange = format(v4, written) + "/" + prefix;
            Set<BigInteger> chosen = new HashSet<>();
            if (rnd.nextInt(4) == 0) {
                for (BigInteger ip = written; ip.compareTo(bcast) <= 0; ip = ip.add(BigInteger.ONE)) {
                    if (rnd.nextInt(10) != 0) {
                        chosen.add(ip);
                    }
                }
            } else {
                int n = rnd.nextInt(12);
                for (int k = 0; k < n; k++) {
                    chosen.add(randomIn(rnd, written, bcast));
                }
            }
            if (rnd.nextInt(10) == 0 && bcast.add(BigInteger.TEN).compareTo(max) <= 0) {
                chosen.add(bcast.add(BigInteger.valueOf(1 + rnd.nextInt(9)))); // outside the range
            }
            for (BigInteger ip : chosen) {
                allocated.add(ip);
                offsets.add(ip.subtract(written));
            }
        }
        List<Orip> orips = new ArrayList<>();
        int nOrips = rnd.nextInt(3) == 0 ? rnd.nextInt(7) : 0;
        for (int k = 0; k < nOrips; k++) {
            BigInteger ip = rnd.nextInt(4) == 0 && !allocated.isEmpty() ? allocated.get(rnd.nextInt(allocated.size()))
                    : randomIn(rnd, net, bcast);
            orips.add(new Orip(rnd.nextInt(4) == 0 ? "decoy" : networkName, ip));
        }
        return new Case(index, v4, prefix, net, rangeText, rangeStart, rangeEnd, excludes, networkName, overlapping,
                poolRange, allocated, offsets, orips, ipam.toString());
    }

    private static BigInteger pickBound(Random rnd, BigInteger net, BigInteger bcast, BigInteger max,
                                        Map<String, Integer> coverage, String outsideKey) {
        BigInteger v = switch (rnd.nextInt(6)) {
            case 0 -> net;
            case 1 -> bcast;
            case 2 -> net.subtract(BigInteger.valueOf(1 + rnd.nextInt(20)));
            case 3 -> bcast.add(BigInteger.valueOf(1 + rnd.nextInt(20)));
            default -> randomIn(rnd, net, bcast);
        };
        if (v.signum() < 0 || v.compareTo(max) > 0) {
            return null;
        }
        if (v.compareTo(net) <= 0 || v.compareTo(bcast) >= 0) {
            count(coverage, outsideKey);
        }
        return v;
    }

    private static Exclude exclude(Random rnd, boolean v4, int prefix, BigInteger net, BigInteger bcast,
                                   Map<String, Integer> coverage) {
        int bits = v4 ? 32 : 128;
        if (rnd.nextInt(25) == 0) {
            // other family: whereabouts' IPNet.Contains never matches it
            return new Exclude(v4 ? "fd00::/120" : "10.0.0.0/24", BigInteger.ONE, BigInteger.ZERO, false);
        }
        int p = Math.max(0, Math.min(bits, prefix - 2 + rnd.nextInt(bits - prefix + 3)));
        BigInteger anchor = switch (rnd.nextInt(4)) {
            case 0 -> net;
            case 1 -> bcast;
            default -> randomIn(rnd, net, bcast);
        };
        int host = bits - p;
        BigInteger lo = anchor.shiftRight(host).shiftLeft(host);
        BigInteger hi = lo.add(BigInteger.ONE.shiftLeft(host)).subtract(BigInteger.ONE);
        if (p < prefix || (p == prefix && lo.equals(net))) {
            count(coverage, "exclude larger than range");
        } else if (lo.compareTo(net) <= 0 && hi.compareTo(net) >= 0) {
            count(coverage, "exclude over network edge");
        } else if (lo.compareTo(bcast) <= 0 && hi.compareTo(bcast) >= 0) {
            count(coverage, "exclude over broadcast edge");
        }
        String text;
        if (p == bits && rnd.nextBoolean()) {
            text = format(v4, anchor); // bare IP
        } else {
            // CIDR with host bits sometimes set: whereabouts' ParseCIDR masks them
            text = format(v4, rnd.nextBoolean() ? lo : anchor) + "/" + p;
        }
        return new Exclude(text, lo, hi, true);
    }

    // ---- oracle ------------------------------------------------------------------------------------------------

    private static BigInteger[] span(Case c) {
        int hostBits = c.bits() - c.prefix();
        if (hostBits <= 1) {
            return null; // HasUsableIPs: "net mask is too short"
        }
        BigInteger first = c.net().add(BigInteger.ONE);
        BigInteger last = c.broadcast().subtract(BigInteger.ONE);
        if (c.rangeStart() != null && c.rangeStart().compareTo(first) >= 0 && c.rangeStart().compareTo(last) <= 0) {
            first = c.rangeStart();
        }
        if (c.rangeEnd() != null && c.rangeEnd().compareTo(first) >= 0 && c.rangeEnd().compareTo(last) <= 0) {
            last = c.rangeEnd();
        }
        return new BigInteger[] {first, last};
    }

    private static long walk(Case c, Set<BigInteger> reserved) {
        BigInteger[] span = span(c);
        if (span == null) {
            return 0;
        }
        long n = 0;
        for (BigInteger ip = span[0]; ip.compareTo(c.net()) >= 0 && ip.compareTo(c.broadcast()) <= 0
                && ip.compareTo(span[1]) <= 0; ip = ip.add(BigInteger.ONE)) {
            if (reserved.contains(ip)) {
                continue;
            }
            Exclude hit = null;
            for (Exclude e : c.excludes()) {
                if (e.sameFamily() && ip.compareTo(e.lo()) >= 0 && ip.compareTo(e.hi()) <= 0) {
                    hit = e;
                    break;
                }
            }
            if (hit != null) {
                ip = hit.hi();
                continue;
            }
            n++;
        }
        return n;
    }

    static long bruteForce(Case c) {
        Set<BigInteger> reserved = new HashSet<>(c.allocated());
        if (c.overlapping() == null || c.overlapping()) {
            for (Orip o : c.orips()) {
                if (o.networkName().equals(c.networkName())) {
                    reserved.add(o.ip());
                }
            }
        }
        return walk(c, reserved);
    }

    static long usableIgnoringReservations(Case c) {
        return walk(c, Set.of());
    }

    // ---- objects -----------------------------------------------------------------------------------------------

    private static IpamSnapshot snapshot(Case c) {
        String name = "net-" + c.index();
        IpamSnapshot.Builder b = IpamSnapshot.builder(Instant.EPOCH)
                .networkAttachmentDefinition(IpamObjects.nad("prod", name,
                        IpamObjects.macvlanConfig(name, "lan2", c.ipamJson())));
        String canonical = format(c.v4(), c.net()) + "/" + c.prefix();
        if (c.poolRange() != null) {
            Map<String, IPAllocation> allocations = new LinkedHashMap<>();
            for (int k = 0; k < c.offsets().size(); k++) {
                allocations.put(c.offsets().get(k).toString(), new IPAllocation("c" + k, "prod/pod-" + k, "net1"));
            }
            String poolName = (c.networkName().isEmpty() ? "" : c.networkName() + "-")
                    + canonical.replace(':', '-').replace('/', '-');
            b.ipPool(IpamObjects.poolWith(IpamObjects.WHEREABOUTS_NS, poolName, c.poolRange(), allocations));
        }
        for (Orip o : c.orips()) {
            String text = format(c.v4(), o.ip());
            if (text.endsWith(":")) {
                text += "0";
            }
            text = text.replace(':', '-');
            b.overlappingRangeIPReservation(IpamObjects.reservation(
                    o.networkName().isEmpty() ? text : o.networkName() + "-" + text, "other/pod"));
        }
        return b.build();
    }

    /** Go's net.IP.String: dotted quad, or RFC 5952 (longest run of two or more zero groups, first on ties). */
    static String format(boolean v4, BigInteger value) {
        if (v4) {
            long v = value.longValue();
            return ((v >> 24) & 255) + "." + ((v >> 16) & 255) + "." + ((v >> 8) & 255) + "." + (v & 255);
        }
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) {
            g[i] = value.shiftRight(16 * (7 - i)).intValue() & 0xffff;
        }
        int bestStart = -1;
        int bestLen = 1;
        for (int i = 0; i < 8; ) {
            if (g[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestStart = i;
                bestLen = j - i;
            }
            i = j;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(g[i]));
        }
        return sb.toString();
    }
}
