package dev.railyard.agent;

import dev.railyard.agent.podresources.PodResourcesListerRpc;
import dev.railyard.agent.podresources.v1.AllocatableResourcesRequest;
import dev.railyard.agent.podresources.v1.AllocatableResourcesResponse;
import dev.railyard.agent.podresources.v1.ListPodResourcesRequest;
import dev.railyard.agent.podresources.v1.ListPodResourcesResponse;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.RequestNotPermitted;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.grpc.ConnectivityState;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Client of the kubelet's PodResources v1 API over its unix socket (gRPC, grpc-netty-shaded's epoll domain-socket
 * transport, which the {@code unix://} target selects).
 *
 * <p>Every call first takes a permit from a Resilience4j {@link RateLimiter} of {@code permits} calls per
 * {@code period} (fixed windows). With the defaults of {@link AgentSettings#defaults} (5 per 100 ms) any interval of
 * length {@code t} seconds sees at most {@code 50 t + 10} calls, inside the kubelet's token bucket of 100 per second
 * with burst 10 ({@code 100 t + 10}; kubernetes {@code pkg/kubelet/apis/podresources/constants.go}), leaving the
 * rest to other clients on the node. A call refused with {@code UNAVAILABLE}, {@code RESOURCE_EXHAUSTED} (the
 * kubelet's "rejected by rate limit") or {@code DEADLINE_EXCEEDED} is retried by a Resilience4j {@link Retry}: 3
 * attempts, 100 ms then 200 ms apart; each attempt takes its own permit. Thread-safe.
 */
public final class PodResourcesClient implements PodResourcesSource, AutoCloseable {
    private static final Set<Status.Code> TRANSIENT =
            Set.of(Status.Code.UNAVAILABLE, Status.Code.RESOURCE_EXHAUSTED, Status.Code.DEADLINE_EXCEEDED);

    private final ManagedChannel channel;
    private final String target;
    private final PodResourcesListerRpc.BlockingClient stub;
    private final RateLimiter rateLimiter;
    private final Retry retry;
    private final MeterRegistry registry;

    /**
     * @param channel  channel to the kubelet (closed by {@link #close()})
     * @param target   endpoint, for messages
     * @param permits  calls per {@code period}
     * @param period   rate-limit window
     * @param deadline deadline per call; also the longest wait for a permit
     * @param registry where call counts go ({@code railyard.agent.podresources.calls} by rpc and outcome)
     */
    public PodResourcesClient(ManagedChannel channel, String target, int permits, Duration period, Duration deadline,
                              MeterRegistry registry) {
        this.channel = channel;
        this.target = target;
        this.registry = registry;
        this.stub = PodResourcesListerRpc.blockingClient(channel, deadline.toMillis(), TimeUnit.MILLISECONDS);
        this.rateLimiter = RateLimiter.of("kubelet-pod-resources", RateLimiterConfig.custom()
                .limitForPeriod(permits)
                .limitRefreshPeriod(period)
                .timeoutDuration(deadline)
                .build());
        this.retry = Retry.of("kubelet-pod-resources", RetryConfig.custom()
                .maxAttempts(3)
                .intervalFunction(IntervalFunction.ofExponentialBackoff(Duration.ofMillis(100), 2.0))
                .retryOnException(e -> e instanceof StatusRuntimeException s && TRANSIENT.contains(s.getStatus().getCode()))
                .build());
    }

    /**
     * Opens a channel to the endpoint in {@code settings}; nothing is connected until the first call.
     *
     * @param settings agent settings (endpoint, rate limit, deadline)
     * @param registry metrics registry
     */
    public static PodResourcesClient connect(AgentSettings settings, MeterRegistry registry) {
        String target = normalizeTarget(settings.podResourcesTarget());
        ManagedChannel channel = Grpc.newChannelBuilder(target, InsecureChannelCredentials.create())
                .maxInboundMessageSize(16 * 1024 * 1024)
                .build();
        return new PodResourcesClient(channel, target, settings.podResourcesPermits(),
                settings.podResourcesPeriod(), settings.podResourcesDeadline(), registry);
    }

    /**
     * @param target {@code unix:///path}, {@code unix:/path} or a plain absolute path
     * @return the gRPC target string ({@code unix:///path} for paths)
     */
    static String normalizeTarget(String target) {
        return target.startsWith("/") ? "unix://" + target : target;
    }

    /** @return the Resilience4j rate limiter guarding the calls (for metrics and tests) */
    public RateLimiter rateLimiter() {
        return rateLimiter;
    }

    @Override
    public ListPodResourcesResponse list() {
        return call("List", () -> stub.list(ListPodResourcesRequest.getDefaultInstance()));
    }

    @Override
    public AllocatableResourcesResponse allocatable() {
        return call("GetAllocatableResources",
                () -> stub.getAllocatableResources(AllocatableResourcesRequest.getDefaultInstance()));
    }

    private <T> T call(String rpc, Supplier<T> call) {
        if (channel.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
            // The socket may be back (kubelet restarted): do not sit out the channel's reconnect backoff.
            channel.resetConnectBackoff();
        }
        Supplier<T> guarded = Retry.decorateSupplier(retry, RateLimiter.decorateSupplier(rateLimiter, call));
        try {
            T result = guarded.get();
            count(rpc, "OK");
            return result;
        } catch (StatusRuntimeException e) {
            count(rpc, e.getStatus().getCode().name());
            throw new PodResourcesUnavailableException("kubelet PodResources " + target + " " + rpc + ": "
                    + e.getStatus().getCode() + oneLine(e.getStatus().getDescription()), e);
        } catch (RequestNotPermitted e) {
            count(rpc, "RATE_LIMITED");
            throw new PodResourcesUnavailableException("kubelet PodResources " + target + " " + rpc
                    + ": no call permit within the deadline (client-side rate limit)", e);
        }
    }

    private void count(String rpc, String outcome) {
        Counter.builder("railyard.agent.podresources.calls")
                .description("kubelet PodResources calls by rpc and gRPC outcome")
                .tag("rpc", rpc).tag("outcome", outcome)
                .register(registry).increment();
    }

    private static String oneLine(String description) {
        if (description == null || description.isBlank()) {
            return "";
        }
        return " (" + description.replaceAll("\\s+", " ").strip() + ")";
    }

    /** Shuts the channel down, waiting up to one second. */
    @Override
    public void close() {
        channel.shutdownNow();
        try {
            channel.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
