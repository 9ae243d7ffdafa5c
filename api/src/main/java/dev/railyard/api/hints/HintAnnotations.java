package dev.railyard.api.hints;

import java.util.List;

/**
 * Annotation keys under {@code railyard.dev/}: the hints a job author sets (read from the Volcano Job, the PodGroup
 * or the pod; the most specific wins: pod, then PodGroup, then Job) and the placement hints Railyard writes onto a
 * pod at bind time.
 *
 * <p>Job-author hints (inputs):
 * <table>
 *   <caption>input keys</caption>
 *   <tr><th>key</th><th>values</th><th>default</th></tr>
 *   <tr><td>{@value #GPU_HCA_AFFINITY}</td><td>{@code required | preferred | ignore}</td><td>{@code required}</td></tr>
 *   <tr><td>{@value #GPU_HCA_MAX_DISTANCE}</td><td>{@code PIX | PXB | PHB | NODE | SYS}</td><td>{@code PXB}
 *       (NCCL uses GPUDirect RDMA only up to PXB by default)</td></tr>
 *   <tr><td>{@value #RAIL_ALIGNMENT}</td><td>{@code required | preferred | ignore}</td><td>{@code preferred}</td></tr>
 *   <tr><td>{@value #FABRIC_SCOPE}</td><td>{@code node | leaf | spine | core | any} or a tier number</td>
 *       <td>{@code any}, or the PodGroup's {@code networkTopology}</td></tr>
 *   <tr><td>{@value #FABRIC_SCOPE_POLICY}</td><td>{@code required | preferred}</td><td>{@code required}</td></tr>
 *   <tr><td>{@value #RANK_ORDER}</td><td>{@code fabric | none}</td><td>{@code fabric}</td></tr>
 *   <tr><td>{@value #NCCL_VERSION}</td><td>{@code MAJOR.MINOR[.PATCH]}</td><td>none: settings every NCCL release
 *       accepts</td></tr>
 * </table>
 *
 * <p>Placement hints (outputs, written with the Binding so they appear in the same pod version as
 * {@code spec.nodeName}): {@value #PLACEMENT} holds the versioned JSON {@link PlacementHint}; the flat keys repeat
 * single values so a pod spec can map them to environment variables with the downward API
 * ({@code valueFrom.fieldRef.fieldPath: metadata.annotations['railyard.dev/nccl-ib-hca']}).
 */
public final class HintAnnotations {
    /** Prefix of every Railyard annotation. */
    public static final String PREFIX = "railyard.dev/";

    /**
     * GPU–HCA affinity: {@code required} (every GPU of the pod must pair with an HCA at or under
     * {@link #GPU_HCA_MAX_DISTANCE}), {@code preferred} (try that first, then accept farther pairs) or {@code ignore}.
     */
    public static final String GPU_HCA_AFFINITY = PREFIX + "gpu-hca-affinity";
    /** Farthest allowed GPU–HCA distance class: {@code PIX}, {@code PXB}, {@code PHB}, {@code NODE} or {@code SYS}. */
    public static final String GPU_HCA_MAX_DISTANCE = PREFIX + "gpu-hca-max-distance";
    /**
     * Rail alignment across the gang: {@code required} (all pods of one shape use the same rail indices, or the gang
     * is unschedulable), {@code preferred} (try aligned first) or {@code ignore}.
     */
    public static final String RAIL_ALIGNMENT = PREFIX + "rail-alignment";
    /**
     * Largest fabric domain the gang may span: {@code node} (tier 0), {@code leaf} (1), {@code spine} (2),
     * {@code core} (3), a tier number, or {@code any}. Tiers are the fabric model's (a Volcano HyperNode tier when
     * the fabric comes from HyperNodes).
     */
    public static final String FABRIC_SCOPE = PREFIX + "fabric-scope";
    /** Whether {@link #FABRIC_SCOPE} must hold ({@code required}) or is tried first ({@code preferred}). */
    public static final String FABRIC_SCOPE_POLICY = PREFIX + "fabric-scope-policy";
    /**
     * Rank ordering: {@code fabric} gives pods consecutive ranks along the fabric (node, then leaf, then spine) so
     * that neighbouring ranks share switches; {@code none} writes no rank.
     */
    public static final String RANK_ORDER = PREFIX + "rank-order";
    /**
     * The NCCL release the job runs ({@code 2.30.7}); from {@link NcclVersion#RAIL_PLANE} on, {@code NCCL_IB_HCA}
     * carries each HCA's rail (and plane where known) and {@code NCCL_NET_MERGE_POLICY=RAIL} is set. Absent: the
     * syntax every release accepts.
     */
    public static final String NCCL_VERSION = PREFIX + "nccl-version";

    /** Output: the versioned JSON {@link PlacementHint}. */
    public static final String PLACEMENT = PREFIX + "placement";
    /** Output: {@code NCCL_IB_HCA} value, an exact list ({@code =mlx5_0:1,mlx5_1:1}). */
    public static final String NCCL_IB_HCA = PREFIX + "nccl-ib-hca";
    /** Output: {@code NCCL_SOCKET_IFNAME} value ({@code =eth0}). */
    public static final String NCCL_SOCKET_IFNAME = PREFIX + "nccl-socket-ifname";
    /** Output: {@code NCCL_IB_ADDR_RANGE} value, the smallest CIDR covering the pod's rail subnets. */
    public static final String NCCL_IB_ADDR_RANGE = PREFIX + "nccl-ib-addr-range";
    /** Output: {@code NCCL_IB_ADDR_FAMILY} value, {@code AF_INET} or {@code AF_INET6}. */
    public static final String NCCL_IB_ADDR_FAMILY = PREFIX + "nccl-ib-addr-family";
    /** Output: {@code NCCL_NET_GDR_LEVEL} value, present only when a pair is farther than PXB. */
    public static final String NCCL_NET_GDR_LEVEL = PREFIX + "nccl-net-gdr-level";
    /** Output: {@code NCCL_NET_GDR_C2C} value {@code 1}, present when a GPU–HCA pair is P2C (C2C-attached GPU). */
    public static final String NCCL_NET_GDR_C2C = PREFIX + "nccl-net-gdr-c2c";
    /** Output: {@code NCCL_NET_MERGE_POLICY} value {@code RAIL}, present with the NCCL ≥ 2.30.5 syntax. */
    public static final String NCCL_NET_MERGE_POLICY = PREFIX + "nccl-net-merge-policy";
    /**
     * Output: the pod's NVLink domain ({@code nvidia.com/gpu.clique} value) when ranks of its gang share it: those
     * ranks talk over NVLink, not RDMA.
     */
    public static final String NVLINK_DOMAIN = PREFIX + "nvlink-domain";
    /** Output: the pod's rank in the gang (0-based), absent with {@code rank-order: none}. */
    public static final String RANK = PREFIX + "rank";
    /** Output: the rail indices of the pod's GPUs in local-rank order, comma-separated ({@code 0,1,2,3}). */
    public static final String RAILS = PREFIX + "rails";

    /**
     * State: an address hold Railyard took for the pod and has not seen settled yet (JSON: uid, node, by, since,
     * until; docs/adr/0011-address-holds.md). Written on the pod by Volcano's {@code allocateFunc} and carried by the
     * Binding of kube-scheduler's {@code bind}, so a restarted replica or a new leader keeps the hold.
     */
    public static final String ADDRESS_HOLD = PREFIX + "address-hold";

    /** The keys a job author sets (inputs), in the README's order. */
    public static final List<String> INPUT_KEYS = List.of(GPU_HCA_AFFINITY, GPU_HCA_MAX_DISTANCE, RAIL_ALIGNMENT,
            FABRIC_SCOPE, FABRIC_SCOPE_POLICY, RANK_ORDER);
    /** The keys Railyard keeps its own state in ({@link #ADDRESS_HOLD}): neither inputs nor hints. */
    public static final List<String> STATE_KEYS = List.of(ADDRESS_HOLD);
    /** The keys Railyard writes onto a pod at bind time (outputs). */
    public static final List<String> OUTPUT_KEYS = List.of(PLACEMENT, NCCL_IB_HCA, NCCL_SOCKET_IFNAME,
            NCCL_IB_ADDR_RANGE, NCCL_IB_ADDR_FAMILY, NCCL_NET_GDR_LEVEL, RANK, RAILS);

    private HintAnnotations() {
    }
}
