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
 * @param ncclVersion the NCCL release the {@code nccl} settings are written for ({@link NcclVersion}, from the job's
 *                 {@value HintAnnotations#NCCL_VERSION}); null, and absent from the JSON, for the syntax every release
 *                 accepts (JSON {@code "ncclVersion"}, optional in version 1)
 * @param nvlink   the pod's NVLink domain and the gang ranks in it ({@link NvlinkPeers}); null, and absent from the
 *                 JSON, when the node is in no NVLink domain (JSON {@code "nvlink"}, optional in version 1)
 */
@JsonPropertyOrder({"version", "node", "gang", "gangSize", "rank", "fabric", "gpus", "nccl", "nodeGpus",
        "railChoice", "ncclVersion", "nvlink"})
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
                            RailChoice railChoice,
                            @JsonProperty("ncclVersion") @JsonInclude(JsonInclude.Include.NON_NULL)
                            String ncclVersion,
                            @JsonProperty("nvlink") @JsonInclude(JsonInclude.Include.NON_NULL)
                            NvlinkPeers nvlink) {
    /** The schema version this class writes. */
    public static final int VERSION = 1;

    public PlacementHint {
        fabric = fabric == null ? List.of() : List.copyOf(fabric);
        gpus = gpus == null ? List.of() : List.copyOf(gpus);
        nodeGpus = nodeGpus == null ? List.of() : List.copyOf(nodeGpus);
    }

    /** A hint without a declared NCCL version or NVLink domain. */
    public PlacementHint(int version, String node, String gang, int gangSize, Integer rank, List<RailLeaf> fabric,
                         List<GpuHint> gpus, NcclSettings nccl, List<GpuHint> nodeGpus, RailChoice railChoice) {
        this(version, node, gang, gangSize, rank, fabric, gpus, nccl, nodeGpus, railChoice, null, null);
    }

    /** @return a copy with other NCCL settings written for {@code version} (null: every release) */
    public PlacementHint withNccl(NcclSettings settings, String version) {
        return new PlacementHint(this.version, node, gang, gangSize, rank, fabric, gpus, settings, nodeGpus,
                railChoice, version, nvlink);
    }

    /** @return a copy with the NVLink domain and peers (null: none) */
    public PlacementHint withNvlink(NvlinkPeers peers) {
        return new PlacementHint(version, node, gang, gangSize, rank, fabric, gpus, nccl, nodeGpus, railChoice,
                ncclVersion, peers);
    }

    /**
     * The pod's NVLink domain (GPU feature discovery's {@code nvidia.com/gpu.clique}: {@code <cluster UUID>.<clique
     * id>}, or a HyperNode carrying it) and who else of the gang is in it. Ranks in one domain exchange data over
     * NVLink through the NVLink switches (NCCL's multi-node NVLink, given an IMEX domain), not over RDMA.
     *
     * <p>JSON example: {@code {"domain":"8d2c6f0e-...-7a1b.32766","ranks":[0,1,2,3],"peers":4}}
     *
     * @param domain the NVLink domain
     * @param ranks  ranks of the gang on nodes of that domain, this pod's included, ascending; empty when the ranks
     *               are not known (a hint written outside the gang plan, or {@code rank-order: none})
     * @param peers  pods of the gang in that domain, this pod included; null, and absent from the JSON, when not
     *               known (a hint written outside the gang plan)
     */
    @JsonPropertyOrder({"domain", "ranks", "peers"})
    public record NvlinkPeers(@JsonProperty("domain") String domain,
                              @JsonProperty("ranks") List<Integer> ranks,
                              @JsonProperty("peers") @JsonInclude(JsonInclude.Include.NON_NULL) Integer peers) {
        public NvlinkPeers {
            ranks = ranks == null ? List.of() : List.copyOf(ranks);
        }
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
     * @param plane     the HCA's network plane where known (multi-plane NICs; NCCL ≥ 2.30 {@code <plane>}), else
     *                  null and absent from the JSON
     */
    @JsonPropertyOrder({"gpu", "uuid", "pciBusId", "hca", "port", "netdev", "rail", "distance", "network", "interface",
            "plane"})
    public record GpuHint(@JsonProperty("gpu") int gpu,
                          @JsonProperty("uuid") String uuid,
                          @JsonProperty("pciBusId") String pciBusId,
                          @JsonProperty("hca") String hca,
                          @JsonProperty("port") int port,
                          @JsonProperty("netdev") String netdev,
                          @JsonProperty("rail") int rail,
                          @JsonProperty("distance") PcieDistance distance,
                          @JsonProperty("network") String network,
                          @JsonProperty("interface") String iface,
                          @JsonProperty("plane") @JsonInclude(JsonInclude.Include.NON_NULL) Integer plane) {
        /** A GPU whose HCA's plane is unknown. */
        public GpuHint(int gpu, String uuid, String pciBusId, String hca, int port, String netdev, int rail,
                       PcieDistance distance, String network, String iface) {
            this(gpu, uuid, pciBusId, hca, port, netdev, rail, distance, network, iface, null);
        }
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
     * @param netGdrLevel {@code NCCL_NET_GDR_LEVEL}: set only when a pair is farther than PXB and not P2C, to the
     *                    farthest class ({@code PHB} or {@code SYS}; NCCL has no NODE class and calls it PHB)
     * @param netGdrC2c   {@code NCCL_NET_GDR_C2C}: {@code 1} when a pair is P2C (GPU on NVLink-C2C, NIC on the same
     *                    CPU), so NCCL 2.26 uses GPUDirect RDMA there as 2.27+ does by default; else null
     * @param netMergePolicy {@code NCCL_NET_MERGE_POLICY}: {@code RAIL} with the NCCL ≥ 2.30.5 syntax (HCAs are
     *                    merged into virtual NICs only within one rail), else null
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonPropertyOrder({"NCCL_IB_HCA", "NCCL_SOCKET_IFNAME", "NCCL_IB_ADDR_RANGE", "NCCL_IB_ADDR_FAMILY",
            "NCCL_NET_GDR_LEVEL", "NCCL_NET_GDR_C2C", "NCCL_NET_MERGE_POLICY"})
    public record NcclSettings(@JsonProperty("NCCL_IB_HCA") String ibHca,
                               @JsonProperty("NCCL_SOCKET_IFNAME") String socketIfname,
                               @JsonProperty("NCCL_IB_ADDR_RANGE") String ibAddrRange,
                               @JsonProperty("NCCL_IB_ADDR_FAMILY") String ibAddrFamily,
                               @JsonProperty("NCCL_NET_GDR_LEVEL") String netGdrLevel,
                               @JsonProperty("NCCL_NET_GDR_C2C") String netGdrC2c,
                               @JsonProperty("NCCL_NET_MERGE_POLICY") String netMergePolicy) {
        /** Settings without the C2C and merge-policy variables. */
        public NcclSettings(String ibHca, String socketIfname, String ibAddrRange, String ibAddrFamily,
                            String netGdrLevel) {
            this(ibHca, socketIfname, ibAddrRange, ibAddrFamily, netGdrLevel, null, null);
        }

        /** @return the settings as environment variables in a stable order, nulls left out */
        public Map<String, String> asEnvironment() {
            Map<String, String> env = new LinkedHashMap<>();
            put(env, "NCCL_IB_HCA", ibHca);
            put(env, "NCCL_SOCKET_IFNAME", socketIfname);
            put(env, "NCCL_IB_ADDR_RANGE", ibAddrRange);
            put(env, "NCCL_IB_ADDR_FAMILY", ibAddrFamily);
            put(env, "NCCL_NET_GDR_LEVEL", netGdrLevel);
            put(env, "NCCL_NET_GDR_C2C", netGdrC2c);
            put(env, "NCCL_NET_MERGE_POLICY", netMergePolicy);
            return env;
        }

        private static void put(Map<String, String> env, String key, String value) {
            if (value != null) {
                env.put(key, value);
            }
        }
    }
}
