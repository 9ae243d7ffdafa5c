package dev.railyard.benchmarks.scale;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.railyard.api.whereabouts.IPAllocation;
import dev.railyard.api.whereabouts.IPPool;
import dev.railyard.api.whereabouts.OverlappingRangeIPReservation;
import dev.railyard.api.whereabouts.OverlappingRangeIPReservationSpec;
import dev.railyard.api.whereabouts.IPPoolSpec;
import dev.railyard.api.whereabouts.NodeSliceAllocation;
import dev.railyard.api.whereabouts.NodeSlicePool;
import dev.railyard.api.whereabouts.NodeSlicePoolSpec;
import dev.railyard.api.whereabouts.NodeSlicePoolStatus;
import dev.railyard.e2e.SeedCluster;
import dev.railyard.e2e.SeedWorkloads;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The seed's four RDMA networks at cluster scale: the MacvlanNetworks {@code rdma-net-ipam-lan2..lan5} of
 * test-e2e's seed resources (master lan2..lan5, bridge mode, whereabouts IPAM) with the NetworkAttachmentDefinitions
 * network-operator renders from them, and the whereabouts pools holding one address per bound GPU pod and network.
 *
 * <p>Two shapes, chosen by the cluster's size ({@link #of}):
 * <ul>
 *   <li><b>One IPPool per network</b> while the bound GPU pods fit one IPPool object ({@link #MAX_POOL_ALLOCATIONS}):
 *       each range widened from the seed's /22 to a /16 on 10.4/8/12/16.0.0, gateway .0.1. Offsets are
 *       whereabouts' (from the network address); the k-th bound GPU pod holds offset k+2 in every pool (offset 1 is
 *       the gateway's), on interface {@code net1..net4} in network order.</li>
 *   <li><b>Node slices</b> beyond that (kube-apiserver stores no object over 2 MiB, docs/formats/whereabouts.md §6):
 *       the ranges are /13s on 10.64/72/80/88.0.0 with {@code node_slice_size} /28 and {@code network_name} set to
 *       the network's name, no gateway (whereabouts does not keep a gateway out of a slice); one NodeSlicePool per
 *       network (named after it, in whereabouts' namespace) lists all {@value #SLICES} slices of the range, node i
 *       holding slice i, the rest free, as whereabouts' node-slice controller keeps it; a node with bound GPU pods
 *       has one IPPool per network for its slice, named {@code <network>-<node>-<slice>}, in which its j-th GPU pod
 *       holds offset j+1.</li>
 * </ul>
 */
final class ScaleNetworks {
    /** The widened ranges of the one-pool shape, by network, in {@link ScaleObjects#NETWORKS} order. */
    static final List<String> RANGES = List.of("10.4.0.0/16", "10.8.0.0/16", "10.12.0.0/16", "10.16.0.0/16");
    /** The ranges of the node-slice shape, by network. */
    static final List<String> SLICED_RANGES = List.of("10.64.0.0/13", "10.72.0.0/13", "10.80.0.0/13", "10.88.0.0/13");
    /** {@code node_slice_size} of the node-slice shape: 14 addresses per node (at most 2 GPU pods run on one). */
    static final int SLICE_PREFIX = 28;
    /** Slices of one /13 range at /28: the most nodes the node-slice shape serves. */
    static final int SLICES = 1 << (SLICE_PREFIX - 13);
    /**
     * Allocations one IPPool of this shape can hold: kube-apiserver v1.35 cannot store an object over 2 MiB (its etcd
     * client's default send limit, docs/formats/whereabouts.md §6); 17,050 allocations of this
     * shape were 2,263,863 bytes as stored, so about 15,700 fit; less a margin.
     */
    static final int MAX_POOL_ALLOCATIONS = 15_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final boolean sliced;
    private final int nodes;

    /** One bound GPU pod's addresses: the pod, its node and its offset in that node's pools (or the network's). */
    record Holder(String pod, int node, int offset) {
    }

    ScaleNetworks(boolean sliced, int nodes) {
        this.sliced = sliced;
        this.nodes = nodes;
    }

    /**
     * @param nodes   GPU nodes of the cluster
     * @param holders bound GPU pods, each holding one address per network
     * @return the one-pool shape when the holders fit one IPPool, else the node-slice shape
     * @throws IllegalArgumentException when neither shape serves the cluster (more nodes than {@link #SLICES})
     */
    static ScaleNetworks of(int nodes, int holders) {
        return of(nodes, holders, false);
    }

    /**
     * @param layout the cluster
     * @param force  node slices whatever the size
     * @return the shape for the layout's bound GPU pods ({@link #of(int, int)}), or node slices when forced
     * @throws IllegalArgumentException when the shape cannot serve the cluster
     */
    static ScaleNetworks of(ClusterLayout layout, boolean force) {
        return of(layout.nodes(), layout.boundGangs().stream().mapToInt(g -> g.pods().size()).sum(), force);
    }

    private static ScaleNetworks of(int nodes, int holders, boolean force) {
        if (holders <= MAX_POOL_ALLOCATIONS && !force) {
            return new ScaleNetworks(false, nodes);
        }
        if (nodes > SLICES) {
            throw new IllegalArgumentException(String.format("%,d nodes: more than the %,d node slices of a /13 at /%d "
                    + "this benchmark builds (and %,d bound GPU pods are more than one IPPool per network holds, "
                    + "docs/formats/whereabouts.md §6)", nodes, SLICES, SLICE_PREFIX, holders));
        }
        return new ScaleNetworks(true, nodes);
    }

    /** @return true for the node-slice shape */
    boolean nodeSlices() {
        return sliced;
    }

    /** The ranges in use, by network. */
    List<String> ranges() {
        return sliced ? SLICED_RANGES : RANGES;
    }

    /** The smallest CIDR covering the four ranges (NCCL_IB_ADDR_RANGE of the hints). */
    String addrRange() {
        return sliced ? "10.64.0.0/11" : "10.0.0.0/11";
    }

    /**
     * @param holderIndex the bound GPU pod's index among all of them (0-based)
     * @param indexOnNode its index among the GPU pods of its node (0-based)
     * @return its offset in every pool that holds it
     */
    int offset(int holderIndex, int indexOnNode) {
        return sliced ? indexOnNode + 1 : holderIndex + 2;
    }

    /** Address of offset {@code offset} in network {@code net}'s pool for node {@code node}, as an int. */
    private int address(int net, int node, int offset) {
        String[] octets = ranges().get(net).split("[./]");
        int base = (10 << 24) | (Integer.parseInt(octets[1]) << 16);
        return base + (sliced ? node << (32 - SLICE_PREFIX) : 0) + offset;
    }

    private static String text(int ip) {
        return (ip >>> 24) + "." + ((ip >>> 16) & 0xff) + "." + ((ip >>> 8) & 0xff) + "." + (ip & 0xff);
    }

    /** The slice of node {@code node} in network {@code net}, as whereabouts writes it ({@code 10.64.0.16/28}). */
    String slice(int net, int node) {
        return text(address(net, node, 0)) + "/" + SLICE_PREFIX;
    }

    /** The {@code k8s.v1.cni.cncf.io/network-status} multus writes for a pod holding {@code offset} in every pool. */
    String networkStatus(int node, int offset) {
        ArrayNode a = JSON.createArrayNode();
        ObjectNode primary = a.addObject();
        primary.put("name", "k8s-pod-network");
        primary.putArray("ips").add(String.format("10.244.%d.%d", offset >> 8, offset & 0xff));
        primary.put("default", true);
        primary.putObject("dns");
        for (int n = 0; n < ScaleObjects.NETWORKS.size(); n++) {
            int ip = address(n, node, offset);
            ObjectNode o = a.addObject();
            o.put("name", ClusterLayout.PROD + "/" + ScaleObjects.NETWORKS.get(n));
            o.put("interface", "net" + (n + 1));
            o.putArray("ips").add(text(ip));
            o.put("mac", String.format("02:%02x:%02x:%02x:%02x:%02x", n, (ip >> 24) & 0xff, (ip >> 16) & 0xff,
                    (ip >> 8) & 0xff, ip & 0xff));
            o.putObject("dns");
        }
        return a.toString();
    }

    /** The MacvlanNetworks and NetworkAttachmentDefinitions to create (namespaces must exist), in order. */
    List<HasMetadata> networks(KubernetesClient client) {
        List<HasMetadata> out = new ArrayList<>();
        for (HasMetadata h : SeedWorkloads.macvlanNetworks(client)) {
            GenericKubernetesResource net = (GenericKubernetesResource) h;
            String name = net.getMetadata().getName();
            int index = ScaleObjects.NETWORKS.indexOf(name);
            if (index < 0) {
                throw new IllegalStateException("seed network " + name + " is not one of " + ScaleObjects.NETWORKS);
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> spec = (Map<String, Object>) net.getAdditionalProperties().get("spec");
            try {
                ObjectNode ipam = (ObjectNode) JSON.readTree((String) spec.get("ipam"));
                String range = ranges().get(index);
                ipam.put("range", range);
                if (sliced) {
                    ipam.remove("gateway");
                    ipam.put("node_slice_size", "/" + SLICE_PREFIX);
                    ipam.put("network_name", name);
                } else {
                    ipam.put("gateway", range.replace("0.0/16", "0.1"));
                }
                spec.put("ipam", ipam.toPrettyString());
            } catch (IOException e) {
                throw new UncheckedIOException("seed network " + name + ": spec.ipam is not JSON", e);
            }
            out.add(net);
            out.add(SeedCluster.networkAttachmentDefinition(net));
        }
        return out;
    }

    /**
     * The NodeSlicePools of the node-slice shape (none for the other), status included: whereabouts' controller
     * writes it through the status subresource, so a create alone stores none.
     */
    List<NodeSlicePool> slicePools() {
        List<NodeSlicePool> out = new ArrayList<>();
        if (!sliced) {
            return out;
        }
        for (int n = 0; n < SLICED_RANGES.size(); n++) {
            List<NodeSliceAllocation> slices = new ArrayList<>(SLICES);
            for (int s = 0; s < SLICES; s++) {
                slices.add(new NodeSliceAllocation(s < nodes ? ClusterLayout.nodeName(s) : "", slice(n, s)));
            }
            NodeSlicePool p = new NodeSlicePool();
            p.setMetadata(new ObjectMetaBuilder().withName(ScaleObjects.NETWORKS.get(n))
                    .withNamespace(SeedCluster.WHEREABOUTS_NAMESPACE).build());
            p.setSpec(new NodeSlicePoolSpec(SLICED_RANGES.get(n), "/" + SLICE_PREFIX));
            p.setStatus(new NodeSlicePoolStatus(slices));
            out.add(p);
        }
        return out;
    }

    /**
     * The IPPools holding the given pods' addresses: one per network, or one per network and node that has holders.
     *
     * @param holders every bound GPU pod, with the offset {@link #offset} gave it
     */
    List<IPPool> pools(List<Holder> holders) {
        Map<String, String> rangeByPool = new TreeMap<>();
        Map<String, Map<String, IPAllocation>> allocationsByPool = new TreeMap<>();
        for (int k = 0; k < holders.size(); k++) {
            Holder h = holders.get(k);
            for (int n = 0; n < ranges().size(); n++) {
                String range = sliced ? slice(n, h.node()) : ranges().get(n);
                String name = sliced ? ScaleObjects.NETWORKS.get(n) + "-" + ClusterLayout.nodeName(h.node()) + "-"
                        + range.replace('/', '-') : SeedCluster.poolName(range);
                rangeByPool.put(name, range);
                allocationsByPool.computeIfAbsent(name, x -> new LinkedHashMap<>()).put(Integer.toString(h.offset()),
                        new IPAllocation(String.format("%064x", (long) (k + 2) * 31 + n),
                                ClusterLayout.PROD + "/" + h.pod(), "net" + (n + 1)));
            }
        }
        List<IPPool> out = new ArrayList<>();
        allocationsByPool.forEach((name, allocations) -> {
            IPPool p = new IPPool();
            p.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(SeedCluster.WHEREABOUTS_NAMESPACE)
                    .build());
            p.setSpec(new IPPoolSpec(rangeByPool.get(name), allocations));
            out.add(p);
        });
        return out;
    }

    /**
     * One OverlappingRangeIPReservation per address {@link #pools} allocates, as whereabouts creates them while
     * {@code enable_overlapping_ranges} is on (its default; the seed's networks leave it so): named
     * {@code <network_name>-<address>} (the address alone where the network has no {@code network_name}, the one-pool
     * shape), in whereabouts' namespace, naming the pod and interface (docs/formats/whereabouts.md §1).
     *
     * @param holders every bound GPU pod, with the offset {@link #offset} gave it
     */
    List<OverlappingRangeIPReservation> reservations(List<Holder> holders) {
        List<OverlappingRangeIPReservation> out = new ArrayList<>();
        for (int k = 0; k < holders.size(); k++) {
            Holder h = holders.get(k);
            for (int n = 0; n < ranges().size(); n++) {
                String address = text(address(n, h.node(), h.offset()));
                OverlappingRangeIPReservation r = new OverlappingRangeIPReservation();
                r.setMetadata(new ObjectMetaBuilder().withName(sliced ? ScaleObjects.NETWORKS.get(n) + "-" + address
                        : address).withNamespace(SeedCluster.WHEREABOUTS_NAMESPACE).build());
                r.setSpec(new OverlappingRangeIPReservationSpec(String.format("%064x", (long) (k + 2) * 31 + n),
                        ClusterLayout.PROD + "/" + h.pod(), "net" + (n + 1)));
                out.add(r);
            }
        }
        return out;
    }

    /** Names of the networks and the shape, for reports. */
    List<String> describe() {
        List<String> out = new ArrayList<>();
        for (int n = 0; n < ranges().size(); n++) {
            out.add(ScaleObjects.NETWORKS.get(n) + " " + ranges().get(n)
                    + (sliced ? " node slices /" + SLICE_PREFIX : " one IPPool"));
        }
        return out;
    }
}
