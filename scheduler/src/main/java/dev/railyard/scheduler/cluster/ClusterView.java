package dev.railyard.scheduler.cluster;

import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.api.hints.PlacementHint;
import dev.railyard.api.topology.NodeTopologyStatus;
import dev.railyard.api.volcano.PodGroup;
import dev.railyard.scheduler.engine.BoundMember;
import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.GpuBinding;
import dev.railyard.scheduler.engine.GangRequest;
import dev.railyard.scheduler.engine.PlacementPolicy;
import dev.railyard.scheduler.engine.PodRequest;
import dev.railyard.scheduler.ipam.AddressPools;
import dev.railyard.topology.InputException;
import dev.railyard.topology.fabric.FabricLabelKeys;
import dev.railyard.topology.fabric.FabricModel;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The engine's view of the cluster at one moment: the {@link ClusterSnapshot} (nodes, secondary networks, fabric,
 * address pools), PodGroups and pods, immutable. Made by {@link ClusterState#snapshot()}, which shares every record
 * that did not change with the view before (docs/adr/0008); the one place where Kubernetes objects become engine
 * inputs, used by the live service and by {@code railyard explain} / {@code pools} alike ({@link #of}).
 *
 * <ul>
 *   <li>Nodes: {@link NodeStateConverter} (labels, schedulability, NodeTopology, GPUs held, HCA resources).</li>
 *   <li>Secondary networks: one per NetworkAttachmentDefinition, its {@code master}, range and IPPool name as the
 *       address pools resolve them (the MacvlanNetwork that rendered it included); without pools, the
 *       {@code master} of its CNI config.</li>
 *   <li>Fabric: the one given, else Volcano HyperNodes when there are any (an inconsistent set is reported and
 *       the node labels used instead), else node labels ({@link FabricLabelKeys#defaults()}), else none (every node
 *       equidistant, and the engine says so).</li>
 *   <li>PodGroups: Volcano's ({@link VolcanoObjectConverter}) and the scheduler-plugins coscheduling ones
 *       ({@link CoschedulingObjectConverter}), kept apart since both kinds may use one name; pods:
 *       {@link PodView}; gang members from the state's index ({@link #members}).</li>
 * </ul>
 * Bad objects are skipped with a warning naming them ({@link #warnings()}); building the view never throws for one.
 * Warnings are in key order: pods, nodes, NodeTopologies without a Node, PodGroups, coscheduling PodGroups,
 * HyperNodes.
 */
public final class ClusterView {
    private final ClusterObjects objects;
    private final ClusterSnapshot snapshot;
    private final Map<String, PodGroup> podGroups;
    private final Map<String, PodGroup> coschedulingGroups;
    private final Map<String, PodView> pods;
    private final Map<String, String> gpuAccounting;
    private final Set<String> rdmaResources;
    private final Map<String, NodeTopologyStatus> topologyStatuses;
    private final List<String> warnings;
    private final long generation;
    private final Gangs.Index gangs;
    private final Map<String, NodeRecord> records;
    private final Set<String> unhinted;

    /** Made by {@link ClusterState}; the maps are immutable (persistent) and shared with other views. */
    ClusterView(ClusterObjects objects, ClusterSnapshot snapshot, Map<String, PodGroup> podGroups,
                Map<String, PodGroup> coschedulingGroups, Map<String, PodView> pods, Map<String, String> gpuAccounting,
                Set<String> rdmaResources, Map<String, NodeTopologyStatus> topologyStatuses, List<String> warnings,
                long generation, Gangs.Index gangs, Map<String, NodeRecord> records, Set<String> unhinted) {
        this.records = records;
        this.unhinted = unhinted;
        this.objects = objects;
        this.snapshot = snapshot;
        this.podGroups = podGroups;
        this.coschedulingGroups = coschedulingGroups;
        this.pods = pods;
        this.gpuAccounting = gpuAccounting;
        this.rdmaResources = rdmaResources;
        this.topologyStatuses = topologyStatuses;
        this.warnings = List.copyOf(warnings);
        this.generation = generation;
        this.gangs = gangs;
    }

    /**
     * @param objects the cluster objects
     * @param pools   the address pools, already updated with {@link IpamSnapshotConverter#convert} of the same
     *                objects; null when unknown (pool checks are then skipped by the engine, which says so)
     * @param fabric  the fabric to use, or null to take it from HyperNodes or node labels
     * @return the view, built by the same {@link ClusterState} the informers drive
     */
    public static ClusterView of(ClusterObjects objects, AddressPools pools, FabricModel fabric) {
        return ClusterState.of(objects, pools, fabric).snapshot();
    }

    /**
     * @return the objects of the small kinds (PodGroups, HyperNodes, networks and pools) without
     *         {@code managedFields}, the kinds whose CRD is not installed, and whether the source had synced; Pods,
     *         Nodes and NodeTopologies are held as compact records only ({@link #pods()}, {@link #snapshot()})
     */
    public ClusterObjects objects() {
        return objects;
    }

    /** @return the engine's snapshot */
    public ClusterSnapshot snapshot() {
        return snapshot;
    }

    /** @return Volcano PodGroups by {@code namespace/name} */
    public Map<String, PodGroup> podGroups() {
        return podGroups;
    }

    /** @return scheduler-plugins coscheduling PodGroups ({@code scheduling.x-k8s.io}) by {@code namespace/name} */
    public Map<String, PodGroup> coschedulingGroups() {
        return coschedulingGroups;
    }

    /** @return pods by {@code namespace/name} */
    public Map<String, PodView> pods() {
        return pods;
    }

    /** @return node → how its allocated GPUs were found ({@link NodeStateConverter.Result#gpuAccounting()}) */
    public Map<String, String> gpuAccounting() {
        return gpuAccounting;
    }

    /** @return every RDMA extended resource some node advertises */
    public Set<String> rdmaResources() {
        return rdmaResources;
    }

    /** @return node → the NodeTopology status its agent published (absent when none or unreadable) */
    public Map<String, NodeTopologyStatus> topologyStatuses() {
        return topologyStatuses;
    }

    /** @return objects skipped or partly read, one line each, naming them */
    public List<String> warnings() {
        return warnings;
    }

    /**
     * @param other address pools to judge with instead (a what-if's own ledger)
     * @return this view with the engine's snapshot using {@code other}; everything else shared
     */
    public ClusterView withPools(AddressPools other) {
        return new ClusterView(objects, snapshot.withPools(other), podGroups, coschedulingGroups, pods, gpuAccounting,
                rdmaResources, topologyStatuses, warnings, generation, gangs, records, unhinted);
    }

    /**
     * @return keys of the pods bound without a {@code railyard.dev/placement} hint that hold GPUs (bound, neither
     *         finished nor being deleted, asking for {@code nvidia.com/gpu}): the hint sweep's candidates, from the
     *         state's index (O(1), whatever the number of pods)
     */
    public Set<String> unhintedPods() {
        return unhinted;
    }

    /** @return the record of a node ({@link NodeRecord}: its generation and inputs), or null */
    public NodeRecord record(String node) {
        return records.get(node);
    }

    /** @return the state's generation when the view was made (a later view has a higher one) */
    public long generation() {
        return generation;
    }

    /** @return the pod of that {@code namespace/name}, or null */
    public PodView pod(String key) {
        return pods.get(key);
    }

    /** @return the Volcano PodGroup of that {@code namespace/name}, or null */
    public PodGroup podGroup(String key) {
        return podGroups.get(key);
    }

    /** @return the coscheduling PodGroup ({@code scheduling.x-k8s.io}) of that {@code namespace/name}, or null */
    public PodGroup coschedulingGroup(String key) {
        return coschedulingGroups.get(key);
    }

    /**
     * @return the PodGroup the pod names: the Volcano PodGroup of its {@code scheduling.k8s.io/group-name}
     *         annotation when it has one (Volcano's convention wins, as in {@code protocol.GangRef}), else the
     *         coscheduling PodGroup of its {@code scheduling.x-k8s.io/pod-group} label in its namespace; null when
     *         it names none or the named one does not exist
     */
    public PodGroup podGroupOf(PodView pod) {
        String g = pod.podGroupName();
        if (g != null) {
            return podGroups.get(pod.namespace() + "/" + g);
        }
        String c = pod.coschedulingGroupName();
        return c == null ? null : coschedulingGroups.get(pod.namespace() + "/" + c);
    }

    /**
     * @return the pods naming this PodGroup, in rank order ({@link PodView#RANK_ORDER}): for a Volcano PodGroup
     *         those whose {@code scheduling.k8s.io/group-name} names it; for a coscheduling one the pods of its
     *         namespace whose {@code scheduling.x-k8s.io/pod-group} label names it and that carry no Volcano group
     *         annotation (upstream's coscheduling lists pods by that label in the PodGroup's namespace:
     *         scheduler-plugins {@code pkg/coscheduling/core/core.go PreFilter})
     */
    public List<PodView> members(PodGroup group) {
        Set<String> keys = gangs.byGroup(group.convention()).get(group.namespace() + "/" + group.name());
        if (keys == null) {
            return List.of();
        }
        List<PodView> out = new ArrayList<>(keys.size());
        for (String k : keys) {
            PodView p = pods.get(k);
            if (p != null) {
                out.add(p);
            }
        }
        out.sort(PodView.RANK_ORDER);
        return out;
    }

    /** A pod's request with the RDMA resource set it was made for, kept per pod record (by identity). */
    private record Request(Set<String> rdma, PodRequest request) {
    }

    private static final com.github.benmanes.caffeine.cache.Cache<PodView, Request> REQUESTS =
            com.github.benmanes.caffeine.cache.Caffeine.newBuilder().weakKeys().maximumSize(500_000).build();

    /**
     * @return the engine's request for the pod (RDMA resources being those some node advertises); made once per pod
     *         record and RDMA resource set (the network annotation is parsed once, not per call)
     */
    public PodRequest request(PodView pod) {
        Request r = REQUESTS.getIfPresent(pod);
        if (r == null || !r.rdma().equals(rdmaResources)) {
            r = new Request(rdmaResources, pod.request(rdmaResources));
            REQUESTS.put(pod, r);
        }
        return r.request();
    }

    /**
     * The gang's members already bound ({@code spec.nodeName} set) that hold their devices (not finished), as the
     * planner keeps them (docs/adr/0005): with the GPUs, rails and rank of their {@code railyard.dev/placement} hint,
     * or by node only when {@link #unusableHint} finds the hint missing, unreadable or naming another GPU count than
     * the pod requests. A hint's rank counts only when the hint names this gang ({@code namespace/name}; the form
     * {@code namespace/namespace/name} that Railyard wrote before the gang key was fixed is accepted too). A hint
     * whose {@code railChoice} is {@code node-best} with {@code gangRails} named (the member could not keep the gang's
     * known rail set) gives a member that is not {@link BoundMember#aligned()}.
     *
     * @param gangKey {@code namespace/name} of the gang
     * @param members the gang's pods, in rank order
     * @param except  a pod to leave out ({@code namespace/name}), or null
     * @return the bound members, in rank order
     */
    public List<BoundMember> boundMembers(String gangKey, List<PodView> members, String except) {
        List<BoundMember> out = new ArrayList<>();
        for (PodView m : members) {
            if (!m.holdsDevices() || m.key().equals(except)) {
                continue;
            }
            PodRequest request = request(m);
            if (unusableHint(m) != null) {
                out.add(BoundMember.nodeOnly(request, m.node()));
                continue;
            }
            PlacementHint hint = m.placementHint();
            List<GpuBinding> gpus = hint.gpus().stream()
                    .map(g -> new GpuBinding(g.gpu(), g.hca(), g.rail(), g.distance(), true)).toList();
            boolean ours = gangKey.equals(hint.gang()) || (m.namespace() + "/" + gangKey).equals(hint.gang());
            // a hint that could not keep the gang's known rail set (railChoice node-best, gangRails named) holds
            // rails off the gang's; node-best with no rail set known then (the first of its shape) set them
            PlacementHint.RailChoice choice = hint.railChoice();
            boolean aligned = choice == null || choice.aligned() || choice.gangRails() == null;
            out.add(BoundMember.hinted(request, m.node(), ours ? hint.rank() : null, gpus, aligned));
        }
        return out;
    }

    /**
     * @param pod a bound pod
     * @return why its placement hint cannot say which GPUs and rails it holds ({@code "without a railyard.dev/placement
     * hint"}, one naming another GPU count than the pod requests, or one naming a negative rail), or null when the
     * hint can
     */
    public String unusableHint(PodView pod) {
        PlacementHint hint = pod.placementHint();
        if (hint == null) {
            return "without a " + HintAnnotations.PLACEMENT + " hint";
        }
        int gpus = request(pod).gpus();
        if (hint.gpus().size() != gpus) {
            return "with a hint naming " + hint.gpus().size() + " GPUs for a pod requesting " + gpus;
        }
        for (PlacementHint.GpuHint g : hint.gpus()) {
            if (g.rail() < 0) {
                return "with a hint naming rail " + g.rail() + " for GPU " + g.gpu();
            }
        }
        return null;
    }

    /**
     * @param name      gang name for messages and plans ({@code namespace} is the pods')
     * @param group     the PodGroup, or null for pods without one
     * @param members   the pods to place, in rank order; at least one
     * @param jobAnnotations annotations of the Volcano Job, or null when unknown (a PodGroup carries its Job's)
     * @return the gang, its policy resolved from the hints on the first pod, the PodGroup and the Job
     * @throws InputException naming the annotation when a hint is malformed
     */
    public GangRequest gang(String name, PodGroup group, List<PodView> members, Map<String, String> jobAnnotations) {
        if (members.isEmpty()) {
            throw new IllegalArgumentException("gang " + name + " has no pods");
        }
        List<PodRequest> requests = members.stream().map(this::request).toList();
        PlacementPolicy policy = PlacementPolicy.resolve(jobAnnotations, group, members.get(0).annotations(),
                snapshot.fabric());
        return new GangRequest(members.get(0).namespace(), name, requests, policy);
    }
}
