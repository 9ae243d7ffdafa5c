package dev.railyard.scheduler.cluster;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.railyard.api.topology.DiscoverySource;
import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaDistance;
import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.HcaPort;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.PcieDistance;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Small hand-written Kubernetes objects in generic form, as a snapshot file or an informer would give them. */
public final class ClusterFixtures {
    private static final ObjectMapper RECORDS = JsonMapper.builder()
            .disable(MapperFeature.AUTO_DETECT_IS_GETTERS)
            .serializationInclusion(JsonInclude.Include.NON_NULL).build();

    private ClusterFixtures() {
    }

    /** @return an object of the kind with metadata and the given top-level fields */
    public static GenericKubernetesResource object(WatchedKind kind, String namespace, String name,
                                                   Map<String, String> labels, Map<String, String> annotations,
                                                   Map<String, Object> fields) {
        GenericKubernetesResource r = new GenericKubernetesResource();
        r.setApiVersion(kind.apiVersion());
        r.setKind(kind.kind());
        // pods get the UID the tests' requests name ("uid-" + name): bind and allocateFunc check it
        r.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name)
                .withUid(kind.equals(WatchedKind.POD) ? "uid-" + name : null)
                .withLabels(labels == null ? null : new LinkedHashMap<>(labels))
                .withAnnotations(annotations == null ? null : new LinkedHashMap<>(annotations)).build());
        if (fields != null) {
            fields.forEach(r::setAdditionalProperty);
        }
        return r;
    }

    /** @return a ready Node advertising {@code nvidia.com/gpu: 8} and the given RDMA resources */
    public static GenericKubernetesResource node(String name, Map<String, String> labels, Map<String, String> rdma) {
        Map<String, Object> alloc = new LinkedHashMap<>();
        alloc.put("nvidia.com/gpu", "8");
        alloc.putAll(rdma);
        return object(WatchedKind.NODE, null, name, labels, null, Map.of("status", Map.of("allocatable", alloc,
                "conditions", List.of(Map.of("type", "Ready", "status", "True")))));
    }

    /** @return a NodeTopology with the spec and, when {@code status} is not null, that status (as a map) */
    public static GenericKubernetesResource topology(String name, NodeTopologySpec spec, Map<String, Object> status) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("spec", RECORDS.convertValue(spec, Map.class));
        if (status != null) {
            fields.put("status", status);
        }
        return object(WatchedKind.NODE_TOPOLOGY, null, name, null, null, fields);
    }

    /**
     * The seed machine's shape: 8 GPUs and 4 HCAs mlx5_0..3 on netdevs lan2..lan5; GPUs 2k and 2k+1 are PIX to mlx5_k
     * (rail k), NODE to the other HCA of their socket (GPUs 0–3 with mlx5_0,1; 4–7 with mlx5_2,3), SYS across.
     */
    public static NodeTopologySpec seedShape() {
        List<Gpu> gpus = new ArrayList<>();
        List<Hca> hcas = new ArrayList<>();
        List<GpuHcaDistance> ds = new ArrayList<>();
        List<GpuHcaPair> pairs = new ArrayList<>();
        for (int h = 0; h < 4; h++) {
            hcas.add(new Hca("mlx5_" + h, null, h / 2, List.of(new HcaPort(1, "Ethernet", "ACTIVE", 400,
                    List.of("lan" + (h + 2)), null)), null, null));
        }
        for (int g = 0; g < 8; g++) {
            gpus.add(new Gpu(g, null, null, g / 4, null, List.of(), null));
            for (int h = 0; h < 4; h++) {
                PcieDistance d = g / 2 == h ? PcieDistance.PIX : g / 4 == h / 2 ? PcieDistance.NODE : PcieDistance.SYS;
                ds.add(new GpuHcaDistance(g, "mlx5_" + h, d));
            }
            pairs.add(new GpuHcaPair(g, "mlx5_" + g / 2, PcieDistance.PIX, g / 2));
        }
        return new NodeTopologySpec(DiscoverySource.NVIDIA_SMI, true, List.of(), gpus, hcas, List.of(), List.of(), ds,
                pairs, List.of());
    }

    /** @return a pod with one container requesting {@code resources}; bound when {@code node} is not null */
    public static GenericKubernetesResource pod(String namespace, String name, String node,
                                                Map<String, String> annotations, Map<String, Object> resources) {
        return pod(namespace, name, node, null, annotations, resources);
    }

    /** @return a pod with labels and one container requesting {@code resources}; bound when {@code node} is set */
    public static GenericKubernetesResource pod(String namespace, String name, String node, Map<String, String> labels,
                                                Map<String, String> annotations, Map<String, Object> resources) {
        Map<String, Object> container = new LinkedHashMap<>();
        container.put("name", "main");
        container.put("resources", Map.of("requests", resources, "limits", resources));
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("containers", List.of(container));
        if (node != null) {
            spec.put("nodeName", node);
        }
        return object(WatchedKind.POD, namespace, name, labels, annotations, Map.of("spec", spec,
                "status", Map.of("phase", node == null ? "Pending" : "Running")));
    }

    /** @return a macvlan NetworkAttachmentDefinition with a whereabouts range */
    public static GenericKubernetesResource nad(String namespace, String name, String master, String range) {
        return whereaboutsNad(namespace, name, master, "\"range\":\"" + range + "\"");
    }

    /**
     * @return a macvlan NetworkAttachmentDefinition on {@code master} whose whereabouts IPAM has the given members
     *         ({@code "range":"10.20.0.0/26","node_slice_size":"/28"}: JSON object members, without braces)
     */
    public static GenericKubernetesResource whereaboutsNad(String namespace, String name, String master,
                                                           String ipamMembers) {
        String config = "{\"cniVersion\":\"0.3.1\",\"name\":\"" + name + "\",\"type\":\"macvlan\",\"master\":\""
                + master + "\",\"mode\":\"bridge\",\"ipam\":{\"type\":\"whereabouts\"," + ipamMembers + "}}";
        return object(WatchedKind.NETWORK_ATTACHMENT_DEFINITION, namespace, name, null, null,
                Map.of("spec", Map.of("config", config)));
    }

    /**
     * @return a network-operator MacvlanNetwork (cluster-scoped) rendering into {@code networkNamespace}, with
     *         {@code spec.ipam} as given (raw text, as the operator takes it) and, when {@code state} is not null, a
     *         status with that state and {@code reason}
     */
    public static GenericKubernetesResource macvlanNetwork(String name, String networkNamespace, String master,
                                                           String ipam, String state, String reason) {
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("networkNamespace", networkNamespace);
        spec.put("master", master);
        spec.put("mode", "bridge");
        spec.put("mtu", 1500);
        spec.put("ipam", ipam);
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("spec", spec);
        if (state != null) {
            Map<String, Object> status = new LinkedHashMap<>();
            status.put("state", state);
            if (reason != null) {
                status.put("reason", reason);
            }
            fields.put("status", status);
        }
        return object(WatchedKind.MACVLAN_NETWORK, null, name, null, null, fields);
    }

    /**
     * @return a whereabouts OverlappingRangeIPReservation: {@code name} is the address it reserves, prefixed
     *         {@code <network_name>-} when the network has one (docs/formats/whereabouts.md §1)
     */
    public static GenericKubernetesResource reservation(String namespace, String name, String podref) {
        return object(WatchedKind.OVERLAPPING_RANGE_RESERVATION, namespace, name, null, null,
                Map.of("spec", Map.of("podref", podref, "ifname", "net1")));
    }

    /**
     * @return a whereabouts NodeSlicePool of {@code range} cut into {@code sliceSize} slices; {@code slices} maps each
     *         slice CIDR to its node ({@code ""} for a free slice), in the order of {@code status.allocations}
     */
    public static GenericKubernetesResource nodeSlicePool(String namespace, String name, String range,
                                                          String sliceSize, Map<String, String> slices) {
        List<Object> allocations = new ArrayList<>();
        slices.forEach((slice, node) -> allocations.add(Map.of("nodeName", node, "sliceRange", slice)));
        return object(WatchedKind.NODE_SLICE_POOL, namespace, name, null, null, Map.of(
                "spec", Map.of("range", range, "sliceSize", sliceSize),
                "status", Map.of("allocations", allocations)));
    }

    /** @return an IPPool; {@code podrefs[i]} holds offset i+1 */
    public static GenericKubernetesResource ipPool(String namespace, String name, String range, List<String> podrefs) {
        Map<String, Object> alloc = new LinkedHashMap<>();
        for (int i = 0; i < podrefs.size(); i++) {
            alloc.put(Integer.toString(i + 1), Map.of("id", "c" + (i + 1), "podref", podrefs.get(i),
                    "ifname", "net1"));
        }
        return object(WatchedKind.IP_POOL, namespace, name, null, null,
                Map.of("spec", Map.of("range", range, "allocations", alloc)));
    }

    /** @return a Volcano PodGroup */
    public static GenericKubernetesResource podGroup(String namespace, String name, int minMember,
                                                     Map<String, String> annotations) {
        return object(WatchedKind.POD_GROUP, namespace, name, null, annotations,
                Map.of("spec", Map.of("minMember", minMember)));
    }

    /** @return a scheduler-plugins coscheduling PodGroup ({@code scheduling.x-k8s.io/v1alpha1}) */
    public static GenericKubernetesResource coschedulingGroup(String namespace, String name, int minMember,
                                                              Map<String, String> annotations) {
        return object(WatchedKind.COSCHEDULING_POD_GROUP, namespace, name, null, annotations,
                Map.of("spec", Map.of("minMember", minMember)));
    }

    /** @return the objects as one snapshot */
    public static ClusterObjects objects(List<GenericKubernetesResource> all) {
        Map<WatchedKind, List<GenericKubernetesResource>> byKind = new LinkedHashMap<>();
        for (WatchedKind k : WatchedKind.ALL) {
            byKind.put(k, new ArrayList<>());
        }
        for (GenericKubernetesResource r : all) {
            WatchedKind k = SnapshotDirectory.classify(r.getApiVersion(), r.getKind());
            byKind.get(k).add(r);
        }
        return new ClusterObjects(Instant.parse("2026-09-01T00:00:00Z"), 1, byKind, Set.of(), true);
    }

    /**
     * A {@code railyard.dev/placement} hint in the seed shape (GPU g on mlx5_(g/2) port 1, rail g/2, PIX) for
     * {@code gpus} on {@code node}, naming {@code gang} (namespace/name) with its size and this pod's rank.
     */
    public static String seedHint(String gang, String node, int gangSize, int rank, int... gpus) {
        StringBuilder b = new StringBuilder("{\"version\":1,\"node\":\"" + node + "\",\"gang\":\"" + gang
                + "\",\"gangSize\":" + gangSize + ",\"rank\":" + rank + ",\"gpus\":[");
        for (int i = 0; i < gpus.length; i++) {
            b.append(i == 0 ? "" : ",").append("{\"gpu\":").append(gpus[i]).append(",\"hca\":\"mlx5_")
                    .append(gpus[i] / 2).append("\",\"port\":1,\"rail\":").append(gpus[i] / 2)
                    .append(",\"distance\":\"PIX\"}");
        }
        return b.append("]}").toString();
    }
}
