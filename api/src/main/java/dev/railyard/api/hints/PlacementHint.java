package dev.railyard.api.hints;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.railyard.api.topology.PcieDistance;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code railyard.dev/placement} annotation: where a pod was placed and how its workload should use the node's
 * GPUs and HCAs. Serialised as JSON with the property names below; {@link #version} is {@value #VERSION} and a
 * reader must ignore a hint whose version it does not know.
 *
 * <p>Example (one GPU shown):
 * <pre>{@code
 * {"version":1,"node":"gpu-a1","gang":"prod/rdma-test","gangSize":1,"rank":0,
 *  "fabric":[{"rail":0,"leaf":"su1-leaf-r0"}],
 *  "gpus":[{"gpu":0,"uuid":null,"pciBusId":null,"hca":"mlx5_0","port":1,"netdev":"lan2","rail":0,
 *           "distance":"PIX","network":"prod/rdma-net-ipam-lan2","interface":"net1"}],
 *  "nccl":{"NCCL_IB_HCA":"=mlx5_0:1","NCCL_SOCKET_IFNAME":"=eth0","NCCL_IB_ADDR_RANGE":"192.168.4.0/22",
 *          "NCCL_IB_ADDR_FAMILY":"AF_INET"}}
 * }</pre>
 *
 * @param version  schema version, {@value #VERSION}
 * @param node     node name
 * @param gang     {@code namespace/name} of the PodGroup or job
 * @param gangSize pods in the gang
 * @param rank     0-based rank (consecutive ranks share switches), or null with {@code rank-order: none}
 * @param fabric   the leaf switch of each rail the pod uses; empty when the cluster has no fabric data
 * @param gpus     one entry per GPU, in local-rank order (local rank = list position)
 * @param nccl     recommended NCCL environment
 * @param nodeGpus the node's rail map: every GPU of the node with its own HCA pair (same fields as {@code gpus};
 *                 {@code network}/{@code interface} set where the pod attaches to that HCA's netdev), in GPU index
 *                 order, so that {@code railyard env} can re-pair when the device plugin gave the pod other GPUs
 *                 than planned; empty when the writer left it out (JSON {@code "nodeGpus"}, optional in version 1)
 * @param railChoice how the GPUs were chosen when the pod is not on the node its gang plan gave it (see
 *                 {@link RailChoice}); null, and absent from the JSON, when the hint is the plan's own entry for the
 *                 pod (JSON {@code "railChoice"}, optional in version 1)
 */
@JsonPropertyOrder({"version", "node", "gang", "gangSize", "rank", "fabric", "gpus", "nccl", "nodeGpus",
        "railChoice"})
public record PlacementHint(@JsonProperty("version") int version,
                            @JsonProperty("node") String node,
                            @JsonProperty("gang") String gang,
                            @JsonProperty("gangSize") int gangSize,
                            @JsonProperty("rank") Integer rank,
                            @JsonProperty("fabric") List<RailLeaf> fabric,
                            @JsonProperty("gpus") List<GpuHint> gpus,
                            @JsonProperty("nccl") NcclSettings nccl,
                            @JsonProperty("nodeGpus") List<GpuHint> nodeGpus,
                            @JsonProperty("railChoice") @JsonInclude(JsonInclude.Include.NON_NULL)
                            RailChoice railChoice) {
    /** The schema version this class writes. */
    public static final int VERSION = 1;

    public PlacementHint {
        fabric = fabric == null ? List.of() : List.copyOf(fabric);
        gpus = gpus == null ? List.of() : List.copyOf(gpus);
        nodeGpus = nodeGpus == null ? List.of() : List.copyOf(nodeGpus);
    }

    /** A hint that follows the gang plan ({@link #railChoice} null). */
    public PlacementHint(int version, String node, String gang, int gangSize, Integer rank, List<RailLeaf> fabric,
                         List<GpuHint> gpus, NcclSettings nccl, List<GpuHint> nodeGpus) {
        this(version, node, gang, gangSize, rank, fabric, gpus, nccl, nodeGpus, null);
    }

    /** A hint without the node's rail map ({@link #nodeGpus} empty). */
    public PlacementHint(int version, String node, String gang, int gangSize, Integer rank, List<RailLeaf> fabric,
                         List<GpuHint> gpus, NcclSettings nccl) {
        this(version, node, gang, gangSize, rank, fabric, gpus, nccl, List.of(), null);
    }

    /**
     * Written when a pod is bound to another node than its gang plan gave it, or the plan does not cover it (a
     * scheduler chose differently, the plan changed, or the hint is written after the bind): the GPUs are then
     * chosen on the bound node, keeping the gang's rail set when that node can offer it, so GPUs of equal local
     * rank still share a rail across the gang.
     *
     * <p>JSON example: {@code {"source":"node-best","plannedNode":"gpu-b1","gangRails":"2,2,3,3",
     * "reason":"bound to gpu-d1, not the planned gpu-b1; gpu-d1 cannot offer the gang's rail set {2×2,3×2}: ..."}}
     *
     * @param source      {@value #GANG_RAILS}: the gang's rail set kept (aligned with the gang);
     *                    {@value #NODE_BEST}: the node's best pairing, which may not line up with the gang's rails
     * @param plannedNode the node the gang plan gave the pod, or null when no plan covered it
     * @param gangRails   the gang's rail set as rail indices in local-rank order ({@code 2,2,3,3}, like
     *                    {@code railyard.dev/rails}), or null when none is known
     * @param reason      one line for people: why the pod is off its plan and why this choice
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonPropertyOrder({"source", "plannedNode", "gangRails", "reason"})
    public record RailChoice(@JsonProperty("source") String source,
                             @JsonProperty("plannedNode") String plannedNode,
                             @JsonProperty("gangRails") String gangRails,
                             @JsonProperty("reason") String reason) {
        /** {@link #source}: the GPUs keep the gang's rail set on the bound node. */
        public static final String GANG_RAILS = "gang-rails";
        /** {@link #source}: the bound node cannot offer the gang's rail set; its best pairing is used. */
        public static final String NODE_BEST = "node-best";

        /** @return true when the pod's rails line up with the gang's ({@link #source} is {@value #GANG_RAILS}) */
        public boolean aligned() {
            return GANG_RAILS.equals(source);
        }
    }

    /**
     * The leaf switch one rail of the pod attaches to.
     *
     * @param rail rail index
     * @param leaf leaf switch (tier-1 domain) name
     */
    public record RailLeaf(@JsonProperty("rail") int rail, @JsonProperty("leaf") String leaf) {
    }

    /**
     * One GPU of the pod and the HCA it sends through.
     *
     * @param gpu       NVML index on the node
     * @param uuid      {@code GPU-...} UUID, or null when discovery did not give it
     * @param pciBusId  sysfs-form bus id, or null
     * @param hca       RDMA device name ({@code mlx5_0})
     * @param port      HCA port number (1-based)
     * @param netdev    host netdev of that port ({@code lan2}), or null when unknown
     * @param rail      rail index of the HCA
     * @param distance  PCIe distance class of the GPU–HCA pair
     * @param network   {@code namespace/name} of the pod's network attached on that netdev, or null
     * @param iface     pod interface of that network ({@code net1}), or null
     */
    @JsonPropertyOrder({"gpu", "uuid", "pciBusId", "hca", "port", "netdev", "rail", "distance", "network", "interface"})
    public record GpuHint(@JsonProperty("gpu") int gpu,
                          @JsonProperty("uuid") String uuid,
                          @JsonProperty("pciBusId") String pciBusId,
                          @JsonProperty("hca") String hca,
                          @JsonProperty("port") int port,
                          @JsonProperty("netdev") String netdev,
                          @JsonProperty("rail") int rail,
                          @JsonProperty("distance") PcieDistance distance,
                          @JsonProperty("network") String network,
                          @JsonProperty("interface") String iface) {
    }

    /**
     * Recommended NCCL environment (NCCL user guide, "Environment Variables"). Null values are omitted.
     *
     * @param ibHca       {@code NCCL_IB_HCA}: exact list {@code =mlx5_0:1,mlx5_1:1} (the {@code =} prefix makes NCCL
     *                    match names exactly, so {@code mlx5_1} does not also select {@code mlx5_10})
     * @param socketIfname {@code NCCL_SOCKET_IFNAME}: bootstrap interface ({@code =eth0})
     * @param ibAddrRange {@code NCCL_IB_ADDR_RANGE}: smallest CIDR covering the pod's rail subnets, so NCCL's automatic
     *                    GID selection picks the pod's own RoCE v2 address
     * @param ibAddrFamily {@code NCCL_IB_ADDR_FAMILY}: {@code AF_INET} or {@code AF_INET6}
     * @param netGdrLevel {@code NCCL_NET_GDR_LEVEL}: set only when a pair is farther than PXB, to the farthest class
     *                    ({@code PHB} or {@code SYS}; NCCL has no NODE class and calls it PHB)
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonPropertyOrder({"NCCL_IB_HCA", "NCCL_SOCKET_IFNAME", "NCCL_IB_ADDR_RANGE", "NCCL_IB_ADDR_FAMILY",
            "NCCL_NET_GDR_LEVEL"})
    public record NcclSettings(@JsonProperty("NCCL_IB_HCA") String ibHca,
                               @JsonProperty("NCCL_SOCKET_IFNAME") String socketIfname,
                               @JsonProperty("NCCL_IB_ADDR_RANGE") String ibAddrRange,
                               @JsonProperty("NCCL_IB_ADDR_FAMILY") String ibAddrFamily,
                               @JsonProperty("NCCL_NET_GDR_LEVEL") String netGdrLevel) {
        /** @return the settings as environment variables in a stable order, nulls left out */
        public Map<String, String> asEnvironment() {
            Map<String, String> env = new LinkedHashMap<>();
            put(env, "NCCL_IB_HCA", ibHca);
            put(env, "NCCL_SOCKET_IFNAME", socketIfname);
            put(env, "NCCL_IB_ADDR_RANGE", ibAddrRange);
            put(env, "NCCL_IB_ADDR_FAMILY", ibAddrFamily);
            put(env, "NCCL_NET_GDR_LEVEL", netGdrLevel);
            return env;
        }

        private static void put(Map<String, String> env, String key, String value) {
            if (value != null) {
                env.put(key, value);
            }
        }
    }
}
