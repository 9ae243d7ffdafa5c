package dev.railyard.agent;

import dev.railyard.agent.podresources.PodResourcesListerRpc;
import dev.railyard.agent.podresources.v1.ListPodResourcesRequest;
import dev.railyard.agent.podresources.v1.ListPodResourcesResponse;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static dev.railyard.agent.FakeKubelet.devices;
import static dev.railyard.agent.FakeKubelet.devicesOnNuma;
import static dev.railyard.agent.FakeKubelet.pod;
import static dev.railyard.agent.FakeKubelet.slots;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PodResourcesClientTest {
    @TempDir
    Path dir;

    private static AgentSettings settings(String target) {
        return settings(target, Duration.ofSeconds(2));
    }

    private static AgentSettings settings(String target, Duration deadline) {
        return AgentSettings.defaults("node-a", Path.of("/nonexistent")).withPodResourcesTarget(target)
                .withPodResourcesLimit(5, Duration.ofMillis(100), deadline);
    }

    @Test
    void listsAndReadsAllocatableOverARealUnixSocket() throws Exception {
        Path socket = dir.resolve("kubelet.sock");
        try (FakeKubelet kubelet = new FakeKubelet()
                .pods(pod("team-a", "trainer-0", devices("nvidia.com/gpu", "GPU-aaa"),
                        devices("nvidia.com/mlx5_0", "7")))
                .allocatable(devicesOnNuma("nvidia.com/gpu", 0, "GPU-aaa", "GPU-bbb"),
                        devices("nvidia.com/mlx5_0", slots(100)))
                .startOnSocket(socket);
             // a generous per-call deadline: on a loaded machine the first call over a fresh socket (channel
             // start, protobuf classes loading) can outlast 2 s and be retried, and this test counts calls
             PodResourcesClient client = PodResourcesClient.connect(settings("unix://" + socket,
                     Duration.ofSeconds(30)), new SimpleMeterRegistry())) {
            ListPodResourcesResponse list = client.list();
            assertThat(list.getPodResourcesList()).singleElement().satisfies(p -> {
                assertThat(p.getNamespace()).isEqualTo("team-a");
                assertThat(p.getContainers(0).getDevices(1).getDeviceIdsList()).containsExactly("7");
            });
            var allocatable = client.allocatable();
            assertThat(allocatable.getDevices(0).getTopology().getNodes(0).getID()).isZero();
            assertThat(allocatable.getDevices(1).getDeviceIdsCount()).isEqualTo(100);
            assertThat(kubelet.listCalls).hasValue(1);
        }
    }

    @Test
    void plainSocketPathIsAccepted() {
        assertThat(PodResourcesClient.normalizeTarget("/var/lib/kubelet/pod-resources/kubelet.sock"))
                .isEqualTo("unix:///var/lib/kubelet/pod-resources/kubelet.sock");
        assertThat(PodResourcesClient.normalizeTarget("unix:///x.sock")).isEqualTo("unix:///x.sock");
    }

    @Test
    void absentSocketIsUnavailableWithAOneLineMessageNamingTheSocket() {
        Path socket = dir.resolve("missing.sock");
        try (PodResourcesClient client = PodResourcesClient.connect(settings(socket.toString()),
                new SimpleMeterRegistry())) {
            assertThatThrownBy(client::list)
                    .isInstanceOf(PodResourcesUnavailableException.class)
                    .hasMessageContaining("unix://" + socket)
                    .hasMessageContaining("List: UNAVAILABLE")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        }
    }

    @Test
    void rejectedCallIsRetriedAfterABackoff() throws Exception {
        try (FakeKubelet kubelet = new FakeKubelet().pods(pod("ns", "p")).failNext(2).startInProcess()) {
            PodResourcesClient client = new PodResourcesClient(kubelet.inProcessChannel(), "in-process", 5,
                    Duration.ofMillis(100), Duration.ofSeconds(2), new SimpleMeterRegistry());
            // Two RESOURCE_EXHAUSTED answers, then the third attempt (the Retry's last) succeeds.
            assertThat(client.list().getPodResourcesCount()).isEqualTo(1);
            assertThat(kubelet.listCalls).hasValue(3);
            client.close();
        }
    }

    @Test
    void clientStaysInsideTheKubeletsTokenBucket() throws Exception {
        try (FakeKubelet kubelet = new FakeKubelet().withKubeletRateLimit().startInProcess()) {
            PodResourcesClient client = new PodResourcesClient(kubelet.inProcessChannel(), "in-process", 5,
                    Duration.ofMillis(100), Duration.ofSeconds(5), new SimpleMeterRegistry());
            long start = System.nanoTime();
            for (int i = 0; i < 40; i++) {
                client.list();
            }
            long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            // The kubelet's bucket (100/s, burst 10) refused nothing, and no retry was needed.
            assertThat(kubelet.rejected).hasValue(0);
            assertThat(kubelet.listCalls).hasValue(40);
            // 40 calls at 5 per 100 ms window need 8 windows: at least 7 window boundaries = 700 ms. A lower bound,
            // so it cannot flake on a slow machine.
            assertThat(elapsedMs).isGreaterThanOrEqualTo(700);
            client.close();
        }
    }

    @Test
    void theFakeKubeletsBucketDoesRefuseAnUnthrottledBurst() throws Exception {
        // Control for the test above: without the client's limiter, 60 back-to-back calls exceed burst 10.
        try (FakeKubelet kubelet = new FakeKubelet().withKubeletRateLimit().startInProcess()) {
            ManagedChannel channel = kubelet.inProcessChannel();
            var stub = PodResourcesListerRpc.blockingClient(channel, 2, TimeUnit.SECONDS);
            int refused = 0;
            for (int i = 0; i < 60; i++) {
                try {
                    stub.list(ListPodResourcesRequest.getDefaultInstance());
                } catch (StatusRuntimeException e) {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                    refused++;
                }
            }
            assertThat(refused).isPositive();
            channel.shutdownNow();
        }
    }
}
