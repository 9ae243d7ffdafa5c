package dev.railyard.benchmarks.scale;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.railyard.api.whereabouts.IPAllocation;
import dev.railyard.api.whereabouts.IPPool;
import dev.railyard.api.whereabouts.IPPoolSpec;
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

/**
 * The seed's four RDMA networks at cluster scale: the MacvlanNetworks {@code rdma-net-ipam-lan2..lan5} of
 * test-e2e's seed resources (master lan2..lan5, bridge mode, whereabouts IPAM) with the NetworkAttachmentDefinitions
 * network-operator renders from them, and one whereabouts IPPool per network holding one address per bound GPU pod.
 *
 * <p>The only change to the seed: each range is widened from a /22 (1,022 addresses, which about 1,200 nodes' GPU
 * pods would exhaust) to a /16 on 10.4/8/12/16.0.0, gateway .0.1, so that every N in the benchmark uses the same
 * pools. Offsets are whereabouts' (1-based from the network address, lowest first); the k-th bound GPU pod holds
 * offset k+1 in every pool (offset 1 is the gateway's, never handed out by whereabouts when it is the gateway; here
 * it is simply skipped), on interface {@code net1..net4} in network order.
 */
final class ScaleNetworks {
    /** The widened ranges, by network, in {@link ScaleObjects#NETWORKS} order. */
    static final List<String> RANGES = List.of("10.4.0.0/16", "10.8.0.0/16", "10.12.0.0/16", "10.16.0.0/16");
    /** Addresses a /16 range offers whereabouts (network+1 .. broadcast−1). */
    static final int USABLE = 65_534;
    /**
     * Allocations one IPPool of this shape can hold: kube-apiserver v1.35 cannot store an object over 2 MiB (its etcd
     * client's default send limit, docs/formats/whereabouts.md §6); 17,050 allocations of this
     * shape were 2,263,863 bytes as stored, so about 15,700 fit; less a margin.
     */
    static final int MAX_POOL_ALLOCATIONS = 15_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The smallest CIDR covering the four ranges (NCCL_IB_ADDR_RANGE of the hints). */
    String addrRange() {
        return "10.0.0.0/11";
    }

    /** Address of whereabouts offset {@code offset} in range {@code net}. */
    static String address(int net, int offset) {
        int second = Integer.parseInt(RANGES.get(net).split("\\.")[1]);
        return "10." + second + "." + (offset >> 8) + "." + (offset & 0xff);
    }

    /** The {@code k8s.v1.cni.cncf.io/network-status} multus writes for a pod holding {@code offset} in every pool. */
    String networkStatus(int offset) {
        ArrayNode a = JSON.createArrayNode();
        ObjectNode primary = a.addObject();
        primary.put("name", "k8s-pod-network");
        primary.putArray("ips").add(String.format("10.244.%d.%d", offset >> 8, offset & 0xff));
        primary.put("default", true);
        primary.putObject("dns");
        for (int n = 0; n < ScaleObjects.NETWORKS.size(); n++) {
            ObjectNode o = a.addObject();
            o.put("name", ClusterLayout.PROD + "/" + ScaleObjects.NETWORKS.get(n));
            o.put("interface", "net" + (n + 1));
            o.putArray("ips").add(address(n, offset));
            o.put("mac", String.format("02:%02x:%02x:%02x:%02x:%02x", n, (offset >> 16) & 0xff, (offset >> 8) & 0xff,
                    offset & 0xff, 7));
            o.putObject("dns");
        }
        return a.toString();
    }

    /** Creates the MacvlanNetworks and NetworkAttachmentDefinitions (namespaces must exist). */
    void createNetworks(KubernetesClient client) {
        List<HasMetadata> seed = SeedWorkloads.macvlanNetworks(client);
        for (int n = 0; n < seed.size(); n++) {
            GenericKubernetesResource net = (GenericKubernetesResource) seed.get(n);
            String name = net.getMetadata().getName();
            int index = ScaleObjects.NETWORKS.indexOf(name);
            if (index < 0) {
                throw new IllegalStateException("seed network " + name + " is not one of " + ScaleObjects.NETWORKS);
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> spec = (Map<String, Object>) net.getAdditionalProperties().get("spec");
            try {
                ObjectNode ipam = (ObjectNode) JSON.readTree((String) spec.get("ipam"));
                ipam.put("range", RANGES.get(index));
                ipam.put("gateway", RANGES.get(index).replace("0.0/16", "0.1"));
                spec.put("ipam", ipam.toPrettyString());
            } catch (IOException e) {
                throw new UncheckedIOException("seed network " + name + ": spec.ipam is not JSON", e);
            }
            client.resource(net).create();
            client.resource(SeedCluster.networkAttachmentDefinition(net)).create();
        }
    }

    /**
     * Creates one IPPool per network holding offsets 2..holders+1 for the given pods, in order.
     *
     * @param holders pod names ({@code prod/<name>}), the k-th holds offset k+2
     * @throws IllegalArgumentException when more pods than one IPPool holds ({@link #checkFits})
     */
    void createPools(KubernetesClient client, List<String> holders) {
        checkFits(holders.size());
        for (int n = 0; n < RANGES.size(); n++) {
            Map<String, IPAllocation> alloc = new LinkedHashMap<>();
            for (int k = 0; k < holders.size(); k++) {
                alloc.put(Integer.toString(k + 2), new IPAllocation(String.format("%064x", (long) (k + 2) * 31 + n),
                        ClusterLayout.PROD + "/" + holders.get(k), "net" + (n + 1)));
            }
            IPPool pool = new IPPool();
            pool.setMetadata(new ObjectMetaBuilder().withName(SeedCluster.poolName(RANGES.get(n)))
                    .withNamespace(SeedCluster.WHEREABOUTS_NAMESPACE).build());
            pool.setSpec(new IPPoolSpec(RANGES.get(n), alloc));
            client.resources(IPPool.class).resource(pool).create();
        }
    }

    /**
     * @param holders bound GPU pods, each holding one address per network
     * @throws IllegalArgumentException when one IPPool per network cannot hold them: more than
     *                                  {@link #MAX_POOL_ALLOCATIONS} (far fewer than the /16's {@link #USABLE})
     */
    static void checkFits(int holders) {
        if (holders > MAX_POOL_ALLOCATIONS) {
            throw new IllegalArgumentException(String.format("%,d bound GPU pods would hold addresses in one IPPool "
                    + "per network, more than the %,d one IPPool object can hold (kube-apiserver stores no object "
                    + "over 2 MiB; docs/formats/whereabouts.md): a cluster this size needs whereabouts node slices, "
                    + "which this benchmark does not build", holders, MAX_POOL_ALLOCATIONS));
        }
    }

    /** Offset of the k-th bound GPU pod (0-based) in every pool. */
    static int offset(int k) {
        return k + 2;
    }

    /** Names of the networks, for reports. */
    static List<String> describe() {
        List<String> out = new ArrayList<>();
        for (int n = 0; n < RANGES.size(); n++) {
            out.add(ScaleObjects.NETWORKS.get(n) + " " + RANGES.get(n));
        }
        return out;
    }
}
