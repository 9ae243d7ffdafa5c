package dev.railyard.agent;

import dev.railyard.api.topology.AllocatedGpu;
import dev.railyard.api.topology.AllocatedRdmaResource;
import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaDistance;
import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.HcaPortStatus;
import dev.railyard.api.topology.NetdevAttachment;
import dev.railyard.api.topology.NodeHealth;
import dev.railyard.api.topology.NodeTopology;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.PodAllocation;
import dev.railyard.api.topology.RdmaResourceStatus;
import dev.railyard.topology.discovery.NvidiaSmiTopoParser;
import dev.railyard.topology.discovery.sysfs.SysfsFixtureMachines;
import dev.railyard.topology.pairing.RailPairing;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;

import static dev.railyard.agent.FakeKubelet.devices;
import static dev.railyard.agent.FakeKubelet.pod;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent end to end against fabric8's mock API server (CRUD mode): a generated sysfs tree for three fixture
 * machines, a fake nvidia-smi answering with the fixture's {@code topo -m} dump, an in-process fake kubelet.
 */
@EnableKubernetesMockClient(crud = true)
class NodeAgentTest {
    KubernetesMockServer server;
    KubernetesClient client;

    @TempDir
    Path dir;

    private SysfsFixtureMachines.Machine machine(String shape) {
        Path root = dir.resolve("host");
        return switch (shape) {
            case "case-01" -> SysfsFixtureMachines.case01(root);
            case "case-07" -> SysfsFixtureMachines.case07(root);
            case "case-03" -> SysfsFixtureMachines.case03(root);
            default -> throw new IllegalArgumentException(shape);
        };
    }

    private AgentRig rig(String shape, Path rdmaConfig) throws Exception {
        return new AgentRig(machine(shape), dir.resolve("smi"), rdmaConfig, new NodeTopologyPublisher(client));
    }

    private NodeTopology stored() {
        return client.resources(NodeTopology.class).withName("node-a").get();
    }

    /** What both sources can know: GPUs with NUMA node and NVLinks, HCA names, distances, the rail map. */
    private static List<String> comparable(NodeTopologySpec spec) {
        Function<Gpu, String> gpu = g -> "GPU" + g.index() + " numa=" + g.numaNode() + " nvlinks="
                + g.nvlinks().stream().sorted(Comparator.comparingInt(l -> l.peer()))
                .map(l -> l.peer() + "x" + l.links()).toList();
        List<String> out = new java.util.ArrayList<>();
        spec.gpus().stream().map(gpu).forEach(out::add);
        spec.hcas().stream().map(Hca::name).sorted().map(n -> "HCA " + n).forEach(out::add);
        spec.distances().stream().sorted(Comparator.comparingInt(GpuHcaDistance::gpu)
                        .thenComparing(GpuHcaDistance::hca))
                .map(d -> "GPU" + d.gpu() + "-" + d.hca() + " " + d.distance()).forEach(out::add);
        spec.pairs().stream().map(p -> "pair GPU" + p.gpu() + " " + p.hca() + " " + p.distance() + " rail " + p.rail())
                .forEach(out::add);
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"case-01", "case-07", "case-03"})
    void publishedSpecEqualsTheNvidiaSmiDumpAndAllocationsMatchTheKubelet(String shape) throws Exception {
        try (AgentRig rig = rig(shape, null)) {
            String firstHca = rig.hcaNames.getFirst();
            rig.kubelet.pods(
                    pod("team-a", "trainer-0", devices("nvidia.com/gpu", FakeNvidiaSmi.uuid(1)),
                            devices("nvidia.com/" + firstHca, "0")),
                    pod("kube-system", "logger"),
                    pod("team-b", "infer-0", devices("nvidia.com/gpu", FakeNvidiaSmi.uuid(0) + "::2")));

            RefreshOutcome outcome = rig.agent.refreshOnce();
            assertThat(outcome.decision()).isEqualTo(PublishGate.Decision.FIRST);
            assertThat(outcome.published()).isTrue();
            assertThat(outcome.healthy()).isTrue();

            NodeTopology stored = stored();
            // The API server holds exactly what the agent built (JSON round trip is lossless).
            assertThat(stored.getSpec()).isEqualTo(outcome.desired().spec());
            assertThat(stored.getStatus()).isEqualTo(outcome.desired().status());
            assertThat(stored.getMetadata().getLabels()).containsEntry("app.kubernetes.io/managed-by", "railyard-agent");

            // Spec: same as reading the fixture's nvidia-smi topo -m with the nvidia-smi parser and pairing it.
            String fixture = rig.machine.fixture();
            NodeTopologySpec fromDump = new RailPairing().pair(
                    new NvidiaSmiTopoParser().parseText(fixture, AgentRig.fixtureText(fixture)));
            assertThat(comparable(stored.getSpec())).containsExactlyElementsOf(comparable(fromDump));
            // ... plus what only sysfs and nvidia-smi -q -x give: PCI bus ids and UUIDs (NVML order = bus order).
            for (Gpu g : stored.getSpec().gpus()) {
                assertThat(g.pciBusId()).isEqualTo(rig.gpuBusIds.get(g.index()));
                assertThat(g.uuid()).isEqualTo(FakeNvidiaSmi.uuid(g.index()));
            }

            // Allocations: as the fake kubelet reported them, GPUs resolved to indices through the UUIDs, the RDMA
            // resource (mapped by name: no plugin config given) to its HCA; the pod without devices is left out.
            assertThat(stored.getStatus().allocations()).containsExactly(
                    new PodAllocation("team-a", "trainer-0",
                            List.of(new AllocatedGpu(FakeNvidiaSmi.uuid(1), FakeNvidiaSmi.uuid(1), 1)),
                            List.of(new AllocatedRdmaResource("nvidia.com/" + firstHca, List.of("0"),
                                    List.of(firstHca)))),
                    new PodAllocation("team-b", "infer-0",
                            List.of(new AllocatedGpu(FakeNvidiaSmi.uuid(0) + "::2", FakeNvidiaSmi.uuid(0), 0)),
                            List.of()));
            assertThat(stored.getStatus().allocatedGpus()).containsExactly(0, 1);
            assertThat(stored.getStatus().health()).isEqualTo(NodeHealth.HEALTHY);
            assertThat(stored.getStatus().rdmaResources()).hasSize(rig.hcaNames.size())
                    .contains(new RdmaResourceStatus("nvidia.com/" + firstHca, List.of(firstHca),
                            RdmaResourceBinding.BY_RESOURCE_NAME, 63, 1));
            HcaPortStatus firstPort = stored.getStatus().ports().getFirst();
            // SysfsTreeBuilder writes two populated GID entries (link-local v1/v2) per port; one pod holds the HCA.
            assertThat(firstPort).isEqualTo(new HcaPortStatus(firstHca, 1, firstPort.state(), firstPort.linkLayer(),
                    firstPort.rateGbps(), 2, 1, 63));
            assertThat(stored.getStatus().conditions()).extracting(Condition::getType, Condition::getStatus,
                    Condition::getReason).containsExactly(
                    org.assertj.core.groups.Tuple.tuple("Ready", "True", "Observed"),
                    org.assertj.core.groups.Tuple.tuple("Stale", "False", "Observed"),
                    // issue 17: the status says whether sysfs told GPU-HCA locality apart (PCIe switches here)
                    org.assertj.core.groups.Tuple.tuple("LocalityKnown", "True", "PairedByPcie"));
            assertThat(stored.getStatus().observedTime()).isEqualTo("2026-11-30T07:00:00Z");
        }
    }

    @Test
    void firstWriteIsAServerSideApplyByTheRailyardAgentFieldManager() throws Exception {
        try (AgentRig rig = rig("case-07", null)) {
            rig.agent.refreshOnce();
            io.fabric8.mockwebserver.http.RecordedRequest first = null;
            for (int i = server.getRequestCount(); i > 0 && first == null; i--) {
                var r = server.takeRequest(1, java.util.concurrent.TimeUnit.SECONDS);
                if (r != null && "PATCH".equals(r.getMethod())) {
                    first = r;
                }
            }
            assertThat(first).isNotNull();
            assertThat(first.getPath()).isEqualTo("/apis/railyard.dev/v1alpha1/nodetopologies/node-a"
                    + "?fieldManager=railyard-agent&force=true");
            assertThat(first.getHeader("Content-Type")).startsWith("application/apply-patch+yaml");
            // What goes into the apply body: no nulls (an absent field, not a null, is what SSA expects) and none of
            // the records' isX() helpers, which are not in the CRD schema.
            String spec = NodeTopologyPublisher.json(stored().getSpec());
            assertThat(spec).startsWith("{\"source\":\"SYSFS\"").doesNotContain(":null")
                    .doesNotContain("\"up\":").doesNotContain("\"software\":");
        }
    }

    @Test
    void pluginConfigMapsEachResourceToTheHcaOfItsIfName() throws Exception {
        try (AgentRig rig = rig("case-01", RdmaSharedDevicePluginConfigTest.resource(
                "per-rail-rdma-shared-config.json"))) {
            rig.kubelet.pods(pod("team-a", "trainer-0", devices("nvidia.com/mlx5_3", "5")));
            rig.agent.refreshOnce();
            var status = stored().getStatus();
            assertThat(status.rdmaResources()).hasSize(8).contains(new RdmaResourceStatus("nvidia.com/mlx5_3",
                    List.of("mlx5_3"), RdmaResourceBinding.BY_SELECTORS, 63, 1));
            // lan3 is mlx5_3's netdev in the case-01 tree: the macvlan master for that rail.
            assertThat(status.netdevs()).contains(new NetdevAttachment("lan3", "mlx5_3", 1));
            assertThat(status.ports()).filteredOn(p -> p.hca().equals("mlx5_3")).singleElement()
                    .extracting(HcaPortStatus::rdmaPods).isEqualTo(1);
        }
    }

    @Test
    void writesOnlyWhenChangedAtMostOncePerIntervalButPortDownAtOnce() throws Exception {
        try (AgentRig rig = rig("case-01", null)) {
            rig.agent.refreshOnce();
            assertThat(rig.writes).hasValue(1);

            rig.clock.advance(Duration.ofSeconds(5));
            assertThat(rig.agent.refreshOnce().decision()).isEqualTo(PublishGate.Decision.UNCHANGED);
            assertThat(rig.writes).hasValue(1);

            // A pod starts: a change, but only 10 s after the last write (interval 30 s).
            rig.kubelet.pods(pod("team-a", "trainer-0", devices("nvidia.com/gpu", FakeNvidiaSmi.uuid(4))));
            rig.clock.advance(Duration.ofSeconds(5));
            assertThat(rig.agent.refreshOnce().decision()).isEqualTo(PublishGate.Decision.HOLD);
            assertThat(stored().getStatus().allocations()).isEmpty();

            rig.clock.advance(Duration.ofSeconds(20));
            assertThat(rig.agent.refreshOnce().decision()).isEqualTo(PublishGate.Decision.CHANGE);
            assertThat(stored().getStatus().allocatedGpus()).containsExactly(4);
            assertThat(rig.writes).hasValue(2);

            // mlx5_3's only port goes down 1 s later: written at once, node DEGRADED, and the pairing (same code as
            // 'railyard topology') no longer uses mlx5_3 as a rail.
            rig.machine.port("mlx5_3", 1, "1: DOWN", "Ethernet", "400 Gb/sec (4X NDR)", "lan3");
            rig.clock.advance(Duration.ofSeconds(1));
            assertThat(rig.agent.refreshOnce().decision()).isEqualTo(PublishGate.Decision.HEALTH);
            NodeTopology stored = stored();
            assertThat(stored.getStatus().health()).isEqualTo(NodeHealth.DEGRADED);
            assertThat(stored.getStatus().ports()).filteredOn(p -> p.hca().equals("mlx5_3")).singleElement()
                    .satisfies(p -> assertThat(p.isUp()).isFalse());
            assertThat(stored.getSpec().pairs()).extracting(GpuHcaPair::hca).doesNotContain("mlx5_3");
            assertThat(stored.getSpec().excluded()).anySatisfy(e -> assertThat(e.hca()).isEqualTo("mlx5_3"));
            assertThat(rig.writes).hasValue(3);
        }
    }

    /** A second agent process for node-a on its own copy of the machine, as after a restart of the DaemonSet pod. */
    private AgentRig restarted(String name) throws Exception {
        return new AgentRig(SysfsFixtureMachines.case01(dir.resolve(name)), dir.resolve(name + "-smi"), null,
                new NodeTopologyPublisher(client));
    }

    @Test
    void restartedAgentFindingTheNodeUnchangedWritesNothing() throws Exception {
        try (AgentRig first = rig("case-01", null)) {
            first.kubelet.pods(pod("team-a", "trainer-0", devices("nvidia.com/gpu", FakeNvidiaSmi.uuid(3))));
            assertThat(first.agent.refreshOnce().decision()).isEqualTo(PublishGate.Decision.FIRST);
        }
        String version = stored().getMetadata().getResourceVersion();

        try (AgentRig second = restarted("host-restarted")) {
            second.kubelet.pods(pod("team-a", "trainer-0", devices("nvidia.com/gpu", FakeNvidiaSmi.uuid(3))));
            second.clock.advance(Duration.ofMinutes(1));
            // Same node, same pod, a minute later: the read-back object is what it would write (only observedTime and
            // the conditions' transition times would differ), so nothing is written.
            RefreshOutcome outcome = second.agent.refreshOnce();
            assertThat(outcome.decision()).isEqualTo(PublishGate.Decision.UNCHANGED);
            assertThat(outcome.healthy()).isTrue();
            assertThat(second.writes).hasValue(0);
            assertThat(stored().getMetadata().getResourceVersion()).isEqualTo(version);

            // The pod ends: a change, written at once (07:01:05 is more than the 30 s interval after the stored
            // observedTime 07:00:00). Ready stayed True across the restart, so its transition time is the first run's.
            second.kubelet.pods();
            second.clock.advance(Duration.ofSeconds(5));
            assertThat(second.agent.refreshOnce().decision()).isEqualTo(PublishGate.Decision.CHANGE);
            NodeTopology after = stored();
            assertThat(after.getMetadata().getResourceVersion()).isNotEqualTo(version);
            assertThat(after.getStatus().allocatedGpus()).isEmpty();
            assertThat(after.getStatus().observedTime()).isEqualTo("2026-11-30T07:01:05Z");
            assertThat(after.getStatus().conditions()).extracting(Condition::getType,
                    Condition::getLastTransitionTime).containsExactly(
                    org.assertj.core.groups.Tuple.tuple("Ready", "2026-11-30T07:00:00Z"),
                    org.assertj.core.groups.Tuple.tuple("Stale", "2026-11-30T07:00:00Z"),
                    org.assertj.core.groups.Tuple.tuple("LocalityKnown", "2026-11-30T07:00:00Z"));
        }
    }

    @Test
    void restartedAgentRewritesAnUnchangedObjectOnceTheResyncPeriodHasPassed() throws Exception {
        try (AgentRig first = rig("case-01", null)) {
            first.agent.refreshOnce();
        }
        try (AgentRig second = restarted("host-restarted")) {
            // observedTime 07:00:00 + resync 5 min: at 07:05:00 the unchanged object is written as a heartbeat.
            second.clock.advance(Duration.ofMinutes(5));
            assertThat(second.agent.refreshOnce().decision()).isEqualTo(PublishGate.Decision.RESYNC);
            assertThat(stored().getStatus().observedTime()).isEqualTo("2026-11-30T07:05:00Z");
        }
    }

    @Test
    void kubeletGoingAwayMarksTheStatusStaleAndKeepsTheLastAllocations() throws Exception {
        try (AgentRig rig = rig("case-07", null)) {
            rig.kubelet.pods(pod("team-a", "trainer-0", devices("nvidia.com/gpu", FakeNvidiaSmi.uuid(2))));
            rig.agent.refreshOnce();
            assertThat(stored().getStatus().allocatedGpus()).containsExactly(2);

            rig.kubelet.close();
            rig.clock.advance(Duration.ofSeconds(5));
            RefreshOutcome outcome = rig.agent.refreshOnce();
            // Stale is a health change: written at once, not held for the interval.
            assertThat(outcome.decision()).isEqualTo(PublishGate.Decision.HEALTH);
            assertThat(outcome.problem()).contains("UNAVAILABLE");

            var status = stored().getStatus();
            assertThat(status.conditions()).filteredOn(c -> c.getType().equals("Stale")).singleElement()
                    .satisfies(c -> {
                        assertThat(c.getStatus()).isEqualTo("True");
                        assertThat(c.getReason()).isEqualTo("PodResourcesUnavailable");
                        assertThat(c.getMessage()).contains("List: UNAVAILABLE");
                        assertThat(c.getLastTransitionTime()).isEqualTo("2026-11-30T07:00:05Z");
                    });
            assertThat(status.conditions()).filteredOn(c -> c.getType().equals("Ready"))
                    .extracting(Condition::getStatus).containsExactly("False");
            // The last known allocations stay, and observedTime stays at the last complete refresh.
            assertThat(status.allocatedGpus()).containsExactly(2);
            assertThat(status.observedTime()).isEqualTo("2026-11-30T07:00:00Z");

            // Backoff: the next refresh comes after ~1 s, then ~2 s, ~4 s (25 % jitter), not the 5 s period.
            assertThat(rig.agent.nextDelay()).isBetween(Duration.ofMillis(750), Duration.ofMillis(1250));
            rig.agent.refreshOnce();
            rig.agent.refreshOnce();
            assertThat(rig.agent.nextDelay()).isBetween(Duration.ofMillis(3000), Duration.ofMillis(5000));
            assertThat(rig.agent.health().stale()).isTrue();
            assertThat(rig.agent.health().live()).isTrue();
        }
    }

    @Test
    void unreadableSysfsMarksStaleWithoutTouchingTheSpecAndRecovers() throws Exception {
        try (AgentRig rig = rig("case-03", null)) {
            rig.agent.refreshOnce();
            NodeTopologySpec before = stored().getSpec();

            Path moved = dir.resolve("host-away");
            Files.move(rig.machine.root(), moved);
            rig.clock.advance(Duration.ofSeconds(5));
            RefreshOutcome outcome = rig.agent.refreshOnce();
            assertThat(outcome.problem()).contains(rig.machine.root().toString());
            NodeTopology stored = stored();
            assertThat(stored.getSpec()).isEqualTo(before);
            assertThat(stored.getStatus().health()).isEqualTo(NodeHealth.UNKNOWN);
            assertThat(stored.getStatus().conditions()).filteredOn(c -> c.getType().equals("Stale"))
                    .extracting(Condition::getStatus, Condition::getReason)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("True", "SysfsUnreadable"));

            Files.move(moved, rig.machine.root());
            rig.clock.advance(Duration.ofSeconds(1));
            assertThat(rig.agent.refreshOnce().healthy()).isTrue();
            assertThat(stored().getStatus().conditions()).filteredOn(c -> c.getType().equals("Stale"))
                    .extracting(Condition::getStatus).containsExactly("False");
            assertThat(rig.agent.nextDelay()).isEqualTo(Duration.ofSeconds(5));
        }
    }

    @Test
    void apiServerUnreachableKeepsTheAgentRunningAndRetriesTheWrite() throws Exception {
        io.fabric8.kubernetes.client.Config unreachable = new io.fabric8.kubernetes.client.ConfigBuilder()
                .withMasterUrl("http://127.0.0.1:9").withRequestRetryBackoffLimit(0)
                .withConnectionTimeout(1000).withRequestTimeout(1000).build();
        try (KubernetesClient down = new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(unreachable)
                .build();
             AgentRig rig = new AgentRig(machine("case-01"), dir.resolve("smi"), null, new NodeTopologyPublisher(down))) {
            RefreshOutcome first = rig.agent.refreshOnce();
            assertThat(first.published()).isFalse();
            assertThat(first.problem()).startsWith("cannot write NodeTopology node-a: ")
                    // names why, not only fabric8's "Operation: [patch] ... failed." (JDK HttpClient, port 9 closed)
                    .contains("ConnectException");
            assertThat(rig.agent.health().stale()).isTrue();
            // Nothing was recorded as written, so the next refresh offers the first write again.
            rig.clock.advance(Duration.ofSeconds(1));
            assertThat(rig.agent.refreshOnce().decision()).isEqualTo(PublishGate.Decision.FIRST);
            assertThat(rig.writes).hasValue(0);
        }
    }
}
