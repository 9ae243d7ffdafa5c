package dev.railyard.agent;

import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.Hca;
import dev.railyard.agent.podresources.v1.ContainerDevices;
import dev.railyard.topology.discovery.sysfs.SysfsFixtureMachines;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A node agent wired to a generated sysfs tree, a fake nvidia-smi answering with the fixture's {@code topo -m} dump,
 * an in-process fake kubelet and a sink (normally the publisher on fabric8's mock API server), with a hand-moved
 * clock. The kubelet advertises {@code nvidia.com/gpu} with the fake's UUIDs and one {@code nvidia.com/<hca>} pool of
 * 63 slots per HCA.
 */
final class AgentRig implements AutoCloseable {
    final SysfsFixtureMachines.Machine machine;
    final FakeKubelet kubelet;
    final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T07:00:00Z"));
    final AgentSettings settings;
    final NodeAgent agent;
    final PodResourcesClient podResources;
    final AtomicInteger writes = new AtomicInteger();
    final List<String> gpuBusIds;
    final List<String> hcaNames;

    AgentRig(SysfsFixtureMachines.Machine machine, Path smiDir, Path rdmaConfig, NodeTopologySink sink)
            throws IOException {
        this.machine = machine;
        HostSnapshot plain = new SysfsHostDiscovery(machine.root()).discover();
        gpuBusIds = plain.spec().gpus().stream().map(Gpu::pciBusId).toList();
        hcaNames = plain.spec().hcas().stream().map(Hca::name).toList();
        Files.createDirectories(smiDir);
        Path smi = FakeNvidiaSmi.write(smiDir, gpuBusIds, fixtureText(machine.fixture()));

        List<ContainerDevices> allocatable = new ArrayList<>();
        allocatable.add(FakeKubelet.devices("nvidia.com/gpu",
                java.util.stream.IntStream.range(0, gpuBusIds.size()).mapToObj(FakeNvidiaSmi::uuid)
                        .toArray(String[]::new)));
        hcaNames.forEach(h -> allocatable.add(FakeKubelet.devices("nvidia.com/" + h, FakeKubelet.slots(63))));
        kubelet = new FakeKubelet().allocatable(allocatable.toArray(ContainerDevices[]::new)).startInProcess();

        settings = AgentSettings.defaults("node-a", machine.root())
                .withSources(rdmaConfig, smi.toString())
                .withPeriods(Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofMinutes(5),
                        Duration.ofMinutes(2));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        podResources = new PodResourcesClient(kubelet.inProcessChannel(), "in-process", 5, Duration.ofMillis(100),
                Duration.ofSeconds(2), registry);
        RdmaSharedDevicePluginConfig config = rdmaConfig == null ? null : RdmaSharedDevicePluginConfig.read(rdmaConfig);
        NodeObserver observer = new NodeObserver(new SysfsHostDiscovery(machine.root()),
                new NvidiaSmiProbe(smi.toString(), Duration.ofSeconds(10)), podResources, clock,
                settings.resyncPeriod());
        NodeTopologySink counting = new NodeTopologySink() {
            @Override
            public void publish(DesiredNodeTopology desired) {
                sink.publish(desired);
                writes.incrementAndGet();
            }

            @Override
            public java.util.Optional<DesiredNodeTopology> stored(String nodeName) {
                return sink.stored(nodeName);
            }
        };
        agent = new NodeAgent(settings, observer, new NodeTopologyAssembler(settings, config), counting, registry,
                clock);
    }

    /** The fixture's artifact as copied into test resources (artifact only). */
    static String fixtureText(String fixture) {
        try (InputStream in = Objects.requireNonNull(AgentRig.class.getResourceAsStream("/fixtures/" + fixture),
                fixture)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        podResources.close();
        kubelet.close();
        agent.close();
    }
}
