package dev.railyard.scheduler.ipam;

import dev.railyard.api.whereabouts.OverlappingRangeIPReservation;
import inet.ipaddr.IPAddress;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The addresses one network name's OverlappingRangeIPReservations hold, sorted by value within each address family,
 * so the share of one range or node slice is found by binary search. Whereabouts writes one reservation per address
 * it hands out while {@code enable_overlapping_ranges} is on, its default (docs/formats/whereabouts.md §1): a
 * cluster of 20,000 node slices holds tens of thousands, and reading them all for each node's slice made a count of
 * the whole network cost the product of the two. An index made for a later snapshot reuses the addresses this one
 * read from the same objects ({@link #of}), so an address change does not parse every reservation name again.
 * Immutable.
 */
final class ReservedAddresses {
    /** The address each object's name gave (empty: not a reservation of this network name). */
    private final Map<OverlappingRangeIPReservation, Optional<IPAddress>> read;
    private final long[] v4;
    private final BigInteger[] v6;

    private ReservedAddresses(Map<OverlappingRangeIPReservation, Optional<IPAddress>> read, long[] v4,
                              BigInteger[] v6) {
        this.read = read;
        this.v4 = v4;
        this.v6 = v6;
    }

    /**
     * @param reservations every reservation of the snapshot (in whereabouts' namespace)
     * @param before       the index of an earlier snapshot for the same network name, or null
     * @param address      the address a reservation's name gives for this network name, or null when it is not one
     *                     ({@link PoolNames#reservedAddress})
     */
    static ReservedAddresses of(List<OverlappingRangeIPReservation> reservations, ReservedAddresses before,
                                Function<OverlappingRangeIPReservation, IPAddress> address) {
        Map<OverlappingRangeIPReservation, Optional<IPAddress>> read = new IdentityHashMap<>(reservations.size());
        long[] four = new long[reservations.size()];
        int fours = 0;
        List<BigInteger> six = new ArrayList<>();
        for (OverlappingRangeIPReservation r : reservations) {
            Optional<IPAddress> ip = before == null ? null : before.read.get(r);
            if (ip == null) {
                ip = Optional.ofNullable(address.apply(r));
            }
            read.put(r, ip);
            if (ip.isEmpty()) {
                continue;
            }
            if (ip.get().isIPv4()) {
                four[fours++] = ip.get().getValue().longValue();
            } else {
                six.add(ip.get().getValue());
            }
        }
        long[] v4 = Arrays.copyOf(four, fours);
        Arrays.sort(v4);
        BigInteger[] v6 = six.toArray(BigInteger[]::new);
        Arrays.sort(v6);
        return new ReservedAddresses(read, v4, v6);
    }

    /**
     * @param ipv4  the family
     * @param first the lowest address value, inclusive
     * @param last  the highest address value, inclusive
     * @return the reserved addresses of this family from {@code first} to {@code last}, ascending, duplicates kept
     */
    List<IPAddress> between(boolean ipv4, BigInteger first, BigInteger last) {
        if (first.compareTo(last) > 0) {
            return List.of();
        }
        List<IPAddress> out = new ArrayList<>();
        if (ipv4) {
            long lo = first.longValue();
            long hi = last.longValue();
            int from = Arrays.binarySearch(v4, lo);
            from = from < 0 ? -from - 1 : firstOf(v4, from);
            for (int i = from; i < v4.length && v4[i] <= hi; i++) {
                out.add(AddressText.fromValue(true, BigInteger.valueOf(v4[i])));
            }
        } else {
            int from = lowerBound(v6, first);
            for (int i = from; i < v6.length && v6[i].compareTo(last) <= 0; i++) {
                out.add(AddressText.fromValue(false, v6[i]));
            }
        }
        return out;
    }

    private static int firstOf(long[] values, int found) {
        int i = found;
        while (i > 0 && values[i - 1] == values[found]) {
            i--;
        }
        return i;
    }

    /** @return the first index whose value is at least {@code v} */
    private static int lowerBound(BigInteger[] values, BigInteger v) {
        int lo = 0;
        int hi = values.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (values[mid].compareTo(v) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
