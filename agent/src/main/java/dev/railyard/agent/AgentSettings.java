package dev.railyard.agent;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Settings of one node agent ({@code railyard agent}); every duration is wall-clock time.
 *
 * @param nodeName              the Kubernetes node this agent runs on; also the name of its {@code NodeTopology}
 * @param sysRoot               the host's sysfs, mounted read-only ({@code /host/sys}), or a directory holding
 *                              {@code sys/}
 * @param podResourcesTarget    kubelet PodResources endpoint: {@code unix:///var/lib/kubelet/pod-resources/kubelet.sock}
 *                              or a plain socket path
 * @param refreshPeriod         how often the node is observed (sysfs, kubelet); a port going down is published at
 *                              the next refresh
 * @param publishInterval       at most one publish of non-health changes per this interval
 * @param resyncPeriod          republish an unchanged picture after this long, so that {@code observedTime} serves
 *                              as a heartbeat
 * @param maxBackoff            longest wait between retries after a failed refresh or publish
 * @param gpuResourceNames      extended resources whose device ids are GPU UUIDs ({@code nvidia.com/gpu}); at
 *                              least one, none blank
 * @param rdmaSharedConfig      the rdma-shared-dev-plugin's {@code config.json} (its ConfigMap mounted into the agent),
 *                              or null to map RDMA resources by name
 * @param nvidiaSmi             the {@code nvidia-smi} binary (a name looked up on PATH, or a path), or null to skip
 *                              the GPU UUID enrichment
 * @param podLimitPerPort       RDMA pods one HCA port serves at most (63: 128 RoCE GID entries, two per pod address)
 * @param podResourcesPermits   kubelet calls allowed per {@code podResourcesPeriod}
 * @param podResourcesPeriod    length of one rate-limit window
 * @param podResourcesDeadline  deadline of one kubelet call
 */
public record AgentSettings(String nodeName, Path sysRoot, String podResourcesTarget, Duration refreshPeriod,
                            Duration publishInterval, Duration resyncPeriod, Duration maxBackoff,
                            List<String> gpuResourceNames, Path rdmaSharedConfig, String nvidiaSmi,
                            int podLimitPerPort, int podResourcesPermits, Duration podResourcesPeriod,
                            Duration podResourcesDeadline) {
    /** Where the kubelet serves the PodResources API. */
    public static final String DEFAULT_POD_RESOURCES_TARGET = "unix:///var/lib/kubelet/pod-resources/kubelet.sock";
    /** RDMA pods per RoCE port: 128 GID entries, two per pod address with RoCE v1 and v2 (network-operator #580). */
    public static final int DEFAULT_POD_LIMIT_PER_PORT = 63;

    public AgentSettings {
        Objects.requireNonNull(nodeName, "nodeName");
        Objects.requireNonNull(sysRoot, "sysRoot");
        Objects.requireNonNull(podResourcesTarget, "podResourcesTarget");
        requirePositive(refreshPeriod, "refresh period");
        requirePositive(publishInterval, "publish interval");
        requirePositive(resyncPeriod, "resync period");
        requirePositive(maxBackoff, "max backoff");
        requirePositive(podResourcesPeriod, "pod-resources rate-limit period");
        requirePositive(podResourcesDeadline, "pod-resources deadline");
        if (nodeName.isBlank()) {
            throw new IllegalArgumentException("node name is empty");
        }
        if (podLimitPerPort < 1) {
            throw new IllegalArgumentException("pod limit per port must be at least 1, got " + podLimitPerPort);
        }
        if (podResourcesPermits < 1) {
            throw new IllegalArgumentException("pod-resources permits must be at least 1, got " + podResourcesPermits);
        }
        gpuResourceNames = gpuResourceNames == null ? List.of("nvidia.com/gpu") : List.copyOf(gpuResourceNames);
        if (gpuResourceNames.isEmpty() || gpuResourceNames.stream().anyMatch(String::isBlank)) {
            throw new IllegalArgumentException("GPU resource names must not be empty, got " + gpuResourceNames);
        }
    }

    /**
     * Defaults for a node: kubelet socket at its standard path, refresh 5 s, publish interval 30 s, resync 5 min,
     * backoff up to 2 min, {@code nvidia.com/gpu}, {@code nvidia-smi} on PATH, 63 pods per port, and 5 kubelet calls
     * per 100 ms. That is half the kubelet's 100 QPS and never more than 10 calls at once (its burst): the kubelet's
     * token bucket is shared by every client on the node (multus, NFD's topology updater), so the agent takes half.
     *
     * @param nodeName node name
     * @param sysRoot  host sysfs mount
     */
    public static AgentSettings defaults(String nodeName, Path sysRoot) {
        return new AgentSettings(nodeName, sysRoot, DEFAULT_POD_RESOURCES_TARGET, Duration.ofSeconds(5),
                Duration.ofSeconds(30), Duration.ofMinutes(5), Duration.ofMinutes(2), List.of("nvidia.com/gpu"),
                null, "nvidia-smi", DEFAULT_POD_LIMIT_PER_PORT, 5, Duration.ofMillis(100), Duration.ofSeconds(5));
    }

    /** @return a copy with another PodResources endpoint */
    public AgentSettings withPodResourcesTarget(String target) {
        return new AgentSettings(nodeName, sysRoot, target, refreshPeriod, publishInterval, resyncPeriod, maxBackoff,
                gpuResourceNames, rdmaSharedConfig, nvidiaSmi, podLimitPerPort, podResourcesPermits,
                podResourcesPeriod, podResourcesDeadline);
    }

    /** @return a copy with other refresh, publish and resync periods */
    public AgentSettings withPeriods(Duration refresh, Duration publish, Duration resync, Duration backoff) {
        return new AgentSettings(nodeName, sysRoot, podResourcesTarget, refresh, publish, resync, backoff,
                gpuResourceNames, rdmaSharedConfig, nvidiaSmi, podLimitPerPort, podResourcesPermits,
                podResourcesPeriod, podResourcesDeadline);
    }

    /** @return a copy with another rdma-shared-dev-plugin config file and nvidia-smi binary (either may be null) */
    public AgentSettings withSources(Path rdmaConfig, String nvidiaSmiBinary) {
        return new AgentSettings(nodeName, sysRoot, podResourcesTarget, refreshPeriod, publishInterval, resyncPeriod,
                maxBackoff, gpuResourceNames, rdmaConfig, nvidiaSmiBinary, podLimitPerPort, podResourcesPermits,
                podResourcesPeriod, podResourcesDeadline);
    }

    /** @return a copy with another kubelet call budget */
    public AgentSettings withPodResourcesLimit(int permits, Duration period, Duration deadline) {
        return new AgentSettings(nodeName, sysRoot, podResourcesTarget, refreshPeriod, publishInterval, resyncPeriod,
                maxBackoff, gpuResourceNames, rdmaSharedConfig, nvidiaSmi, podLimitPerPort, permits, period,
                deadline);
    }

    private static void requirePositive(Duration d, String what) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, got " + d);
        }
    }
}
