package dev.railyard.agent;

import dev.railyard.agent.podresources.PodResourcesListerRpc;
import dev.railyard.agent.podresources.v1.AllocatableResourcesRequest;
import dev.railyard.agent.podresources.v1.AllocatableResourcesResponse;
import dev.railyard.agent.podresources.v1.ContainerDevices;
import dev.railyard.agent.podresources.v1.ContainerResources;
import dev.railyard.agent.podresources.v1.ListPodResourcesRequest;
import dev.railyard.agent.podresources.v1.ListPodResourcesResponse;
import dev.railyard.agent.podresources.v1.NUMANode;
import dev.railyard.agent.podresources.v1.PodResources;
import dev.railyard.agent.podresources.v1.TopologyInfo;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.stub.StreamObserver;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A kubelet PodResources v1 server for tests: serves the pods and allocatable devices it is given, counts calls,
 * and can enforce the kubelet's own rate limit (a token bucket of 100 per second, burst 10, answering
 * RESOURCE_EXHAUSTED "rejected by rate limit"; kubernetes {@code pkg/kubelet/apis/podresources/constants.go} and
 * {@code server_v1.go}). Serves in-process or on a real unix socket. Public (in the agent module's test jar) so that
 * end-to-end tests can run the agent against it: {@code new FakeKubelet().pods(...).startOnSocket(path)} and
 * {@code railyard agent --pod-resources-socket unix://<path>}.
 */
public final class FakeKubelet implements PodResourcesListerRpc.Service, AutoCloseable {
    private volatile ListPodResourcesResponse pods = ListPodResourcesResponse.getDefaultInstance();
    private volatile AllocatableResourcesResponse allocatable = AllocatableResourcesResponse.getDefaultInstance();
    /** Calls of {@code List} so far. */
    public final AtomicInteger listCalls = new AtomicInteger();
    /** Calls of {@code GetAllocatableResources} so far. */
    public final AtomicInteger allocatableCalls = new AtomicInteger();
    /** Calls refused with RESOURCE_EXHAUSTED so far. */
    public final AtomicInteger rejected = new AtomicInteger();
    private volatile int failNext;
    private TokenBucket bucket;
    private Server server;
    private MultiThreadIoEventLoopGroup group;
    private String inProcessName;

    /** Enforces the kubelet's token bucket: 100 tokens per second, capacity 10, starting full. */
    public FakeKubelet withKubeletRateLimit() {
        bucket = new TokenBucket(100, 10);
        return this;
    }

    /** The next {@code n} calls answer RESOURCE_EXHAUSTED. */
    public FakeKubelet failNext(int n) {
        failNext = n;
        return this;
    }

    public FakeKubelet pods(PodResources... list) {
        pods = ListPodResourcesResponse.newBuilder().addAllPodResources(List.of(list)).build();
        return this;
    }

    /** Replaces what {@code GetAllocatableResources} reports. */
    public FakeKubelet allocatable(ContainerDevices... devices) {
        allocatable = AllocatableResourcesResponse.newBuilder().addAllDevices(List.of(devices)).build();
        return this;
    }

    /** Starts an in-process server; {@link #inProcessChannel()} connects to it. */
    public FakeKubelet startInProcess() throws IOException {
        inProcessName = InProcessServerBuilder.generateName();
        server = InProcessServerBuilder.forName(inProcessName).directExecutor()
                .addService(PodResourcesListerRpc.bind(this)).build().start();
        return this;
    }

    /** @return a new channel to the in-process server (the caller shuts it down) */
    public ManagedChannel inProcessChannel() {
        return InProcessChannelBuilder.forName(inProcessName).directExecutor().build();
    }

    /** Starts a server on a unix domain socket at {@code socket} (epoll, as the kubelet serves it). */
    public FakeKubelet startOnSocket(Path socket) throws IOException {
        group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        server = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollServerDomainSocketChannel.class)
                .bossEventLoopGroup(group).workerEventLoopGroup(group)
                .addService(PodResourcesListerRpc.bind(this)).build().start();
        return this;
    }

    @Override
    public void list(ListPodResourcesRequest request, StreamObserver<ListPodResourcesResponse> response) {
        listCalls.incrementAndGet();
        if (refuse(response)) {
            return;
        }
        response.onNext(pods);
        response.onCompleted();
    }

    @Override
    public void getAllocatableResources(AllocatableResourcesRequest request,
                                        StreamObserver<AllocatableResourcesResponse> response) {
        allocatableCalls.incrementAndGet();
        if (refuse(response)) {
            return;
        }
        response.onNext(allocatable);
        response.onCompleted();
    }

    private boolean refuse(StreamObserver<?> response) {
        boolean fail;
        synchronized (this) {
            fail = failNext > 0;
            if (fail) {
                failNext--;
            }
        }
        if (fail || (bucket != null && !bucket.tryTake())) {
            rejected.incrementAndGet();
            response.onError(Status.RESOURCE_EXHAUSTED.withDescription("rejected by rate limit").asRuntimeException());
            return true;
        }
        return false;
    }

    /** Stops serving at once (the kubelet going away). */
    @Override
    public void close() {
        if (server != null) {
            server.shutdownNow();
            try {
                server.awaitTermination(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    /** @return a pod with one container {@code main} holding {@code devices} */
    public static PodResources pod(String namespace, String name, ContainerDevices... devices) {
        return PodResources.newBuilder().setNamespace(namespace).setName(name)
                .addContainers(ContainerResources.newBuilder().setName("main").addAllDevices(List.of(devices)))
                .build();
    }

    /** @return {@code ids} of {@code resource}, without topology */
    public static ContainerDevices devices(String resource, String... ids) {
        return ContainerDevices.newBuilder().setResourceName(resource).addAllDeviceIds(List.of(ids)).build();
    }

    /** @return {@code ids} of {@code resource} on NUMA node {@code numa} */
    public static ContainerDevices devicesOnNuma(String resource, long numa, String... ids) {
        return ContainerDevices.newBuilder().setResourceName(resource).addAllDeviceIds(List.of(ids))
                .setTopology(TopologyInfo.newBuilder().addNodes(NUMANode.newBuilder().setID(numa))).build();
    }

    /** {@code "0"} .. {@code "n-1"}: the slot ids the rdma-shared-dev-plugin reports. */
    public static String[] slots(int n) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(Integer.toString(i));
        }
        return ids.toArray(String[]::new);
    }

    /** golang.org/x/time/rate semantics: refill {@code rate} per second up to {@code burst}, one token per call. */
    private static final class TokenBucket {
        private final double rate;
        private final double burst;
        private double tokens;
        private long last = System.nanoTime();

        TokenBucket(double rate, double burst) {
            this.rate = rate;
            this.burst = burst;
            this.tokens = burst;
        }

        synchronized boolean tryTake() {
            long now = System.nanoTime();
            tokens = Math.min(burst, tokens + (now - last) / 1e9 * rate);
            last = now;
            if (tokens >= 1) {
                tokens -= 1;
                return true;
            }
            return false;
        }
    }
}
