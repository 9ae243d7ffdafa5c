package dev.railyard.e2e;

import static dev.railyard.agent.FakeKubelet.devices;
import static dev.railyard.agent.FakeKubelet.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.railyard.api.topology.AllocatedGpu;
import dev.railyard.api.topology.AllocatedRdmaResource;
import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaDistance;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.HcaPortStatus;
import dev.railyard.api.topology.NodeHealth;
import dev.railyard.api.topology.NodeTopology;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.NodeTopologyStatus;
import dev.railyard.api.topology.PodAllocation;
import dev.railyard.api.topology.RdmaResourceStatus;
import dev.railyard.agent.FakeKubelet;
import dev.railyard.agent.FakeNvidiaSmi;
import dev.railyard.agent.SysfsHostDiscovery;
import dev.railyard.agent.podresources.v1.ContainerDevices;
import dev.railyard.topology.discovery.NvidiaSmiTopoParser;
import dev.railyard.topology.discovery.sysfs.SysfsFixtureMachines;
import dev.railyard.topology.pairing.RailPairing;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The node agent ({@code railyard agent}, a separate JVM from {@code scheduler/target/railyard.jar}) against a real
 * kube-apiserver (issue 7, acceptance "against a real kube-apiserver"): a sysfs tree generated for a fixture machine
 * ({@link SysfsFixtureMachines}), a fake kubelet serving PodResources v1 on a unix socket in this JVM
 * ({@link FakeKubelet}) and an {@code nvidia-smi} stand-in answering with the fixture's {@code topo -m} dump and
 * GPU UUIDs ({@link FakeNvidiaSmi}), from the topology and agent test jars. Only etcd and kube-apiserver run; every
 * assertion is on what the API server holds, or on the agent's own {@code /healthz} and {@code /metrics}.
 *
 * <p>Each test runs its own agent for its own node name, so the tests do not depend on each other's objects. The
 * agent reads the node every 500 ms and writes non-health changes at most once a second; heartbeat rewrites
 * ({@code --resync}) are pushed out to 10 minutes so that every write seen here has a cause.
 */
class RailyardAgentIT {

    @RegisterExtension
    static final ControlPlaneExtension CLUSTER = new ControlPlaneExtension(ControlPlane.Options.apiOnly(List.of()));

    /** Refresh 500 ms, write at most once per second, no heartbeat during a test, retries at most 2 s apart. */
    private static final List<String> TIMING = List.of("--refresh=500ms", "--interval=1s", "--resync=10m",
            "--max-backoff=2s");
    /** Bound of every wait for the agent to show a change: refresh + interval is 1.5 s; the rest is slack for 2 cores. */
    private static final Duration CHANGE_SHOWN = Duration.ofSeconds(30);
    /** rdma-shared-dev-plugin slots the fake kubelet advertises per HCA resource. */
    private static final int SLOTS = 63;

    /** Short, under /tmp: the unix socket path must stay under 108 bytes. */
    @TempDir
    Path dir;

    private final List<RailyardAgentProcess> agents = new ArrayList<>();
    private final List<FakeKubelet> kubelets = new ArrayList<>();

    @AfterEach
    void stop() {
        agents.forEach(RailyardAgentProcess::stop);
        kubelets.forEach(FakeKubelet::close);
    }

    /** One fake node: its sysfs tree, nvidia-smi stand-in and kubelet, and an agent (not yet started). */
    private record Node(String name, SysfsFixtureMachines.Machine machine, List<String> hcas,
                        ContainerDevices[] allocatable, FakeKubelet kubelet, Path socket, RailyardAgentProcess agent) {
    }

    private Node node(String name, String shape) throws IOException {
        Path root = dir.resolve(name);
        SysfsFixtureMachines.Machine machine = switch (shape) {
            case "case-01" -> SysfsFixtureMachines.case01(root);
            case "case-07" -> SysfsFixtureMachines.case07(root);
            case "case-03" -> SysfsFixtureMachines.case03(root);
            default -> throw new IllegalArgumentException(shape);
        };
        NodeTopologySpec plain = new SysfsHostDiscovery(machine.root()).discover().spec();
        List<String> busIds = plain.gpus().stream().map(Gpu::pciBusId).toList();
        List<String> hcas = plain.hcas().stream().map(Hca::name).toList();
        Path smiDir = Files.createDirectories(dir.resolve(name + "-smi"));
        Path smi = FakeNvidiaSmi.write(smiDir, busIds, fixtureText(machine.fixture()));

        // What the NVIDIA device plugin and a per-HCA rdma-shared-dev-plugin advertise: the GPUs by UUID (the
        // stand-in's, NVML order = bus order) and 63 slots "0".."62" of nvidia.com/<hca> per HCA.
        List<ContainerDevices> allocatable = new ArrayList<>();
        allocatable.add(devices("nvidia.com/gpu",
                IntStream.range(0, busIds.size()).mapToObj(FakeNvidiaSmi::uuid).toArray(String[]::new)));
        hcas.forEach(h -> allocatable.add(devices("nvidia.com/" + h, FakeKubelet.slots(SLOTS))));
        Path socket = dir.resolve(name + ".sock");
        ContainerDevices[] advertised = allocatable.toArray(ContainerDevices[]::new);
        FakeKubelet kubelet = new FakeKubelet().allocatable(advertised).startOnSocket(socket);
        kubelets.add(kubelet);
        RailyardAgentProcess agent = new RailyardAgentProcess(CLUSTER.controlPlane(), name, machine.root(), socket,
                smi, TIMING);
        agents.add(agent);
        return new Node(name, machine, hcas, advertised, kubelet, socket, agent);
    }

    private static String fixtureText(String fixture) throws IOException {
        return Files.readString(FixtureMachines.fixtures().resolve(fixture), StandardCharsets.UTF_8);
    }

    private static KubernetesClient client() {
        return CLUSTER.controlPlane().client();
    }

    private static NodeTopology stored(String node) {
        return client().resources(NodeTopology.class).withName(node).get();
    }

    private static String resourceVersion(String node) {
        GenericKubernetesResource r = client().genericKubernetesResources("railyard.dev/v1alpha1", "NodeTopology")
                .withName(node).get();
        return r == null ? null : r.getMetadata().getResourceVersion();
    }

    /** Waits until the object exists with a status whose Ready condition is True, and returns it. */
    private static NodeTopology awaitReady(String node) {
        return await().atMost(CHANGE_SHOWN).pollInterval(Duration.ofMillis(200)).until(() -> stored(node),
                t -> t != null && t.getStatus() != null && condition(t.getStatus(), "Ready")
                        .map(c -> "True".equals(c.getStatus())).orElse(false));
    }

    private static Optional<Condition> condition(NodeTopologyStatus status, String type) {
        return status.conditions().stream().filter(c -> type.equals(c.getType())).findFirst();
    }

    /** What a {@code topo -m} dump and sysfs can both say: GPUs with NUMA node and NVLinks, HCAs, distances, rails. */
    private static List<String> comparable(NodeTopologySpec spec) {
        List<String> out = new ArrayList<>();
        spec.gpus().forEach(g -> out.add("GPU" + g.index() + " numa=" + g.numaNode() + " nvlinks="
                + g.nvlinks().stream().sorted(Comparator.comparingInt(l -> l.peer()))
                .map(l -> l.peer() + "x" + l.links()).toList()));
        spec.hcas().stream().map(Hca::name).sorted().forEach(n -> out.add("HCA " + n));
        spec.distances().stream().sorted(Comparator.comparingInt(GpuHcaDistance::gpu)
                        .thenComparing(GpuHcaDistance::hca))
                .forEach(d -> out.add("GPU" + d.gpu() + "-" + d.hca() + " " + d.distance()));
        spec.pairs().forEach(p -> out.add("pair GPU" + p.gpu() + " " + p.hca() + " " + p.distance() + " rail "
                + p.rail()));
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"case-01", "case-07", "case-03"})
    void nodeTopologyAppearsWithTheSpecOfTheFixtureDump(String shape) throws Exception {
        Node n = node("spec-" + shape, shape);
        n.agent().start();

        NodeTopology stored = awaitReady(n.name());

        // The spec the API server holds equals the fixture's nvidia-smi topo -m dump parsed by the nvidia-smi parser
        // and paired by RailPairing (the same code as `railyard topology pair`): every GPU-HCA class, every pair and
        // rail. (Hand-checked for case-01, fixture legend: GPU i PIX to NIC i = mlx5_i, so pair GPU i mlx5_i rail i.)
        NodeTopologySpec fromDump = new RailPairing().pair(
                new NvidiaSmiTopoParser().parseText(n.machine().fixture(), fixtureText(n.machine().fixture())));
        assertThat(comparable(stored.getSpec())).containsExactlyElementsOf(comparable(fromDump));
        if (shape.equals("case-01")) {
            assertThat(stored.getSpec().pairs()).extracting(p -> p.gpu() + ":" + p.hca() + ":" + p.distance()
                    + ":" + p.rail()).containsExactly("0:mlx5_0:PIX:0", "1:mlx5_1:PIX:1", "2:mlx5_2:PIX:2",
                    "3:mlx5_3:PIX:3", "4:mlx5_4:PIX:4", "5:mlx5_5:PIX:5", "6:mlx5_6:PIX:6", "7:mlx5_7:PIX:7");
        }
        // What only the host gives: GPU UUIDs from nvidia-smi -q -x (the stand-in's, in NVML = bus order).
        for (Gpu g : stored.getSpec().gpus()) {
            assertThat(g.uuid()).isEqualTo(FakeNvidiaSmi.uuid(g.index()));
        }
        assertThat(stored.getMetadata().getLabels()).containsEntry("app.kubernetes.io/managed-by", "railyard-agent");
        // Nothing allocated yet; each HCA resource mapped by name to its HCA with the 63 advertised slots.
        NodeTopologyStatus status = stored.getStatus();
        assertThat(status.allocations()).isEmpty();
        assertThat(status.allocatedGpus()).isEmpty();
        assertThat(status.health()).isEqualTo(NodeHealth.HEALTHY);
        assertThat(status.observedTime()).isNotNull();
        assertThat(status.rdmaResources()).extracting(RdmaResourceStatus::resourceName, RdmaResourceStatus::hcas,
                RdmaResourceStatus::allocatable, RdmaResourceStatus::allocated).containsExactlyElementsOf(
                n.hcas().stream().sorted().map(h -> tuple("nvidia.com/" + h, List.of(h), SLOTS, 0)).toList());
        // All three sysfs shapes are PCIe machines (GPUs and HCAs under PCIe switches), so the agent also says
        // locality is known from PCIe distance classes (NodeTopologyConditions.LOCALITY_KNOWN, ADR 0009).
        assertThat(status.conditions()).extracting(Condition::getType, Condition::getStatus, Condition::getReason)
                .containsExactly(tuple("Ready", "True", "Observed"), tuple("Stale", "False", "Observed"),
                        tuple("LocalityKnown", "True", "PairedByPcie"));
    }

    @Test
    void statusFollowsTheKubeletsAllocationsAndIsNotRewrittenWhileNothingChanges() throws Exception {
        Node n = node("alloc", "case-01");
        n.agent().start();
        awaitReady(n.name());

        // Steady state: the agent reads the node every 500 ms but writes only when something changed.
        String steady = resourceVersion(n.name());
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(250))
                .until(() -> steady.equals(resourceVersion(n.name())));

        // A pod starts holding GPUs 2 and 3 and one slot each of mlx5_2 and mlx5_3 (case-01: their PIX HCAs).
        n.kubelet().pods(pod("team-a", "trainer-0",
                devices("nvidia.com/gpu", FakeNvidiaSmi.uuid(2), FakeNvidiaSmi.uuid(3)),
                devices("nvidia.com/mlx5_2", "0"), devices("nvidia.com/mlx5_3", "17")));
        PodAllocation expected = new PodAllocation("team-a", "trainer-0",
                List.of(new AllocatedGpu(FakeNvidiaSmi.uuid(2), FakeNvidiaSmi.uuid(2), 2),
                        new AllocatedGpu(FakeNvidiaSmi.uuid(3), FakeNvidiaSmi.uuid(3), 3)),
                List.of(new AllocatedRdmaResource("nvidia.com/mlx5_2", List.of("0"), List.of("mlx5_2")),
                        new AllocatedRdmaResource("nvidia.com/mlx5_3", List.of("17"), List.of("mlx5_3"))));
        NodeTopologyStatus status = await().atMost(CHANGE_SHOWN).pollInterval(Duration.ofMillis(200))
                .until(() -> stored(n.name()).getStatus(), s -> s.allocations().equals(List.of(expected)));
        assertThat(status.allocatedGpus()).containsExactly(2, 3);
        assertThat(status.rdmaResources()).filteredOn(r -> r.resourceName().equals("nvidia.com/mlx5_2"))
                .extracting(RdmaResourceStatus::allocated).containsExactly(1);
        // One RDMA pod on each of mlx5_2's and mlx5_3's port, none elsewhere.
        assertThat(status.ports()).extracting(HcaPortStatus::hca, HcaPortStatus::rdmaPods).containsExactly(
                tuple("mlx5_0", 0), tuple("mlx5_1", 0), tuple("mlx5_2", 1), tuple("mlx5_3", 1),
                tuple("mlx5_4", 0), tuple("mlx5_5", 0), tuple("mlx5_6", 0), tuple("mlx5_7", 0));

        // The pod ends: the allocations go again.
        n.kubelet().pods();
        status = await().atMost(CHANGE_SHOWN).pollInterval(Duration.ofMillis(200))
                .until(() -> stored(n.name()).getStatus(), s -> s.allocations().isEmpty());
        assertThat(status.allocatedGpus()).isEmpty();
        assertThat(status.ports()).allSatisfy(p -> assertThat(p.rdmaPods()).isZero());
        assertThat(condition(status, "Stale")).get().extracting(Condition::getStatus).isEqualTo("False");
    }

    @Test
    void kubeletGoingAwayMarksTheStatusStaleAndTheAgentStaysLive() throws Exception {
        Node n = node("stale", "case-07");
        n.kubelet().pods(pod("team-b", "infer-0", devices("nvidia.com/gpu", FakeNvidiaSmi.uuid(1))));
        n.agent().start();
        NodeTopology before = await().atMost(CHANGE_SHOWN).pollInterval(Duration.ofMillis(200))
                .until(() -> stored(n.name()), t -> t != null && t.getStatus() != null
                        && t.getStatus().allocatedGpus().equals(List.of(1)));
        String observedBefore = before.getStatus().observedTime();

        // The kubelet goes away: server stopped, socket file gone.
        n.kubelet().close();
        Files.deleteIfExists(n.socket());
        assertThat(n.socket()).doesNotExist();

        NodeTopologyStatus status = await().atMost(CHANGE_SHOWN).pollInterval(Duration.ofMillis(200))
                .until(() -> stored(n.name()).getStatus(), s -> condition(s, "Stale")
                        .map(c -> "True".equals(c.getStatus())).orElse(false));
        Condition stale = condition(status, "Stale").orElseThrow();
        assertThat(stale.getReason()).isEqualTo("PodResourcesUnavailable");
        // The message names the kubelet call that failed (PodResourcesClient: "<rpc>: <gRPC status> ...").
        assertThat(stale.getMessage()).contains("UNAVAILABLE");
        assertThat(condition(status, "Ready")).get().extracting(Condition::getStatus, Condition::getReason)
                .containsExactly("False", "PodResourcesUnavailable");
        // No guess: the last known allocations stay, and observedTime stays at the last complete refresh.
        assertThat(status.allocatedGpus()).containsExactly(1);
        assertThat(status.observedTime()).isEqualTo(observedBefore);

        // The agent keeps running and says so: /healthz 200 (liveness is not failed by an outage), stale true.
        assertThat(n.agent().running()).isTrue();
        HttpResponse<String> health = n.agent().healthz();
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"live\":true").contains("\"stale\":true");

        // The kubelet comes back on the same socket: the agent's retries find it and the status is fresh again.
        FakeKubelet back = new FakeKubelet().allocatable(n.allocatable()).startOnSocket(n.socket());
        kubelets.add(back);
        status = await().atMost(CHANGE_SHOWN).pollInterval(Duration.ofMillis(200))
                .until(() -> stored(n.name()).getStatus(), s -> condition(s, "Stale")
                        .map(c -> "False".equals(c.getStatus())).orElse(false));
        assertThat(status.allocatedGpus()).isEmpty();
        assertThat(n.agent().healthz().body()).contains("\"stale\":false");
    }

    @Test
    void agentRestartedWithNothingChangedDoesNotRewriteTheObject() throws Exception {
        Node n = node("restart", "case-01");
        n.kubelet().pods(pod("team-a", "trainer-0", devices("nvidia.com/gpu", FakeNvidiaSmi.uuid(0)),
                devices("nvidia.com/mlx5_0", "3")));
        n.agent().start();
        await().atMost(CHANGE_SHOWN).pollInterval(Duration.ofMillis(200)).until(() -> stored(n.name()),
                t -> t != null && t.getStatus() != null && t.getStatus().allocatedGpus().equals(List.of(0)));
        String before = resourceVersion(n.name());
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).pollInterval(Duration.ofMillis(250))
                .until(() -> before.equals(resourceVersion(n.name())));

        n.agent().stop();
        n.agent().start();
        // Several refreshes of the new process (its /metrics counts them), and the object is untouched.
        await().atMost(CHANGE_SHOWN).pollInterval(Duration.ofMillis(250))
                .until(() -> metric(n.agent(), "railyard_agent_refresh_seconds_count") >= 4);
        assertThat(resourceVersion(n.name())).isEqualTo(before);
        assertThat(metric(n.agent(), "railyard_agent_publish_total")).isZero();
        HttpResponse<String> health = n.agent().healthz();
        assertThat(health.body()).contains("\"stale\":false");

        // ... and a change after the restart is still written.
        n.kubelet().pods();
        await().atMost(CHANGE_SHOWN).pollInterval(Duration.ofMillis(200))
                .until(() -> stored(n.name()).getStatus().allocations().isEmpty());
        assertThat(resourceVersion(n.name())).isNotEqualTo(before);
    }

    /** Sum of every sample of {@code name} (any labels) on the agent's {@code /metrics}; 0 when absent. */
    private static double metric(RailyardAgentProcess agent, String name) throws Exception {
        return agent.metrics().lines().filter(l -> l.startsWith(name + " ") || l.startsWith(name + "{"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }
}
