package dev.railyard.scheduler.service;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Leadership over fabric8's mock API server (CRUD mode): one leader, a standby that names it, release on close,
 * and the lost-leadership hook when another holder takes the Lease. The same is proven against a real
 * kube-apiserver, with processes, in test-e2e's {@code LeaderElectionIT}.
 */
@EnableKubernetesMockClient(crud = true)
class LeaderElectionTest {
    static final LeaderElection.Timing FAST = new LeaderElection.Timing(Duration.ofSeconds(2), Duration.ofSeconds(1),
            Duration.ofMillis(200));

    KubernetesClient client;

    LeaderElection elector(String identity, Runnable onLost) {
        return new LeaderElection(client, "railyard-system", "railyard", identity, null, FAST, onLost,
                new SimpleMeterRegistry());
    }

    Lease lease() {
        return client.leases().inNamespace("railyard-system").withName("railyard").get();
    }

    @Test
    void oneLeadsTheOtherNamesItAndCloseReleasesTheLeaseToTheStandby() {
        CountDownLatch lost = new CountDownLatch(2);
        try (LeaderElection a = elector("railyard-0", lost::countDown)) {
            await().atMost(Duration.ofSeconds(10)).until(a::leading);
            try (LeaderElection b = elector("railyard-1", lost::countDown)) {
                assertThat(lease().getSpec().getHolderIdentity()).isEqualTo("railyard-0");
                assertThat(lease().getSpec().getLeaseDurationSeconds()).isEqualTo(2);
                assertThat(a.standbyReason()).isEmpty();
                await().atMost(Duration.ofSeconds(10)).until(() -> b.standbyReason().equals(Optional.of(
                        "railyard-1 is a standby: the leader is railyard-0 (Lease railyard-system/railyard)")));
                assertThat(b.leading()).isFalse();

                a.close();
                // released: holder cleared, leaseDurationSeconds 1, so the standby need not wait 2 s
                assertThat(a.leading()).isFalse();
                Lease released = lease();
                assertThat(released.getSpec().getHolderIdentity()).isIn(null, "railyard-1");
                if (released.getSpec().getHolderIdentity() == null) {
                    assertThat(released.getSpec().getLeaseDurationSeconds()).isEqualTo(1);
                }
                await().atMost(Duration.ofSeconds(10)).until(b::leading);
                assertThat(lease().getSpec().getHolderIdentity()).isEqualTo("railyard-1");
                assertThat(lease().getSpec().getLeaseTransitions()).isEqualTo(1);
            }
        }
        // neither lost leadership: a released it, b was closed as leader
        assertThat(lost.getCount()).isEqualTo(2);
        assertThat(lease().getSpec().getHolderIdentity()).isNull();
    }

    @Test
    void leaderWhoseLeaseIsTakenStepsDownAndRunsTheLostHook() throws Exception {
        CountDownLatch lost = new CountDownLatch(1);
        try (LeaderElection a = elector("railyard-0", lost::countDown)) {
            await().atMost(Duration.ofSeconds(10)).until(a::leading);

            // the leader renews every 200 ms, so an update may meet a newer resourceVersion (409): try again
            await().atMost(Duration.ofSeconds(10)).ignoreExceptionsInstanceOf(KubernetesClientException.class)
                    .until(() -> {
                        Lease l = lease();
                        l.getSpec().setHolderIdentity("intruder");
                        l.getSpec().setRenewTime(ZonedDateTime.now());
                        l.getSpec().setLeaseDurationSeconds(60);
                        client.resource(l).update();
                        return true;
                    });

            assertThat(lost.await(10, TimeUnit.SECONDS)).as("onLost ran").isTrue();
            assertThat(a.leading()).isFalse();
            assertThat(a.standbyReason()).contains(
                    "railyard-0 is a standby: the leader is intruder (Lease railyard-system/railyard)");
        }
        // the intruder's Lease is not released by a replica that no longer holds it
        assertThat(lease().getSpec().getHolderIdentity()).isEqualTo("intruder");
    }

    @Test
    void timingFollowsClientGosRules() {
        assertThatThrownBy(() -> new LeaderElection.Timing(Duration.ofSeconds(10), Duration.ofSeconds(10),
                Duration.ofSeconds(2)))
                .hasMessage("leader election lease duration (10000 ms) must be longer than the renew deadline (10000 ms)");
        // 1.2 x 2,000 ms = 2,400 ms >= 2,400 ms
        assertThatThrownBy(() -> new LeaderElection.Timing(Duration.ofSeconds(5), Duration.ofMillis(2400),
                Duration.ofSeconds(2)))
                .hasMessage("leader election renew deadline (2400 ms) must be longer than 1.2 x the retry period (2000 ms)");
        assertThatThrownBy(() -> new LeaderElection.Timing(Duration.ofMillis(4500), Duration.ofSeconds(3),
                Duration.ofSeconds(1)))
                .hasMessage("leader election lease duration must be whole seconds (the Lease stores "
                        + "leaseDurationSeconds), got 4500 ms");
        assertThatThrownBy(() -> new LeaderElection.Timing(Duration.ofSeconds(4), Duration.ofSeconds(3),
                Duration.ZERO))
                .hasMessage("leader election durations must be positive");
        assertThat(LeaderElection.Timing.DEFAULTS).isEqualTo(new LeaderElection.Timing(Duration.ofSeconds(15),
                Duration.ofSeconds(10), Duration.ofSeconds(2)));
    }
}
