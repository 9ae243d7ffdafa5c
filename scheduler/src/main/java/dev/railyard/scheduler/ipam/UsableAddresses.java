package dev.railyard.scheduler.ipam;

import inet.ipaddr.IPAddress;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The addresses whereabouts can hand out from one range, as an interval minus excluded blocks, counted without
 * enumerating (a /8 or an IPv6 /64 is as cheap as a /30).
 *
 * <p>The rule is whereabouts' {@code IterateForAssignment} ({@code pkg/allocate/allocate.go}) with
 * {@code GetIPRange} ({@code pkg/iphelpers/iphelpers.go}):
 * <ol>
 *   <li>a range needs at least two host bits ({@code HasUsableIPs}): IPv4 /31 and /32 and IPv6 /127 and /128 have no
 *       usable address, and every allocation fails with "net mask is too short";</li>
 *   <li>the span runs from network+1 to broadcast−1; {@code range_start} replaces the first address only if it lies
 *       inside that span, then {@code range_end} replaces the last only if it lies between the (possibly new) first
 *       address and broadcast−1; otherwise each is silently ignored;</li>
 *   <li>every address of every {@code exclude} block is skipped (whereabouts jumps to the block's last address);</li>
 *   <li>whatever remains is handed out lowest first, skipping reserved addresses; the gateway is not special and
 *       {@code .0} inside a wider range is an ordinary address.</li>
 * </ol>
 * In node-slice mode the span is the node's slice minus its first and last address, clipped by the same rule against
 * the whole range, and {@code exclude} is not applied ({@code IPManagementKubernetesUpdate}).
 */
final class UsableAddresses {
    private final boolean ipv4;
    private final BigInteger first;
    private final BigInteger last;
    /** Merged, sorted, clipped to [first, last]; each {lo, hi}. */
    private final List<BigInteger[]> excluded;
    private final BigInteger count;
    private final String emptyReason;
    private final List<String> notes;

    private UsableAddresses(boolean ipv4, BigInteger first, BigInteger last, List<BigInteger[]> excluded,
                            String emptyReason, List<String> notes) {
        this.ipv4 = ipv4;
        this.first = first;
        this.last = last;
        this.excluded = excluded;
        this.notes = List.copyOf(notes);
        BigInteger c = BigInteger.ZERO;
        if (first != null && first.compareTo(last) <= 0) {
            c = last.subtract(first).add(BigInteger.ONE);
            for (BigInteger[] e : excluded) {
                c = c.subtract(e[1].subtract(e[0]).add(BigInteger.ONE));
            }
        }
        this.count = c;
        this.emptyReason = c.signum() == 0 && emptyReason == null ? "every address between "
                + describeSpan(ipv4, first, last) + " is excluded" : emptyReason;
    }

    /** The addresses of one configured range (normal mode). */
    static UsableAddresses of(IpamRange range) {
        return build(range.cidr(), range.rangeStart(), range.rangeEnd(), range.excludes());
    }

    /**
     * The addresses of one node's slice (node-slice mode).
     *
     * @param whole the configured range
     * @param slice the node's slice from the NodeSlicePool
     */
    static UsableAddresses ofSlice(IpamRange whole, AddressText.Cidr slice) {
        if (slice.bits() - slice.prefix() <= 1) {
            return empty(slice.ipv4(), "slice " + slice.canonical() + " has no usable address");
        }
        IPAddress sliceFirst = AddressText.fromValue(slice.ipv4(), slice.network().getValue().add(BigInteger.ONE));
        IPAddress sliceLast = AddressText.fromValue(slice.ipv4(), slice.broadcast().getValue()
                .subtract(BigInteger.ONE));
        return build(whole.cidr(), sliceFirst, sliceLast, List.of());
    }

    private static UsableAddresses empty(boolean ipv4, String reason) {
        return new UsableAddresses(ipv4, null, null, List.of(), reason, List.of());
    }

    private static UsableAddresses build(AddressText.Cidr cidr, IPAddress rangeStart, IPAddress rangeEnd,
                                         List<AddressText.Cidr> excludes) {
        boolean v4 = cidr.ipv4();
        if (cidr.bits() - cidr.prefix() <= 1) {
            return empty(v4, "range " + cidr.canonical() + " has no usable address (whereabouts needs at least two "
                    + "host bits: /31, /32, /127 and /128 always fail)");
        }
        List<String> notes = new ArrayList<>();
        BigInteger lo = cidr.network().getValue().add(BigInteger.ONE);
        BigInteger hi = cidr.broadcast().getValue().subtract(BigInteger.ONE);
        if (rangeStart != null) {
            if (rangeStart.isIPv4() == v4 && between(rangeStart.getValue(), lo, hi)) {
                lo = rangeStart.getValue();
            } else {
                notes.add("range_start " + AddressText.format(rangeStart) + " is outside the usable addresses of "
                        + cidr.canonical() + "; whereabouts ignores it");
            }
        }
        if (rangeEnd != null) {
            if (rangeEnd.isIPv4() == v4 && between(rangeEnd.getValue(), lo, hi)) {
                hi = rangeEnd.getValue();
            } else {
                notes.add("range_end " + AddressText.format(rangeEnd) + " is outside "
                        + describeSpan(v4, lo, cidr.broadcast().getValue().subtract(BigInteger.ONE))
                        + "; whereabouts ignores it");
            }
        }
        List<BigInteger[]> blocks = new ArrayList<>();
        for (AddressText.Cidr e : excludes) {
            if (e.ipv4() != v4) {
                continue;
            }
            BigInteger elo = e.network().getValue().max(lo);
            BigInteger ehi = e.broadcast().getValue().min(hi);
            if (elo.compareTo(ehi) <= 0) {
                blocks.add(new BigInteger[] {elo, ehi});
            }
        }
        blocks.sort(Comparator.comparing((BigInteger[] b) -> b[0]));
        List<BigInteger[]> merged = new ArrayList<>();
        for (BigInteger[] b : blocks) {
            BigInteger[] top = merged.isEmpty() ? null : merged.get(merged.size() - 1);
            if (top != null && b[0].compareTo(top[1].add(BigInteger.ONE)) <= 0) {
                top[1] = top[1].max(b[1]);
            } else {
                merged.add(new BigInteger[] {b[0], b[1]});
            }
        }
        return new UsableAddresses(v4, lo, hi, merged, null, notes);
    }

    private static boolean between(BigInteger v, BigInteger lo, BigInteger hi) {
        return v.compareTo(lo) >= 0 && v.compareTo(hi) <= 0;
    }

    /** @return the number of addresses whereabouts can hand out, ignoring reservations */
    BigInteger count() {
        return count;
    }

    /** @return why there is no usable address, or null when there is one */
    String emptyReason() {
        return count.signum() == 0 ? emptyReason : null;
    }

    /** @return what whereabouts silently ignores in this range, one line each */
    List<String> notes() {
        return notes;
    }

    /** @return {@code first-last} of the span, before excludes ({@code 10.128.165.32-10.128.165.34}) */
    String span() {
        return describeSpan(ipv4, first, last);
    }

    /** @return true when whereabouts could hand out this address from this range */
    boolean contains(IPAddress ip) {
        if (ip == null || ip.isIPv4() != ipv4 || first == null) {
            return false;
        }
        BigInteger v = ip.getValue();
        if (!between(v, first, last)) {
            return false;
        }
        int lo = 0;
        int hi = excluded.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            BigInteger[] e = excluded.get(mid);
            if (v.compareTo(e[0]) < 0) {
                hi = mid - 1;
            } else if (v.compareTo(e[1]) > 0) {
                lo = mid + 1;
            } else {
                return false;
            }
        }
        return true;
    }

    /**
     * @return the reserved addresses between this range's first and last address (excluded blocks included), a
     *         superset of those {@link #contains} accepts
     */
    List<IPAddress> reservedAmong(ReservedAddresses reserved) {
        return first == null ? List.of() : reserved.between(ipv4, first, last);
    }

    /** @return how many distinct addresses of the collection this range could hand out */
    long countContained(Collection<IPAddress> addresses) {
        Set<BigInteger> seen = new HashSet<>();
        for (IPAddress a : addresses) {
            if (contains(a)) {
                seen.add(a.getValue());
            }
        }
        return seen.size();
    }

    private static String describeSpan(boolean ipv4, BigInteger lo, BigInteger hi) {
        if (lo == null || lo.compareTo(hi) > 0) {
            return "(none)";
        }
        return AddressText.format(AddressText.fromValue(ipv4, lo)) + "-"
                + AddressText.format(AddressText.fromValue(ipv4, hi));
    }
}
