package dev.railyard.scheduler.ipam;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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

/** Reserve is atomic: 1,000 racing placements on a pool with 100 free addresses, exactly 100 succeed. */
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
}
