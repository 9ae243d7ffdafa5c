package dev.railyard.scheduler.explain;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.util.List;

/**
 * What {@code railyard explain} and {@code railyard pools} answer, as data: serialised as JSON with the property
 * names below (schema version {@value #SCHEMA_VERSION}, documented in {@code docs/explain.md}), rendered as a table
 * by {@link ExplanationTable}. Fields are never omitted; a value that does not apply is {@code null} (objects,
 * numbers) or empty (lists).
 *
 * @param schemaVersion {@value #SCHEMA_VERSION}; a reader must check it
 * @param command       {@code job}, {@code pod}, {@code what-if} or {@code pools}
 * @param source        where the cluster objects came from
 * @param gangs         one per job or gang explained (a what-if file with several jobs: one per job, in file order,
 *                      each seeing the earlier ones placed); empty for {@code pools}
 * @param pools         every network's pool counts ({@code pools}), or the pools the explained gangs draw on
 * @param warnings      objects or files that could not be used, one line each, naming them
 * @param notices       gaps in the data and things ignored on purpose (no fabric data, kinds not read, ...)
 */
@JsonPropertyOrder({"schemaVersion", "command", "source", "gangs", "pools", "warnings", "notices"})
public record Explanation(int schemaVersion, String command, Source source, List<Gang> gangs, List<PoolLine> pools,
                          List<String> warnings, List<String> notices) {
    /** The JSON schema version this class writes. */
    public static final int SCHEMA_VERSION = 1;

    public Explanation {
        gangs = List.copyOf(gangs);
        pools = List.copyOf(pools);
        warnings = List.copyOf(warnings);
        notices = List.copyOf(notices);
    }

    /** @return true when every gang is placed or would be placed (exit code 0) */
    @JsonIgnore
    public boolean allPlaced() {
        return gangs.stream().allMatch(g -> !g.status().equals(Gang.UNSCHEDULABLE));
    }

    /**
     * Where the objects came from.
     *
     * @param kind     {@code snapshot} (a directory) or {@code cluster} (listed from the API server once)
     * @param location the directory, or the API server URL
     * @param takenAt  RFC 3339 time the objects were read
     * @param fabric   where the fabric model came from ({@code Volcano HyperNodes}, {@code node labels}, a fabric
     *                 file, or {@code no fabric data})
     */
    @JsonPropertyOrder({"kind", "location", "takenAt", "fabric"})
    public record Source(String kind, String location, String takenAt, String fabric) {
    }

    /**
     * One gang (a Volcano Job, a PodGroup, or a lone pod).
     *
     * @param gang          {@code namespace/name} of the job (or the PodGroup, or the pod)
     * @param kind          {@code VolcanoJob} (read from a file or the API: pods derived from its task templates),
     *                      {@code PodGroup} (its existing pods) or {@code Pod} (a pod with no PodGroup)
     * @param podGroup      {@code namespace/name} of the PodGroup, or null
     * @param minMember     the PodGroup's {@code minMember} (a Job's {@code minAvailable}), or null
     * @param status        {@value #PLACED} (every pod already bound), {@value #SCHEDULABLE} (a plan exists for the
     *                      pods not bound yet) or {@value #UNSCHEDULABLE}
     * @param summary       kube-scheduler style: {@code "0/12 nodes available: 8 no free GPU pair at ≤ PXB, 4 rail set
     *                      {0,1} unavailable"}, prefixed by the gang-level reasons when unschedulable
     * @param policy        the placement policy in words
     * @param policySources where each non-default setting came from ({@code railyard.dev/rail-alignment=required
     *                      (Job)})
     * @param domain        the smallest fabric domain holding the plan, or null without a plan
     * @param cost          the plan's cost, or null without a plan
     * @param placements    one per pod, in rank order: planned pods, then pods already bound
     * @param reasons       gang-level reasons (pool exhausted, no common rail set, ...); empty with a plan
     * @param reasonGroups  node-level reasons aggregated: each distinct summary with its code, node count and nodes
     * @param nodes         per-node Filter verdicts (for the gang's largest pod shape; for {@code explain pod}, for
     *                      that pod)
     * @param pools         the pools of the gang's networks, with the addresses the gang needs
     * @param notices       statements about this gang (relaxed preferences, no fabric data, GPU accounting, ...)
     */
    @JsonPropertyOrder({"gang", "kind", "podGroup", "minMember", "status", "summary", "policy", "policySources",
            "domain", "cost", "placements", "reasons", "reasonGroups", "nodes", "pools", "notices"})
    public record Gang(String gang, String kind, String podGroup, Integer minMember, String status, String summary,
                       String policy, List<String> policySources, Domain domain, Cost cost,
                       List<Placement> placements, List<ReasonEntry> reasons, List<ReasonGroup> reasonGroups,
                       List<NodeEntry> nodes, List<PoolLine> pools, List<String> notices) {
        /** Every pod of the gang is already bound. */
        public static final String PLACED = "placed";
        /** A plan exists for the pods not bound yet. */
        public static final String SCHEDULABLE = "schedulable";
        /** No plan: see {@code reasons} and {@code reasonGroups}. */
        public static final String UNSCHEDULABLE = "unschedulable";

        public Gang {
            policySources = List.copyOf(policySources);
            placements = List.copyOf(placements);
            reasons = List.copyOf(reasons);
            reasonGroups = List.copyOf(reasonGroups);
            nodes = List.copyOf(nodes);
            pools = List.copyOf(pools);
            notices = List.copyOf(notices);
        }
    }

    /**
     * A fabric domain.
     *
     * @param tier     0 = one node, 1 = leaf, 2 = spine, ...; {@code maxTier + 1} = the whole cluster
     * @param tierName {@code node}, {@code leaf}, {@code spine}, {@code core}, a HyperNode {@code tierName}, or
     *                 {@code cluster}
     * @param name     the domain ({@code su1-leaf-r0}, a HyperNode, {@code cluster}, or the node)
     */
    @JsonPropertyOrder({"tier", "tierName", "name"})
    public record Domain(int tier, String tierName, String name) {
    }

    /**
     * The plan's cost, compared field by field (smaller is better; see the engine's {@code GangPlanner}).
     *
     * @param relaxed preferences given up ({@code GPU–HCA affinity}, {@code rail alignment}, {@code fabric scope})
     * @param tier    tier of the smallest domain holding every pod
     * @param hops    switch hops summed over every two pods on different nodes
     * @param local   node-local cost (GPU–HCA distance penalties, broken PCIe groups, GPUs left free)
     * @param slack   free GPUs left in the chosen domain
     */
    @JsonPropertyOrder({"relaxed", "tier", "hops", "local", "slack"})
    public record Cost(List<String> relaxed, int tier, long hops, long local, long slack) {
        public Cost {
            relaxed = List.copyOf(relaxed);
        }
    }

    /**
     * Where one pod goes (or is).
     *
     * @param pod     pod name (in the gang's namespace)
     * @param rank    its rank in the gang (0-based; consecutive ranks share switches), or null
     * @param node    node name
     * @param source  {@code plan} (Railyard's plan for a pod not bound yet), {@code bound} (already bound; GPUs from
     *                its placement hint or the node agent), or {@code bound-count} (already bound; only the GPU
     *                count is known)
     * @param gpuCount GPUs the pod asks for
     * @param gpus    its GPUs in local-rank order with the HCA each sends through; empty when unknown
     * @param hcas    distinct HCAs of {@code gpus}, in order
     * @param rails   rail of each GPU in local-rank order
     * @param railSet the rail set ({@code {0,1,2,3}}, multiplicities as {@code {0×2,1×2}}), or null when unknown
     */
    @JsonPropertyOrder({"pod", "rank", "node", "source", "gpuCount", "gpus", "hcas", "rails", "railSet"})
    public record Placement(String pod, Integer rank, String node, String source, int gpuCount, List<GpuEntry> gpus,
                            List<String> hcas, List<Integer> rails, String railSet) {
        public Placement {
            gpus = List.copyOf(gpus);
            hcas = List.copyOf(hcas);
            rails = List.copyOf(rails);
        }
    }

    /**
     * One GPU and the HCA it sends through.
     *
     * @param gpu      NVML index
     * @param hca      HCA name, or null when unknown
     * @param rail     rail index, or null when unknown
     * @param distance PCIe distance class of the pair ({@code PIX} ... {@code SYS}), or null when unknown
     */
    @JsonPropertyOrder({"gpu", "hca", "rail", "distance"})
    public record GpuEntry(int gpu, String hca, Integer rail, String distance) {
    }

    /**
     * One reason.
     *
     * @param code    stable machine code (the engine's {@code ReasonCode}: {@code INSUFFICIENT_GPUS},
     *                {@code NO_GPU_PAIR_WITHIN_DISTANCE}, {@code RAIL_SET_UNAVAILABLE}, {@code POOL_EXHAUSTED}, ...)
     * @param summary short text shared by every node failing the same way
     * @param detail  the sentence for this node or gang
     */
    @JsonPropertyOrder({"code", "summary", "detail"})
    public record ReasonEntry(String code, String summary, String detail) {
    }

    /**
     * Nodes failing the same way.
     *
     * @param code    the reason code
     * @param summary the shared summary ({@code rail set {0,1} unavailable})
     * @param count   how many nodes
     * @param nodes   those nodes, by name
     */
    @JsonPropertyOrder({"code", "summary", "count", "nodes"})
    public record ReasonGroup(String code, String summary, int count, List<String> nodes) {
        public ReasonGroup {
            nodes = List.copyOf(nodes);
        }
    }

    /**
     * One node's Filter verdict.
     *
     * @param node          node name
     * @param feasible      true when the node can take the pod on its own
     * @param freeGpus      GPUs of its topology no pod holds (0 without topology)
     * @param gpuAccounting how the GPUs held on it were found ({@code node agent: 2 pods}), or null when none are
     * @param reasons       why it cannot; empty when feasible
     */
    @JsonPropertyOrder({"node", "feasible", "freeGpus", "gpuAccounting", "reasons"})
    public record NodeEntry(String node, boolean feasible, int freeGpus, String gpuAccounting,
                            List<ReasonEntry> reasons) {
        public NodeEntry {
            reasons = List.copyOf(reasons);
        }
    }

    /**
     * One whereabouts pool of one network (or, for a network that does not resolve or does not use whereabouts, the
     * network alone with its status). Counts are addresses; {@code 9223372036854775807} means too many to count (a
     * wide IPv6 range).
     *
     * @param network           {@code namespace/name} of the NetworkAttachmentDefinition, or null for an IPPool no
     *                          network uses
     * @param master            the network's {@code master} netdev, or null
     * @param status            {@code ok}, or why the network refuses pods (the ledger's reason in lower case:
     *                          {@code pool_exhausted}, {@code network_not_found}, {@code node_slice_missing}, ...)
     * @param message           one sentence naming the network, the pool and the counts
     * @param pool              the IPPool name ({@code 192.168.4.0-22}), or null
     * @param poolNamespace     the IPPool's namespace, or null when it does not exist yet (nothing allocated)
     * @param node              the node of a node-slice pool, else null
     * @param range             the range CIDR, or null
     * @param usable            addresses whereabouts can hand out, or null
     * @param allocated         addresses the IPPool lists (stale ones included), or null
     * @param reservedElsewhere addresses other ranges of the same network name reserve, or null
     * @param inFlight          addresses Railyard holds for pods placed but not yet allocated, or null
     * @param stale             allocations whose podref names no existing pod, or null
     * @param free              addresses left, or null
     * @param needed            addresses the explained gang needs from it (0 for {@code pools}), or null
     * @param staleHolders      the stale allocations, each with its address and podref
     * @param inconsistencies   what is wrong in the pool, one line each
     * @param notes             what whereabouts silently ignores in the network's config, or why Railyard cannot count
     * @param holds             who makes up {@code inFlight}: each pod holding addresses of this pool, or bound and
     *                          not recorded yet
     */
    @JsonPropertyOrder({"network", "master", "status", "message", "pool", "poolNamespace", "node", "range", "usable",
            "allocated", "reservedElsewhere", "inFlight", "stale", "free", "needed", "staleHolders",
            "inconsistencies", "notes", "holds"})
    public record PoolLine(String network, String master, String status, String message, String pool,
                           String poolNamespace, String node, String range, Long usable, Long allocated,
                           Long reservedElsewhere, Long inFlight, Long stale, Long free, Long needed,
                           List<StaleHolder> staleHolders, List<String> inconsistencies, List<String> notes,
                           List<HoldLine> holds) {
        public PoolLine {
            staleHolders = List.copyOf(staleHolders);
            inconsistencies = List.copyOf(inconsistencies);
            notes = List.copyOf(notes);
            holds = holds == null ? List.of() : List.copyOf(holds);
        }
    }

    /**
     * One pod's addresses in flight in a pool: a hold, or a bound pod whose address whereabouts has not recorded.
     *
     * @param podRef    {@code namespace/name}
     * @param uid       the pod's UID, or null when unknown
     * @param node      the node, or null when not chosen yet
     * @param by        who holds it: {@code kube filter}, {@code kube bind}, {@code volcano allocateFunc},
     *                  {@code plan}, or {@code bound, address not recorded yet}
     * @param since     when the hold was taken (RFC 3339), or null for a bound pod
     * @param until     when it expires (RFC 3339), or null for a bound pod
     * @param persisted true when the hold is written on the pod, so a restart or a new leader keeps it
     * @param addresses how many addresses of this pool (one per pod interface on the network)
     */
    @JsonPropertyOrder({"podRef", "uid", "node", "by", "since", "until", "persisted", "addresses"})
    public record HoldLine(String podRef, String uid, String node, String by, String since, String until,
                           boolean persisted, int addresses) {
    }

    /**
     * A stale allocation: an address whose podref names no existing pod; whereabouts does not reuse it until its
     * reconciler runs.
     *
     * @param address the address ({@code offset N} when the pool's key could not be turned into one)
     * @param podRef  {@code namespace/name} of the pod that held it
     * @param ifname  the pod interface it was for ({@code net1}), or null when the pool does not say
     */
    @JsonPropertyOrder({"address", "podRef", "ifname"})
    public record StaleHolder(String address, String podRef, String ifname) {
    }
}
