package dev.railyard.agent;

import dev.railyard.api.topology.Gpu;
import dev.railyard.agent.podresources.v1.AllocatableResourcesResponse;
import dev.railyard.agent.podresources.v1.ListPodResourcesResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One refresh of the node: sysfs through {@link HostDiscovery}, GPU UUIDs through {@code nvidia-smi} (run again only
 * when the set of GPU bus ids changes), and the kubelet's {@code List}. {@code GetAllocatableResources} is called on
 * the first refresh, after any failed kubelet call (the kubelet or a device plugin may have restarted) and once per
 * {@code allocatableRefresh}; so a steady refresh costs one kubelet call. Failures never escape: they are returned
 * in the {@link NodeObservation}. Not thread-safe: one refresh at a time.
 */
public final class NodeObserver {
    private static final Logger LOG = LoggerFactory.getLogger(NodeObserver.class);

    private final HostDiscovery discovery;
    private final NvidiaSmiProbe nvidiaSmi;
    private final PodResourcesSource podResources;
    private final Clock clock;
    private final Duration allocatableRefresh;

    private List<String> probedGpuBusIds;
    private Optional<NvidiaSmiInventory> inventory = Optional.empty();
    private AllocatableResourcesResponse allocatable;
    private Instant allocatableAt;
    private boolean lastKubeletFailed = true;

    /**
     * @param discovery          host sysfs reader
     * @param nvidiaSmi          GPU inventory probe (answers empty when the binary is absent)
     * @param podResources       kubelet client
     * @param clock              time source
     * @param allocatableRefresh how long a {@code GetAllocatableResources} answer is reused
     */
    public NodeObserver(HostDiscovery discovery, NvidiaSmiProbe nvidiaSmi, PodResourcesSource podResources,
                        Clock clock, Duration allocatableRefresh) {
        this.discovery = Objects.requireNonNull(discovery);
        this.nvidiaSmi = Objects.requireNonNull(nvidiaSmi);
        this.podResources = Objects.requireNonNull(podResources);
        this.clock = Objects.requireNonNull(clock);
        this.allocatableRefresh = Objects.requireNonNull(allocatableRefresh);
    }

    /** @return what this refresh read; never throws for a failed source */
    public NodeObservation observe() {
        Instant at = clock.instant();
        HostSnapshot host = null;
        String sysfsProblem = null;
        try {
            host = enrich(discovery.discover());
        } catch (RuntimeException e) {
            sysfsProblem = oneLine(e);
            LOG.warn("sysfs unreadable: {}", sysfsProblem);
        }
        ListPodResourcesResponse pods = null;
        String kubeletProblem = null;
        try {
            if (allocatable == null || lastKubeletFailed
                    || !at.isBefore(allocatableAt.plus(allocatableRefresh))) {
                allocatable = podResources.allocatable();
                allocatableAt = at;
            }
            pods = podResources.list();
            lastKubeletFailed = false;
        } catch (RuntimeException e) {
            lastKubeletFailed = true;
            kubeletProblem = oneLine(e);
            LOG.warn("kubelet PodResources unavailable: {}", kubeletProblem);
        }
        return new NodeObservation(at, host, sysfsProblem, pods, pods == null ? null : allocatable, kubeletProblem);
    }

    private HostSnapshot enrich(HostSnapshot host) {
        List<String> busIds = host.spec().gpus().stream().map(Gpu::pciBusId).toList();
        if (!busIds.equals(probedGpuBusIds)) {
            inventory = busIds.isEmpty() ? Optional.empty() : nvidiaSmi.query();
            probedGpuBusIds = busIds;
        }
        return inventory.map(inv -> new HostSnapshot(GpuInventoryMerge.apply(host.spec(), inv), host.hcaFacts(),
                host.gidEntries())).orElse(host);
    }

    private static String oneLine(RuntimeException e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return message.replaceAll("\\s+", " ").strip();
    }
}
