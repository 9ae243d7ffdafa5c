package dev.railyard.e2e;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.railyard.api.whereabouts.IPAllocation;
import dev.railyard.api.whereabouts.IPPool;
import dev.railyard.api.whereabouts.IPPoolSpec;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * The cluster of an e2e scenario, declared in a few lines: fake nodes of {@link MachineShape}s (any dump, GPU count
 * and RDMA resource names) under leaf and spine switches, and the rail networks (MacvlanNetworks with whereabouts
 * pools). For example, two DGX H100 nodes with eight HCAs as resources {@code rdma/hca0..7}:
 *
 * <pre>{@code
 * MachineShape dgx = new MachineShape("dgx", FixtureMachines.DGX_H100, 8, Map.of("rdma/hca0", "lan2", ...), 64);
 * ClusterShape shape = ClusterShape.builder()
 *         .nodes(dgx, "leaf-1", "spine-1", "dgx-1", "dgx-2")
 *         .network("rail-0", "lan2", "10.10.0.0/24")
 *         .build();
 * ControlPlane.Options options = ControlPlane.Options.kubeScheduler(shape.nodeNames())
 *         .withCapacities(shape.capacities());
 * // in the prelude or @BeforeEach: shape.create(controlPlane)
 * }</pre>
 *
 * <p>{@link #create} labels the nodes with their switches (NVIDIA topograph's {@code network.topology.nvidia.com/leaf}
 * and {@code .../spine}), publishes their NodeTopologies as the node agent would, and creates the namespace, the
 * MacvlanNetworks, the NetworkAttachmentDefinitions network-operator renders from them and the whereabouts IPPools,
 * each holding {@code preallocated} addresses.
 *
 * @param nodes        the fake nodes, in creation order
 * @param networks     the rail networks
 * @param preallocated addresses already held in every pool (by pods of earlier jobs)
 */
public record ClusterShape(List<Node> nodes, List<Network> networks, int preallocated) {
    /** Fabric label keys (NVIDIA topograph before v1.0.0; {@code FabricLabelKeys.TOPOGRAPH_TREE}). */
    public static final String LEAF_LABEL = "network.topology.nvidia.com/leaf";
    /** Tier-2 label of the same scheme. */
    public static final String SPINE_LABEL = "network.topology.nvidia.com/spine";
    /** Namespace whereabouts keeps its IPPools in (its kubeconfig in the seed lives with kube-system's CNI). */
    public static final String WHEREABOUTS_NAMESPACE = "kube-system";
    private static final ObjectMapper JSON = new ObjectMapper();

    public ClusterShape {
        nodes = List.copyOf(nodes);
        networks = List.copyOf(networks);
    }

    /**
     * One fake node.
     *
     * @param name    node name
     * @param machine its shape, or empty for a node without a NodeTopology (seed capacity)
     * @param leaf    leaf switch label value
     * @param spine   spine switch label value
     */
    public record Node(String name, Optional<MachineShape> machine, String leaf, String spine) {
    }

    /**
     * One rail network.
     *
     * @param name    MacvlanNetwork (and NetworkAttachmentDefinition) name
     * @param master  the host netdev ({@code lan2})
     * @param range   the whereabouts range
     * @param source  a YAML test resource holding the MacvlanNetwork of that name, created as it is (the seed's
     *                own), or null to write one from the fields
     */
    public record Network(String name, String master, String range, String source) {
    }

    /** @return a builder of an empty cluster */
    public static Builder builder() {
        return new Builder();
    }

    /** Names of every fake node, for {@link ControlPlane.Options}. */
    public List<String> nodeNames() {
        return nodes.stream().map(Node::name).toList();
    }

    /** Names of the nodes of one hardware type. */
    public List<String> nodesOf(FixtureMachines.Machine hardware) {
        return nodes.stream().filter(n -> n.machine().map(m -> m.hardware().equals(hardware)).orElse(false))
                .map(Node::name).toList();
    }

    /** Names of the nodes under one leaf. */
    public List<String> nodesUnder(String leaf) {
        return nodes.stream().filter(n -> n.leaf().equals(leaf)).map(Node::name).toList();
    }

    /** Node name → capacity, for {@link ControlPlane.Options#withCapacities}. */
    public Map<String, Map<String, Quantity>> capacities() {
        Map<String, Map<String, Quantity>> out = new LinkedHashMap<>();
        nodes.forEach(n -> out.put(n.name(), n.machine().map(MachineShape::capacity).orElse(GpuNodes.capacity())));
        return out;
    }

    /** Range of each network, by name. */
    public Map<String, String> ranges() {
        Map<String, String> out = new LinkedHashMap<>();
        networks.forEach(n -> out.put(n.name(), n.range()));
        return out;
    }

    /** Creates the cluster objects described on the type. */
    public void create(ControlPlane cp) {
        KubernetesClient client = cp.client();
        for (Node n : nodes) {
            client.nodes().withName(n.name()).edit(node -> {
                node.getMetadata().getLabels().put(LEAF_LABEL, n.leaf());
                node.getMetadata().getLabels().put(SPINE_LABEL, n.spine());
                return node;
            });
            n.machine().ifPresent(m -> {
                // Written and read as a generic object: the typed api records do not accept the derived "up" /
                // "software" properties their is-getters add (and the generated CRD keeps) when read back strictly.
                GenericKubernetesResource nt = client.getKubernetesSerialization().convertValue(
                        m.nodeTopology(n.name()), GenericKubernetesResource.class);
                Object status = nt.getAdditionalProperties().get("status");
                GenericKubernetesResource created = client.resource(nt).create();
                created.getAdditionalProperties().put("status", status);
                client.resource(created).updateStatus();
            });
        }
        cp.ensureNamespace(SeedWorkloads.NAMESPACE);
        cp.ensureNamespace(WHEREABOUTS_NAMESPACE);
        for (Network net : networks) {
            GenericKubernetesResource macvlan = net.source() == null ? macvlan(net) : SeedWorkloads.load(client,
                    net.source()).stream().map(GenericKubernetesResource.class::cast)
                    .filter(m -> m.getMetadata().getName().equals(net.name())).findFirst()
                    .orElseThrow(() -> new IllegalStateException(net.source() + " has no MacvlanNetwork " + net.name()));
            client.resource(macvlan).create();
            client.resource(SeedCluster.networkAttachmentDefinition(macvlan)).create();
        }
        resetPools(client);
    }

    /** Every pool back to {@link #preallocated} held addresses. */
    public void resetPools(KubernetesClient client) {
        networks.forEach(n -> setAllocated(client, n.range(), preallocated));
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
        pool.setMetadata(new ObjectMetaBuilder().withName(poolName(range)).withNamespace(WHEREABOUTS_NAMESPACE)
                .build());
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

    /** whereabouts' IPPool name for a range without network_name: the CIDR with '/' replaced by '-'. */
    public static String poolName(String range) {
        return range.replace('/', '-');
    }

    /** A MacvlanNetwork for {@code net} in {@code prod}, whereabouts IPAM on its range (gateway: the first host). */
    static GenericKubernetesResource macvlan(Network net) {
        ObjectNode ipam = JSON.createObjectNode();
        ipam.put("type", "whereabouts");
        ipam.put("datastore", "kubernetes");
        ipam.putObject("kubernetes").put("kubeconfig", "/etc/cni/net.d/whereabouts.d/whereabouts.kubeconfig");
        ipam.put("range", net.range());
        return new GenericKubernetesResourceBuilder()
                .withApiVersion("mellanox.com/v1alpha1").withKind("MacvlanNetwork")
                .withMetadata(new ObjectMetaBuilder().withName(net.name()).build())
                .addToAdditionalProperties("spec", Map.of("networkNamespace", SeedWorkloads.NAMESPACE,
                        "master", net.master(), "mode", "bridge", "mtu", 1500, "ipam", ipam.toString()))
                .build();
    }

    /** Builds a {@link ClusterShape}. */
    public static final class Builder {
        private final List<Node> nodes = new ArrayList<>();
        private final List<Network> networks = new ArrayList<>();
        private int preallocated;

        /** Nodes of one shape under one leaf and spine. */
        public Builder nodes(MachineShape shape, String leaf, String spine, String... names) {
            for (String n : names) {
                nodes.add(new Node(n, Optional.of(shape), leaf, spine));
            }
            return this;
        }

        /** A node without a NodeTopology (seed capacity). */
        public Builder nodeWithoutTopology(String name, String leaf, String spine) {
            nodes.add(new Node(name, Optional.empty(), leaf, spine));
            return this;
        }

        /** A rail network whose MacvlanNetwork is written from its name, master and range. */
        public Builder network(String name, String master, String range) {
            networks.add(new Network(name, master, range, null));
            return this;
        }

        /** A rail network whose MacvlanNetwork is the one of that name in the YAML test resource {@code source}. */
        public Builder network(String name, String master, String range, String source) {
            networks.add(new Network(name, master, range, source));
            return this;
        }

        /** Addresses held in every pool at the start. */
        public Builder preallocated(int count) {
            preallocated = count;
            return this;
        }

        public ClusterShape build() {
            return new ClusterShape(nodes, networks, preallocated);
        }
    }
}
