package dev.railyard.scheduler.ipam;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A persisted hold is adopted only within the bounds of a hold Railyard writes (docs/adr/0011, amendment of
 * 2026-12-04): no longer than its origin's lifetime from {@code since}, no {@code since} more than 2 min ahead, no
 * more than 32 networks, only the origins Railyard persists. The attack it answers: a tenant wrote
 * {@code until: 2099-01-01} on a pending pod listing one network 2,000 times.
 *
 * <p>Pool: 10.7.0.0/28, 14 usable, offsets 1..4 allocated, so 10 free (as {@link AddressHoldLedgerTest}).
 */
class HoldAdoptionTest {
    private static final Instant T0 = Instant.parse("2026-12-04T14:00:00Z");
    private final IpamObjects.MutableClock clock = new IpamObjects.MutableClock(T0);
    private final IpPoolLedger ledger = new IpPoolLedger(clock, Duration.ofMinutes(5), null);
    private final PodNetworksRequest rail = PodNetworksRequest.ofAnnotation("job", "rail");

    private IpamSnapshot.Builder snapshot(Instant takenAt) {
        return IpamObjects.tenFreeRail(takenAt, "job/hog");
    }

    private int inFlight(IpPoolLedger l) {
        return (int) l.check(rail, 0, null).pools().get(0).inFlight();
    }

    /** The annotation of the reproduction, read as the cluster state reads it. */
    private static PersistedHold forged(PodNetworksRequest networks, String since, String until) {
        HoldAnnotation.Value v = HoldAnnotation.read("{\"uid\":\"uid-hog\",\"node\":\"gpu-00006\","
                + "\"by\":\"volcano allocateFunc\",\"since\":\"" + since + "\",\"until\":\"" + until + "\"}");
        assertThat(v).isNotNull();
        return new PersistedHold(new PodPlacement("hog", networks, v.node()), v.uid(), v.origin(), v.since(),
                v.until());
    }

    @Test
    void anUntilOf2099IsAdoptedOnlyUntilSincePlusTheAllocateLifetime() {
        PersistedHold hog = forged(rail, "2026-12-04T14:00:00Z", "2099-01-01T00:00:00Z");
        clock.advance(Duration.ofSeconds(60)); // 14:01:00
        ledger.update(snapshot(clock.instant()).heldPod(hog).build());

        assertThat(inFlight(ledger)).isEqualTo(1);
        // since 14:00:00 + allocate lifetime 5 min = 14:05:00, not 2099
        assertThat(ledger.holdOf("job/hog").until()).isEqualTo(Instant.parse("2026-12-04T14:05:00Z"));
        clock.advance(Duration.ofSeconds(239)); // 14:04:59
        assertThat(inFlight(ledger)).isEqualTo(1);
        clock.advance(Duration.ofSeconds(1)); // 14:05:00
        assertThat(inFlight(ledger)).isZero();
        // the annotation still says 2099: read again after the end, it is not adopted again
        ledger.update(snapshot(clock.instant()).heldPod(hog).build());
        assertThat(inFlight(ledger)).isZero();
        // nor by a replica starting now
        IpPoolLedger restarted = new IpPoolLedger(clock, Duration.ofMinutes(5), null);
        restarted.update(snapshot(clock.instant()).heldPod(hog).build());
        assertThat(restarted.heldAddresses()).isZero();
    }

    @Test
    void theVerdictSaysWhyTheEndIsEarlier() {
        HoldAdoption.Verdict v = HoldAdoption.DEFAULTS.judge(
                forged(rail, "2026-12-04T14:00:00Z", "2099-01-01T00:00:00Z"), T0.plusSeconds(60));
        assertThat(v.adopted()).isTrue();
        assertThat(v.until()).isEqualTo(Instant.parse("2026-12-04T14:05:00Z"));
        assertThat(v.warning()).isEqualTo("lifetime");
        assertThat(v.why()).isEqualTo("its until 2099-01-01T00:00:00Z is later than since + 300 s "
                + "(2026-12-04T14:05:00Z), the lifetime of a volcano allocateFunc hold");
    }

    @Test
    void aSinceMoreThanTwoMinutesAheadIsRefusedAndOneWithinTheSkewIsBoundedFromIt() {
        // clock 14:00:00; since 14:02:01 is 121 s ahead
        PersistedHold ahead = forged(rail, "2026-12-04T14:02:01Z", "2099-01-01T00:00:00Z");
        HoldAdoption.Verdict v = HoldAdoption.DEFAULTS.judge(ahead, T0);
        assertThat(v.adopted()).isFalse();
        assertThat(v.warning()).isEqualTo("future");
        ledger.update(snapshot(T0).heldPod(ahead).build());
        assertThat(ledger.heldAddresses()).isZero();

        // since 14:02:00, exactly 2 min ahead: adopted, until 14:02:00 + 5 min = 14:07:00
        IpPoolLedger other = new IpPoolLedger(clock, Duration.ofMinutes(5), null);
        other.update(snapshot(T0).heldPod(forged(rail, "2026-12-04T14:02:00Z", "2099-01-01T00:00:00Z")).build());
        assertThat(other.heldAddresses()).isEqualTo(1);
        assertThat(other.holdOf("job/hog").until()).isEqualTo(Instant.parse("2026-12-04T14:07:00Z"));
    }

    @Test
    void twoThousandEntriesOfOneNetworkDoNotBecomeTwoThousandHolds() {
        PodNetworksRequest many = PodNetworksRequest.ofAnnotation("job", String.join(",",
                Collections.nCopies(2000, "rail")));
        assertThat(many.selections()).hasSize(2000);
        PersistedHold hog = forged(many, "2026-12-04T14:00:00Z", "2026-12-04T14:05:00Z");
        ledger.update(snapshot(T0).heldPod(hog).build());
        assertThat(ledger.heldAddresses()).isZero();
        assertThat(inFlight(ledger)).isZero();
        assertThat(HoldAdoption.DEFAULTS.judge(hog, T0).why())
                .isEqualTo("the pod lists 2000 networks, more than the 32 a hold is adopted for");

        // 33 entries: refused; 32 (the bound): one hold per entry, 32
        PodNetworksRequest over = PodNetworksRequest.ofAnnotation("job", String.join(",", Collections.nCopies(33,
                "rail")));
        ledger.update(snapshot(T0).heldPod(forged(over, "2026-12-04T14:00:00Z", "2026-12-04T14:05:00Z")).build());
        assertThat(ledger.heldAddresses()).isZero();
        PodNetworksRequest bound = PodNetworksRequest.ofAnnotation("job", String.join(",", Collections.nCopies(32,
                "rail")));
        ledger.update(snapshot(T0).heldPod(forged(bound, "2026-12-04T14:00:00Z", "2026-12-04T14:05:00Z")).build());
        assertThat(ledger.heldAddresses()).isEqualTo(32);
    }

    @Test
    void aHoldRailyardWroteIsAdoptedAfterARestartExactlyAsWritten() {
        ledger.update(snapshot(T0).build());
        PodPlacement w0 = new PodPlacement("w-0", rail, "gpu-a1");
        assertThat(ledger.hold(List.of(new HoldRequest(w0, "uid-w-0", HoldOrigin.ALLOCATE, Duration.ofMinutes(5))))
                .admitted()).isTrue();
        AddressHold taken = ledger.holdOf("job/w-0");
        String written = HoldAnnotation.write(new HoldAnnotation.Value("uid-w-0", "gpu-a1", HoldOrigin.ALLOCATE,
                taken.since(), taken.until()));
        assertThat(written).isEqualTo("{\"uid\":\"uid-w-0\",\"node\":\"gpu-a1\",\"by\":\"volcano allocateFunc\","
                + "\"since\":\"2026-12-04T14:00:00Z\",\"until\":\"2026-12-04T14:05:00Z\"}");
        HoldAnnotation.Value read = HoldAnnotation.read(written);

        clock.advance(Duration.ofSeconds(90)); // the replica died; a new one starts at 14:01:30
        IpPoolLedger restarted = new IpPoolLedger(clock, Duration.ofMinutes(5), null);
        restarted.update(snapshot(clock.instant()).heldPod(new PersistedHold(w0, read.uid(), read.origin(),
                read.since(), read.until())).build());
        AddressHold adopted = restarted.holdOf("job/w-0");
        assertThat(adopted.persisted()).isTrue();
        assertThat(adopted.since()).isEqualTo(Instant.parse("2026-12-04T14:00:00Z"));
        assertThat(adopted.until()).isEqualTo(Instant.parse("2026-12-04T14:05:00Z"));
        assertThat(inFlight(restarted)).isEqualTo(1);
        assertThat(HoldAdoption.DEFAULTS.judge(new PersistedHold(w0, read.uid(), read.origin(), read.since(),
                read.until()), clock.instant()).why()).isNull();
    }

    @Test
    void theLifetimesTheServiceGivesItsHoldsAreTheOnesAdoptionIsBoundedBy() {
        // serve wires AddressHolds to the ledger: its allocate lifetime (here 10 min) bounds what the ledger adopts
        new dev.railyard.scheduler.service.AddressHolds(ledger, dev.railyard.scheduler.service.HoldWriter.none(),
                new dev.railyard.scheduler.service.AddressHolds.Settings(Duration.ofSeconds(30),
                        Duration.ofMinutes(5), Duration.ofMinutes(10)),
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
        ledger.update(snapshot(T0).heldPod(forged(rail, "2026-12-04T14:00:00Z", "2099-01-01T00:00:00Z")).build());
        // 14:00:00 + 10 min
        assertThat(ledger.holdOf("job/hog").until()).isEqualTo(Instant.parse("2026-12-04T14:10:00Z"));
    }

    @Test
    void aKubeBindHoldIsBoundByTheBindLifetimeAndUnpersistedOriginsAreNotAdopted() {
        PodPlacement hog = new PodPlacement("hog", rail, "gpu-a1");
        Instant far = Instant.parse("2099-01-01T00:00:00Z");
        ledger.adoptWithin(new HoldAdoption(Duration.ofMinutes(3), Duration.ofMinutes(5)));
        ledger.update(snapshot(T0).heldPod(new PersistedHold(hog, "uid-hog", HoldOrigin.BIND, T0, far)).build());
        // 14:00:00 + bind lifetime 3 min
        assertThat(ledger.holdOf("job/hog").until()).isEqualTo(Instant.parse("2026-12-04T14:03:00Z"));

        for (HoldOrigin never : new HoldOrigin[]{HoldOrigin.FILTER, HoldOrigin.PLAN}) {
            IpPoolLedger fresh = new IpPoolLedger(clock, Duration.ofMinutes(5), null);
            fresh.update(snapshot(T0).heldPod(new PersistedHold(hog, "uid-hog", never, T0, T0.plusSeconds(20)))
                    .build());
            assertThat(fresh.heldAddresses()).as(never.words()).isZero();
        }
    }
}
