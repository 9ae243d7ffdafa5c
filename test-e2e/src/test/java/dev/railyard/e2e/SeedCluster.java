package dev.railyard.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The cluster the Railyard scenarios run on, declared with {@link ClusterShape}: fake GPU nodes of real machine
 * types ({@link FixtureMachines}) under leaf/spine switches, their {@code NodeTopology} objects, the seed's four
 * MacvlanNetworks with the NetworkAttachmentDefinitions network-operator renders from them, and the whereabouts
 * IPPools of those ranges.
 *
 * <p>Layout (leaf/spine as NVIDIA topograph's node labels {@code network.topology.nvidia.com/leaf} and
 * {@code .../spine}, the {@code TOPOGRAPH_TREE} scheme of {@code dev.railyard.topology.fabric.FabricLabelKeys}):
 * <pre>
 *   spine-1 ── leaf-a: gpu-a1 gpu-a2 gpu-a3 gpu-a4   (PCIE_8GPU: every GPU PIX to a seed HCA)
 *           └─ leaf-b: gpu-b1 gpu-b2 gpu-b3 gpu-b4   (PCIE_8GPU)
 *   spine-2 ── leaf-c: gpu-c1 gpu-c2                 (HGX_4NIC: odd GPUs SYS to every HCA)
 *              leaf-c: gpu-n1                        (no NodeTopology at all)
 * </pre>
 */
public final class SeedCluster {

    /** Fabric label keys (NVIDIA topograph before v1.0.0; {@code FabricLabelKeys.TOPOGRAPH_TREE}). */
    public static final String LEAF_LABEL = ClusterShape.LEAF_LABEL;
    /** Tier-2 label of the same scheme. */
    public static final String SPINE_LABEL = ClusterShape.SPINE_LABEL;
    /** Namespace whereabouts keeps its IPPools in (its kubeconfig in the seed lives with kube-system's CNI). */
    public static final String WHEREABOUTS_NAMESPACE = ClusterShape.WHEREABOUTS_NAMESPACE;

    /** The seed's ranges of the MacvlanNetworks in {@code src/test/resources/seed/macvlan-networks.yaml}. */
    public static final Map<String, String> RANGES = new LinkedHashMap<>(Map.of(
            "rdma-net-ipam-lan2", "192.168.4.0/22", "rdma-net-ipam-lan3", "192.168.8.0/22",
            "rdma-net-ipam-lan4", "192.168.12.0/22", "rdma-net-ipam-lan5", "192.168.16.0/22"));
    /** Addresses whereabouts hands out from a /22: network+1 to broadcast−1 (whereabouts {@code GetIPRange}). */
    public static final int USABLE_PER_POOL = 1022;
    /** Addresses already held in every pool at the start, by pods of earlier jobs that still run. */
    public static final int PREALLOCATED = 40;

    /** The seed's four MacvlanNetworks, as the seed writes them. */
    static final String SEED_NETWORKS = "/seed/macvlan-networks.yaml";

    /** The seed's machines: 8 GPUs, {@code nvidia.com/mlx5_0..3} on lan2..lan5, 100 slots each. */
    public static final MachineShape PCIE_8GPU = MachineShape.seed("pcie-8gpu", FixtureMachines.PCIE_8GPU);
    /** The same resources on the HGX with 4 NICs for 8 GPUs. */
    public static final MachineShape HGX_4NIC = MachineShape.seed("hgx-4nic", FixtureMachines.HGX_4NIC);

    /** The layout above, with the seed's own MacvlanNetworks. */
    public static final ClusterShape SHAPE = ClusterShape.builder()
            .nodes(PCIE_8GPU, "leaf-a", "spine-1", "gpu-a1", "gpu-a2", "gpu-a3", "gpu-a4")
            .nodes(PCIE_8GPU, "leaf-b", "spine-1", "gpu-b1", "gpu-b2", "gpu-b3", "gpu-b4")
            .nodes(HGX_4NIC, "leaf-c", "spine-2", "gpu-c1", "gpu-c2")
            .nodeWithoutTopology("gpu-n1", "leaf-c", "spine-2")
            .network("rdma-net-ipam-lan2", "lan2", RANGES.get("rdma-net-ipam-lan2"), SEED_NETWORKS)
            .network("rdma-net-ipam-lan3", "lan3", RANGES.get("rdma-net-ipam-lan3"), SEED_NETWORKS)
            .network("rdma-net-ipam-lan4", "lan4", RANGES.get("rdma-net-ipam-lan4"), SEED_NETWORKS)
            .network("rdma-net-ipam-lan5", "lan5", RANGES.get("rdma-net-ipam-lan5"), SEED_NETWORKS)
            .preallocated(PREALLOCATED)
            .build();

    /** Every fake node, in creation order. */
    public static final List<ClusterShape.Node> NODES = SHAPE.nodes();

    private static final ObjectMapper JSON = new ObjectMapper();

    private SeedCluster() {
    }

    /** Names of every fake node, for {@link ControlPlane.Options}. */
    public static List<String> nodeNames() {
        return SHAPE.nodeNames();
    }

    /** Names of the nodes of one hardware type. */
    public static List<String> nodesOf(FixtureMachines.Machine m) {
        return SHAPE.nodesOf(m);
    }

    /** Names of the nodes under one leaf. */
    public static List<String> nodesUnder(String leaf) {
        return SHAPE.nodesUnder(leaf);
    }

    /**
     * Labels the nodes with their switches and creates NodeTopologies (spec and status), the prod namespace,
     * MacvlanNetworks, NetworkAttachmentDefinitions and IPPools (each with {@link #PREALLOCATED} addresses held).
     */
    public static void create(ControlPlane cp) {
        SHAPE.create(cp);
    }

    /**
     * The NetworkAttachmentDefinition network-operator renders from a MacvlanNetwork (same name, in its
     * {@code networkNamespace}; config = macvlan plugin with master, mode, mtu and the IPAM JSON;
     * docs/formats/network-operator.md §1).
     */
    public static GenericKubernetesResource networkAttachmentDefinition(GenericKubernetesResource macvlan) {
        String name = macvlan.getMetadata().getName();
        ObjectNode config = JSON.createObjectNode();
        config.put("cniVersion", "0.3.1");
        config.put("name", name);
        config.put("type", "macvlan");
        config.put("master", (String) macvlan.get("spec", "master"));
        config.put("mode", (String) macvlan.get("spec", "mode"));
        config.put("mtu", ((Number) macvlan.get("spec", "mtu")).intValue());
        try {
            config.set("ipam", JSON.readTree((String) macvlan.get("spec", "ipam")));
        } catch (IOException e) {
            throw new UncheckedIOException("MacvlanNetwork " + name + ": spec.ipam is not JSON", e);
        }
        return new GenericKubernetesResourceBuilder()
                .withApiVersion("k8s.cni.cncf.io/v1").withKind("NetworkAttachmentDefinition")
                .withMetadata(new ObjectMetaBuilder().withName(name)
                        .withNamespace((String) macvlan.get("spec", "networkNamespace")).build())
                .addToAdditionalProperties("spec", Map.of("config", config.toString()))
                .build();
    }

    /** whereabouts' IPPool name for a range without network_name: the CIDR with '/' replaced by '-'. */
    public static String poolName(String range) {
        return ClusterShape.poolName(range);
    }

    /** {@link ClusterShape#setAllocated}. */
    public static void setAllocated(KubernetesClient client, String range, int count) {
        ClusterShape.setAllocated(client, range, count);
    }

    /** Every pool back to {@link #PREALLOCATED} held addresses. */
    public static void resetPools(KubernetesClient client) {
        SHAPE.resetPools(client);
    }

    /** JSON of a pod annotation value, for hint assertions. */
    public static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + text, e);
        }
    }
}
