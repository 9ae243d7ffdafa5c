package dev.railyard.scheduler.ipam;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import dev.railyard.api.multus.NetworkAttachmentDefinition;
import org.junit.jupiter.api.RepeatedTest;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reserve is atomic: 1,000 racing placements on a pool with 100 free addresses, exactly 100 succeed; racing updates
 * leave the last call's snapshot in use.
 */
class IpPoolLedgerConcurrencyTest {
    private static ExecutorService pool;

    @BeforeAll
    static void start() {
        pool = Executors.newFixedThreadPool(8);
    }

    @AfterAll
    static void stop() {
        pool.shutdownNow();
    }

    @RepeatedTest(100)
    void thousandRacingReservationsOnHundredFreeAddressesExactlyHundredSucceed() throws Exception {
        // 10.50.0.0/25: 126 usable (10.50.0.1-10.50.0.126); offsets 1..26 allocated -> 100 free
        Map<String, String> allocated = new LinkedHashMap<>();
        for (int i = 1; i <= 26; i++) {
            allocated.put(Integer.toString(i), "train/old-" + i);
        }
        IpamSnapshot snapshot = IpamSnapshot.builder(Instant.EPOCH)
                .networkAttachmentDefinition(IpamObjects.whereaboutsNad("train", "rail0", "\"range\":\"10.50.0.0/25\""))
                .ipPool(IpamObjects.pool("10.50.0.0-25", "10.50.0.0/25", allocated))
                .build();
        IpPoolLedger ledger = new IpPoolLedger(new IpamObjects.MutableClock(Instant.EPOCH), Duration.ofMinutes(5),
                null);
        ledger.update(snapshot);
        PodNetworksRequest request = PodNetworksRequest.ofAnnotation("train", "rail0");
        assertThat(ledger.check(request, 100, null).admitted()).isTrue();
        assertThat(ledger.check(request, 101, null).admitted()).isFalse();

        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger exhausted = new AtomicInteger();
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            String pod = "worker-" + i;
            futures.add(pool.submit(() -> {
                go.await();
                PoolVerdict v = ledger.reserve(List.of(new PodPlacement(pod, request, "node-" + (pod.length() % 7))));
                if (v.admitted()) {
                    admitted.incrementAndGet();
                } else if (v.reason() == PoolReason.POOL_EXHAUSTED) {
                    exhausted.incrementAndGet();
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> f : futures) {
            f.get(30, TimeUnit.SECONDS);
        }
        assertThat(admitted.get()).isEqualTo(100);
        assertThat(exhausted.get()).isEqualTo(900);
        assertThat(ledger.heldAddresses()).isEqualTo(100);
        PoolStatus after = ledger.check(request, 1, null).pools().get(0);
        assertThat(after.inFlight()).isEqualTo(100);
        assertThat(after.free()).isZero();
    }

    /**
     * Two updates racing: the first one's build is held inside (its NetworkAttachmentDefinition's metadata is read
     * only when the latch opens), the second is called while it waits. The snapshot in use afterwards is the second's,
     * the one the last call handed over; before updates serialized, the second installed at once and the first, built
     * later, replaced it with the older snapshot.
     */
    @org.junit.jupiter.api.Test
    void racingUpdatesLeaveTheLastCallsSnapshotInUse() throws Exception {
        CountDownLatch building = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        NetworkAttachmentDefinition plain = IpamObjects.whereaboutsNad("train", "rail0", "\"range\":\"10.50.0.0/25\"");
        NetworkAttachmentDefinition held = new HeldNad(plain, building, release);
        held.setSpec(plain.getSpec());
        IpamSnapshot older = IpamSnapshot.builder(Instant.EPOCH).networkAttachmentDefinition(held).build();
        IpamSnapshot newer = IpamSnapshot.builder(Instant.EPOCH.plusSeconds(1)).networkAttachmentDefinition(plain).build();
        IpPoolLedger ledger = new IpPoolLedger(new IpamObjects.MutableClock(Instant.EPOCH), Duration.ofMinutes(5),
                null);
        Thread first = new Thread(() -> ledger.update(older), "first-update");
        first.start();
        assertThat(building.await(30, TimeUnit.SECONDS)).isTrue();
        Thread second = new Thread(() -> ledger.update(newer), "second-update");
        second.start();
        // the second call either waits for the first (BLOCKED on the update monitor) or has installed its snapshot
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (second.getState() != Thread.State.BLOCKED && second.getState() != Thread.State.TERMINATED
                && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        release.countDown();
        first.join(30_000);
        second.join(30_000);
        assertThat(ledger.snapshot()).isSameAs(newer);
    }

    /** A NetworkAttachmentDefinition whose metadata the thread "first-update" reads only once {@code release} opens. */
    @io.fabric8.kubernetes.model.annotation.Group(NetworkAttachmentDefinition.GROUP)
    @io.fabric8.kubernetes.model.annotation.Version(NetworkAttachmentDefinition.VERSION)
    @io.fabric8.kubernetes.model.annotation.Kind("NetworkAttachmentDefinition")
    private static final class HeldNad extends NetworkAttachmentDefinition {
        private final transient NetworkAttachmentDefinition plain;
        private final transient CountDownLatch building;
        private final transient CountDownLatch release;

        HeldNad(NetworkAttachmentDefinition plain, CountDownLatch building, CountDownLatch release) {
            this.plain = plain;
            this.building = building;
            this.release = release;
        }

        @Override
        public io.fabric8.kubernetes.api.model.ObjectMeta getMetadata() {
            // CustomResource's constructor reads the metadata before these fields are set
            if (building != null && Thread.currentThread().getName().equals("first-update")) {
                building.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return plain == null ? super.getMetadata() : plain.getMetadata();
        }
    }
}
