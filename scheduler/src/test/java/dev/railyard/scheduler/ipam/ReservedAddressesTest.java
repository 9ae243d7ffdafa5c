package dev.railyard.scheduler.ipam;

import dev.railyard.api.whereabouts.OverlappingRangeIPReservation;
import inet.ipaddr.IPAddress;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The reservation index: a slice's share by value, both families, and names read once per object. */
class ReservedAddressesTest {
    private static final List<OverlappingRangeIPReservation> RESERVATIONS = List.of(
            IpamObjects.reservation("r1-10.20.0.31", "ml/a"),
            IpamObjects.reservation("r1-10.20.0.16", "ml/b"),
            IpamObjects.reservation("r1-10.20.0.1", "ml/c"),
            IpamObjects.reservation("r1-10.20.0.15", "ml/d"),
            IpamObjects.reservation("r1-fd00--1", "ml/e"),       // fd00::1 (':' written as '-')
            IpamObjects.reservation("r2-10.20.0.17", "ml/f"),    // another network name: not this one's
            IpamObjects.reservation("r1-not-an-address", "ml/g"));

    @Test
    void aSliceGetsTheReservationsBetweenItsFirstAndLastAddress() {
        ReservedAddresses r = ReservedAddresses.of(RESERVATIONS, null, o -> PoolNames.reservedAddress(
                o.getMetadata().getName(), "r1"));
        // slice 10.20.0.16/28 spans .16-.31: .16 and .31 (its ends included), not .15 or .1
        assertThat(texts(r.between(true, v4(16), v4(31)))).containsExactly("10.20.0.16", "10.20.0.31");
        // slice 10.20.0.0/28 without its network and broadcast address (.1-.14, whereabouts' usable span): .1 only
        assertThat(texts(r.between(true, v4(1), v4(14)))).containsExactly("10.20.0.1");
        assertThat(r.between(true, v4(32), v4(47))).isEmpty();
        assertThat(r.between(true, v4(20), v4(19))).isEmpty();
        // fd00::/124: fd00::1 is its only reservation; the IPv4 ones are another family
        BigInteger fd00 = new BigInteger("fd00", 16).shiftLeft(112);
        assertThat(texts(r.between(false, fd00, fd00.add(BigInteger.valueOf(15))))).containsExactly("fd00::1");
    }

    @Test
    void aLaterIndexReadsOnlyTheNamesOfNewObjects() {
        AtomicInteger reads = new AtomicInteger();
        ReservedAddresses first = ReservedAddresses.of(RESERVATIONS, null, o -> {
            reads.incrementAndGet();
            return PoolNames.reservedAddress(o.getMetadata().getName(), "r1");
        });
        assertThat(reads).hasValue(7);
        List<OverlappingRangeIPReservation> next = new ArrayList<>(RESERVATIONS.subList(1, 7));
        next.add(IpamObjects.reservation("r1-10.20.0.20", "ml/h"));
        reads.set(0);
        ReservedAddresses second = ReservedAddresses.of(next, first, o -> {
            reads.incrementAndGet();
            return PoolNames.reservedAddress(o.getMetadata().getName(), "r1");
        });
        // 6 objects kept (their addresses reused), 1 new one read; .31 went with the object that named it
        assertThat(reads).hasValue(1);
        assertThat(texts(second.between(true, v4(16), v4(31)))).containsExactly("10.20.0.16", "10.20.0.20");
    }

    private static BigInteger v4(int lastOctet) {
        return BigInteger.valueOf((10L << 24) | (20L << 16) | lastOctet);
    }

    private static List<String> texts(List<IPAddress> addresses) {
        return addresses.stream().map(AddressText::format).toList();
    }
}
