package dev.railyard.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.railyard.api.whereabouts.IPAllocation;
import dev.railyard.api.whereabouts.IPPool;
import dev.railyard.api.whereabouts.IPPoolSpec;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * The cluster the Railyard scenarios run on: fake GPU nodes of real machine types ({@link FixtureMachines}) under
 * leaf/spine switches, their {@code NodeTopology} objects, the seed's four MacvlanNetworks with the
 * NetworkAttachmentDefinitions network-operator renders from them, and the whereabouts IPPools of those ranges.
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
    public static final String LEAF_LABEL = "network.topology.nvidia.com/leaf";
    /** Tier-2 label of the same scheme. */
    public static final String SPINE_LABEL = "network.topology.nvidia.com/spine";
    /** Namespace whereabouts keeps its IPPools in (its kubeconfig in the seed lives with kube-system's CNI). */
    public static final String WHEREABOUTS_NAMESPACE = "kube-system";

    /**
     * One fake node.
     *
     * @param name    node name
     * @param machine hardware, or empty for a node without a NodeTopology
     * @param leaf    leaf switch label value
     * @param spine   spine switch label value
     */
    public record FakeNode(String name, Optional<FixtureMachines.Machine> machine, String leaf, String spine) {
    }

    /** Every fake node, in creation order. */
    public static final List<FakeNode> NODES = List.of(
            new FakeNode("gpu-a1", Optional.of(FixtureMachines.PCIE_8GPU), "leaf-a", "spine-1"),
            new FakeNode("gpu-a2", Optional.of(FixtureMachines.PCIE_8GPU), "leaf-a", "spine-1"),
            new FakeNode("gpu-a3", Optional.of(FixtureMachines.PCIE_8GPU), "leaf-a", "spine-1"),
            new FakeNode("gpu-a4", Optional.of(FixtureMachines.PCIE_8GPU), "leaf-a", "spine-1"),
            new FakeNode("gpu-b1", Optional.of(FixtureMachines.PCIE_8GPU), "leaf-b", "spine-1"),
            new FakeNode("gpu-b2", Optional.of(FixtureMachines.PCIE_8GPU), "leaf-b", "spine-1"),
            new FakeNode("gpu-b3", Optional.of(FixtureMachines.PCIE_8GPU), "leaf-b", "spine-1"),
            new FakeNode("gpu-b4", Optional.of(FixtureMachines.PCIE_8GPU), "leaf-b", "spine-1"),
            new FakeNode("gpu-c1", Optional.of(FixtureMachines.HGX_4NIC), "leaf-c", "spine-2"),
            new FakeNode("gpu-c2", Optional.of(FixtureMachines.HGX_4NIC), "leaf-c", "spine-2"),
            new FakeNode("gpu-n1", Optional.empty(), "leaf-c", "spine-2"));

    /** The seed networks' ranges (shared/seed-setup.md), by MacvlanNetwork name. */
    public static final Map<String, String> RANGES = new LinkedHashMap<>(Map.of(
            "rdma-net-ipam-lan2", "192.168.4.0/22", "rdma-net-ipam-lan3", "192.168.8.0/22",
            "rdma-net-ipam-lan4", "192.168.12.0/22", "rdma-net-ipam-lan5", "192.168.16.0/22"));

    /** Addresses whereabouts hands out from a /22: network+1 to broadcast−1 (whereabouts {@code GetIPRange}). */
    public static final int USABLE_PER_POOL = 1022;
    /** Addresses already held in every pool at the start, by pods of earlier jobs that still run. */
    public static final int PREALLOCATED = 40;

    private static final ObjectMapper JSON = new ObjectMapper();

    private SeedCluster() {
    }

    /** Names of every fake node, for {@link ControlPlane.Options}. */
    public static List<String> nodeNames() {
        return NODES.stream().map(FakeNode::name).toList();
    }

    /** Names of the nodes of one machine type. */
    public static List<String> nodesOf(FixtureMachines.Machine m) {
        return NODES.stream().filter(n -> n.machine().equals(Optional.of(m))).map(FakeNode::name).toList();
    }

    /** Names of the nodes under one leaf. */
    public static List<String> nodesUnder(String leaf) {
        return NODES.stream().filter(n -> n.leaf().equals(leaf)).map(FakeNode::name).toList();
    }

    /**
     * Labels the nodes with their switches and creates NodeTopologies (spec and status), the prod namespace,
     * MacvlanNetworks, NetworkAttachmentDefinitions and IPPools (each with {@link #PREALLOCATED} addresses held).
     */
    public static void create(ControlPlane cp) {
        KubernetesClient client = cp.client();
        for (FakeNode n : NODES) {
            client.nodes().withName(n.name()).edit(node -> {
                node.getMetadata().getLabels().put(LEAF_LABEL, n.leaf());
                node.getMetadata().getLabels().put(SPINE_LABEL, n.spine());
                return node;
            });
            n.machine().ifPresent(m -> {
                // Written and read as a generic object: the typed api records do not accept the derived "up" /
                // "software" properties their is-getters add (and the generated CRD keeps) when read back strictly.
                GenericKubernetesResource nt = client.getKubernetesSerialization().convertValue(
                        FixtureMachines.nodeTopology(n.name(), m), GenericKubernetesResource.class);
                Object status = nt.getAdditionalProperties().get("status");
                GenericKubernetesResource created = client.resource(nt).create();
                created.getAdditionalProperties().put("status", status);
                client.resource(created).updateStatus();
            });
        }
        cp.ensureNamespace(SeedWorkloads.NAMESPACE);
        cp.ensureNamespace(WHEREABOUTS_NAMESPACE);
        for (HasMetadata net : SeedWorkloads.macvlanNetworks(client)) {
            client.resource(net).create();
            client.resource(networkAttachmentDefinition((GenericKubernetesResource) net)).create();
        }
        RANGES.forEach((network, range) -> setAllocated(client, range, PREALLOCATED));
    }

    /**
     * The NetworkAttachmentDefinition network-operator renders from a MacvlanNetwork (same name, in its
     * {@code networkNamespace}; config = macvlan plugin with master, mode, mtu and the IPAM JSON;
     * data-formats.md §3).
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
        return range.replace('/', '-');
    }

    /**
     * Makes the range's IPPool hold exactly {@code count} addresses, offsets 1..count (whereabouts hands out lowest
     * first), each by a pod {@code prod/earlier-<pool>-<k>} on interface {@code net1}; creates the pool if needed.
     */
    public static void setAllocated(KubernetesClient client, String range, int count) {
        Map<String, IPAllocation> alloc = new LinkedHashMap<>();
        String tag = range.substring(0, range.indexOf('/')).replace('.', '-');
        IntStream.rangeClosed(1, count).forEach(k -> alloc.put(Integer.toString(k),
                new IPAllocation(String.format("%064x", k), SeedWorkloads.NAMESPACE + "/earlier-" + tag + "-" + k,
                        "net1")));
        IPPool pool = new IPPool();
        pool.setMetadata(new ObjectMetaBuilder().withName(poolName(range)).withNamespace(WHEREABOUTS_NAMESPACE).build());
        pool.setSpec(new IPPoolSpec(range, alloc));
        var existing = client.resources(IPPool.class).inNamespace(WHEREABOUTS_NAMESPACE).withName(poolName(range));
        if (existing.get() == null) {
            client.resources(IPPool.class).resource(pool).create();
        } else {
            // edit sends a JSON patch of the difference, so offsets beyond count are removed
            existing.edit(p -> {
                p.setSpec(pool.getSpec());
                return p;
            });
        }
    }

    /** Every pool back to {@link #PREALLOCATED} held addresses. */
    public static void resetPools(KubernetesClient client) {
        RANGES.values().forEach(r -> setAllocated(client, r, PREALLOCATED));
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
