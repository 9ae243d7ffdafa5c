package dev.railyard.e2e;

import dev.railyard.api.topology.ExcludedHca;
import dev.railyard.api.topology.GpuHcaDistance;
import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.HcaPort;
import dev.railyard.api.topology.HcaPortStatus;
import dev.railyard.api.topology.NetdevAttachment;
import dev.railyard.api.topology.NodeHealth;
import dev.railyard.api.topology.NodeTopology;
import dev.railyard.api.topology.NodeTopologyConditions;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.NodeTopologyStatus;
import dev.railyard.api.topology.RdmaResourceStatus;
import dev.railyard.topology.TopologyReader;
import dev.railyard.topology.discovery.TopologyFormat;
import dev.railyard.topology.pairing.RailPairing;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The fake nodes' hardware, from real {@code nvidia-smi topo -m} captures: each {@link Machine} is a fixture dump
 * under {@code topology/src/test/resources/fixtures/} (system property {@code railyard.e2e.fixtures}) read with
 * {@link TopologyReader}, plus what the capture cannot say and the seed cluster assumes: the mlx5 names of
 * NIC columns a capture has no legend for, the netdev on each cabled port ({@code lan2..lan5} on {@code mlx5_0..3}
 * as in {@code docs/seed-setup.md}) and the ports that are not cabled. Those assumptions are the demo cluster's
 * ({@code scheduler/src/main/resources/demo/cluster.yaml}), so e2e and {@code railyard demo} model the same machines.
 *
 * <p>{@link #nodeTopology} turns a machine into the {@code NodeTopology} object the node agent would publish for a
 * fresh node: the paired spec, and a status with every port ACTIVE (or DOWN), the seed's rdma-shared-dev-plugin
 * resources {@code nvidia.com/mlx5_0..3} selecting {@code lan2..lan5} (100 slots, none allocated), no pods, and
 * conditions Ready=True / Stale=False.
 */
public final class FixtureMachines {

    /**
     * One machine type.
     *
     * @param fixture   fixture file name
     * @param nicLegend NIC column name to mlx5 name, for captures without a NIC Legend (empty: names as captured)
     * @param netdevs   HCA to the netdev on its (single, Ethernet) port; those ports are ACTIVE at 400 Gb/s
     * @param downPorts HCAs whose port is not cabled (DOWN)
     */
    public record Machine(String fixture, Map<String, String> nicLegend, Map<String, String> netdevs,
                          Set<String> downPorts) {
    }

    /**
     * github.com/NVIDIA/nccl/issues/1405 (fixture case-06): 8 PCIe GPUs in two PCIe complexes of 4 GPUs + 4 NICs,
     * everything PIX inside a complex, SYS across. Legend and cabling as the demo's {@code pcie-8gpu}: NIC1, NIC3
     * (complex of GPU0-3) are mlx5_0, mlx5_1; NIC0, NIC2 (complex of GPU4-7) are mlx5_2, mlx5_3; NIC4-7 uncabled.
     * So each seed HCA serves two GPUs under its own PCIe switch, PIX.
     */
    public static final Machine PCIE_8GPU = new Machine("case-06-pcie-8gpu-8nic-4per-switch-sriov.txt",
            Map.of("NIC1", "mlx5_0", "NIC3", "mlx5_1", "NIC0", "mlx5_2", "NIC2", "mlx5_3",
                    "NIC4", "mlx5_4", "NIC5", "mlx5_5", "NIC6", "mlx5_6", "NIC7", "mlx5_7"),
            Map.of("mlx5_0", "lan2", "mlx5_1", "lan3", "mlx5_2", "lan4", "mlx5_3", "lan5"),
            Set.of("mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7"));

    /**
     * github.com/NVIDIA/nccl/issues/1357 (fixture case-05): H100 with 4 GPU NICs for 8 GPUs; GPU0/2/4/6 PIX to
     * NIC0-3, the odd GPUs SYS to every NIC (fixture README: "odd GPUs not rejected but not PIX"). Legend and
     * cabling as the demo's {@code hgx-4nic}: NICi = mlx5_i, mlx5_0..3 on lan2..lan5, mlx5_4/5 on storage netdevs.
     * An 8-GPU pod here has four GPUs with no HCA at PXB or nearer.
     */
    public static final Machine HGX_4NIC = new Machine("case-05-h100-6nic-2gpu-per-nic.txt",
            Map.of("NIC0", "mlx5_0", "NIC1", "mlx5_1", "NIC2", "mlx5_2", "NIC3", "mlx5_3", "NIC4", "mlx5_4",
                    "NIC5", "mlx5_5"),
            Map.of("mlx5_0", "lan2", "mlx5_1", "lan3", "mlx5_2", "lan4", "mlx5_3", "lan5", "mlx5_4", "stor0",
                    "mlx5_5", "stor1"),
            Set.of());

    /**
     * github.com/sgl-project/sglang/issues/30401 (fixture case-01): DGX/HGX H100, GPU i PIX to mlx5_i, two sockets;
     * cabling as the demo's {@code dgx-h100}: mlx5_0..3 on lan2..lan5 (the seed's rails), mlx5_4..7 on lan6..lan9.
     */
    public static final Machine DGX_H100 = new Machine("case-01-dgx-h100-8gpu-8nic-1to1.txt", Map.of(),
            Map.of("mlx5_0", "lan2", "mlx5_1", "lan3", "mlx5_2", "lan4", "mlx5_3", "lan5", "mlx5_4", "lan6",
                    "mlx5_5", "lan7", "mlx5_6", "lan8", "mlx5_7", "lan9"),
            Set.of());

    /** The seed's rdma-shared-dev-plugin resources and the netdev each selects ({@code ifNames}). */
    public static final Map<String, String> RDMA_RESOURCES = new TreeMap<>(Map.of(
            "nvidia.com/mlx5_0", "lan2", "nvidia.com/mlx5_1", "lan3", "nvidia.com/mlx5_2", "lan4",
            "nvidia.com/mlx5_3", "lan5"));

    private FixtureMachines() {
    }

    /** Directory of the fixture dumps. */
    public static Path fixtures() {
        return Path.of(System.getProperty("railyard.e2e.fixtures", "../topology/src/test/resources/fixtures"));
    }

    /**
     * The machine's paired node model: the fixture read by {@link TopologyReader}, HCAs renamed by the legend,
     * ports wired, then paired again by {@link RailPairing} so pairing sees the cabling.
     *
     * @throws IllegalStateException if the fixture file is missing
     */
    public static NodeTopologySpec spec(Machine m) {
        Path file = fixtures().resolve(m.fixture());
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException("fixture " + file.toAbsolutePath() + " not found (railyard.e2e.fixtures)");
        }
        NodeTopologySpec read = new TopologyReader().read(file, TopologyFormat.AUTO);
        List<Hca> hcas = new ArrayList<>();
        for (Hca h : read.hcas()) {
            String name = m.nicLegend().getOrDefault(h.name(), h.name());
            List<HcaPort> ports = h.ports();
            if (m.netdevs().containsKey(name)) {
                ports = List.of(new HcaPort(1, "Ethernet", "ACTIVE", 400, List.of(m.netdevs().get(name)), null));
            } else if (m.downPorts().contains(name)) {
                ports = List.of(new HcaPort(1, "Ethernet", "DOWN", null, List.of(), null));
            }
            hcas.add(new Hca(name, h.pciBusId(), h.numaNode(), ports, h.bondMaster(), h.pcieParent()));
        }
        List<GpuHcaDistance> distances = read.distances().stream().map(d -> new GpuHcaDistance(d.gpu(),
                m.nicLegend().getOrDefault(d.hca(), d.hca()), d.distance())).toList();
        // The legend replaces the capture's missing one, so the parser's "no NIC Legend" warning no longer applies.
        List<String> warnings = read.warnings().stream().filter(w -> !w.contains("no NIC Legend")).toList();
        NodeTopologySpec wired = new NodeTopologySpec(read.source(), read.complete(), warnings, read.gpus(), hcas,
                read.pcieBridges(), read.numaNodes(), distances, List.<GpuHcaPair>of(), List.<ExcludedHca>of());
        return new RailPairing().pair(wired);
    }

    /** The {@code NodeTopology} named {@code node} that the agent would publish for machine {@code m}. */
    public static NodeTopology nodeTopology(String node, Machine m) {
        return nodeTopology(node, m, RDMA_RESOURCES, GpuNodes.HCA_SLOTS);
    }

    /**
     * The {@code NodeTopology} named {@code node} that the agent would publish for machine {@code m} whose
     * rdma-shared-dev-plugin advertises {@code rdmaResources} (resource → the netdev it selects), {@code slots} each.
     */
    public static NodeTopology nodeTopology(String node, Machine m, Map<String, String> rdmaResources, int slots) {
        NodeTopologySpec spec = spec(m);
        String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        List<HcaPortStatus> ports = new ArrayList<>();
        List<NetdevAttachment> netdevs = new ArrayList<>();
        for (Hca h : spec.hcas()) {
            for (HcaPort p : h.ports()) {
                ports.add(new HcaPortStatus(h.name(), p.number(), p.state(), p.linkLayer(), p.rateGbps(), null, 0, 63));
                for (String nd : p.netdevs()) {
                    netdevs.add(new NetdevAttachment(nd, h.name(), p.number()));
                }
            }
        }
        netdevs.sort(java.util.Comparator.comparing(NetdevAttachment::netdev));
        List<RdmaResourceStatus> rdma = new ArrayList<>();
        new TreeMap<>(rdmaResources).forEach((resource, netdev) -> rdma.add(new RdmaResourceStatus(resource,
                netdevs.stream().filter(n -> n.netdev().equals(netdev)).map(NetdevAttachment::hca).toList(),
                "selectors", slots, 0)));
        boolean degraded = ports.stream().anyMatch(p -> !p.isUp());
        List<Condition> conditions = List.of(
                condition(NodeTopologyConditions.READY, "True", now),
                condition(NodeTopologyConditions.STALE, "False", now));
        NodeTopologyStatus status = new NodeTopologyStatus(now, degraded ? NodeHealth.DEGRADED : NodeHealth.HEALTHY,
                List.of(), List.of(), ports, rdma, netdevs, conditions);
        NodeTopology nt = new NodeTopology();
        nt.setMetadata(new ObjectMetaBuilder().withName(node).build());
        nt.setSpec(spec);
        nt.setStatus(status);
        return nt;
    }

    private static Condition condition(String type, String status, String now) {
        return new ConditionBuilder().withType(type).withStatus(status)
                .withReason(NodeTopologyConditions.REASON_OBSERVED).withMessage("e2e fixture")
                .withLastTransitionTime(now).build();
    }

    /** HCA each GPU is paired with in {@code spec} (GPU index to HCA name), from {@code spec.pairs}. */
    public static Map<Integer, GpuHcaPair> pairsByGpu(NodeTopologySpec spec) {
        Map<Integer, GpuHcaPair> m = new TreeMap<>();
        for (GpuHcaPair p : spec.pairs()) {
            m.put(p.gpu(), p);
        }
        return m;
    }
}
