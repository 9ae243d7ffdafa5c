package dev.railyard.scheduler.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.api.hints.PlacementHint;
import dev.railyard.api.topology.NodeTopologyStatus;
import dev.railyard.api.volcano.HyperNode;
import dev.railyard.api.volcano.PodGroup;
import dev.railyard.scheduler.engine.BoundMember;
import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.GpuBinding;
import dev.railyard.scheduler.engine.GangRequest;
import dev.railyard.scheduler.engine.PlacementPolicy;
import dev.railyard.scheduler.engine.PodRequest;
import dev.railyard.scheduler.engine.SecondaryNetwork;
import dev.railyard.scheduler.ipam.AddressPools;
import dev.railyard.scheduler.ipam.NetworkVerdict;
import dev.railyard.scheduler.ipam.PodNetworksRequest;
import dev.railyard.scheduler.ipam.PoolStatus;
import dev.railyard.scheduler.ipam.PoolVerdict;
import dev.railyard.topology.InputException;
import dev.railyard.topology.fabric.FabricLabelKeys;
import dev.railyard.topology.fabric.FabricModel;
import dev.railyard.topology.fabric.HyperNodeFabric;
import dev.railyard.topology.fabric.NodeLabelFabric;
import dev.railyard.topology.fabric.NvlinkDomains;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The engine's view of one {@link ClusterObjects}: the {@link ClusterSnapshot} (nodes, secondary networks, fabric,
 * address pools), PodGroups and pods, built once and immutable. The one place where Kubernetes objects become engine
 * inputs, used by the live service and by {@code railyard explain} / {@code pools} alike.
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
 *       {@link PodView}.</li>
 * </ul>
 * Bad objects are skipped with a warning naming them ({@link #warnings()}); building the view never throws for one.
 *
 * @param objects       the objects it was built from
 * @param snapshot      the engine's snapshot
 * @param podGroups     Volcano PodGroups by {@code namespace/name}
 * @param coschedulingGroups scheduler-plugins coscheduling PodGroups ({@code scheduling.x-k8s.io}) by
 *                      {@code namespace/name}
 * @param pods          pods by {@code namespace/name}
 * @param gpuAccounting node → how its allocated GPUs were found ({@link NodeStateConverter.Result#gpuAccounting()})
 * @param rdmaResources every RDMA extended resource some node advertises
 * @param topologyStatuses node → the NodeTopology status its agent published (absent when none or unreadable)
 * @param warnings      objects skipped or partly read, one line each, naming them
 */
public record ClusterView(ClusterObjects objects, ClusterSnapshot snapshot, Map<String, PodGroup> podGroups,
                          Map<String, PodGroup> coschedulingGroups, Map<String, PodView> pods,
                          Map<String, String> gpuAccounting, Set<String> rdmaResources,
                          Map<String, NodeTopologyStatus> topologyStatuses, List<String> warnings) {
    public ClusterView {
        podGroups = Collections.unmodifiableMap(new LinkedHashMap<>(podGroups));
        coschedulingGroups = Collections.unmodifiableMap(new LinkedHashMap<>(coschedulingGroups));
        pods = Collections.unmodifiableMap(new LinkedHashMap<>(pods));
        gpuAccounting = Map.copyOf(gpuAccounting);
        rdmaResources = Set.copyOf(rdmaResources);
        topologyStatuses = Map.copyOf(topologyStatuses);
        warnings = List.copyOf(warnings);
    }

    /**
     * @param objects the cluster objects
     * @param pools   the address pools, already updated with {@link IpamSnapshotConverter#convert} of the same
     *                objects; null when unknown (pool checks are then skipped by the engine, which says so)
     * @param fabric  the fabric to use, or null to take it from HyperNodes or node labels
     * @return the view
     */
    public static ClusterView of(ClusterObjects objects, AddressPools pools, FabricModel fabric) {
        List<String> warnings = new ArrayList<>();
        Map<String, PodView> pods = new LinkedHashMap<>();
        Map<String, List<PodView>> byNode = new TreeMap<>();
        for (GenericKubernetesResource r : objects.of(WatchedKind.POD)) {
            try {
                PodView p = PodView.of(r);
                pods.put(p.key(), p);
                if (p.node() != null) {
                    byNode.computeIfAbsent(p.node(), k -> new ArrayList<>()).add(p);
                }
            } catch (IllegalArgumentException e) {
                warnings.add(ObjectFields.describe(r) + ": " + e.getMessage() + "; skipped");
            }
        }
        Converted<NodeStateConverter.Result> nodes = NodeStateConverter.convert(objects, byNode);
        warnings.addAll(nodes.warnings());
        Converted<Map<String, PodGroup>> groups = VolcanoObjectConverter.podGroups(objects);
        warnings.addAll(groups.warnings());
        Converted<Map<String, PodGroup>> coscheduling = CoschedulingObjectConverter.podGroups(objects);
        warnings.addAll(coscheduling.warnings());
        FabricModel model = fabric;
        Map<String, Map<String, String>> labels = new TreeMap<>();
        nodes.value().nodes().forEach(n -> labels.put(n.name(), n.labels()));
        if (model == null) {
            Converted<List<HyperNode>> hyper = VolcanoObjectConverter.hyperNodes(objects);
            warnings.addAll(hyper.warnings());
            if (!hyper.value().isEmpty()) {
                try {
                    model = HyperNodeFabric.build(hyper.value(), labels);
                } catch (InputException e) {
                    warnings.add("HyperNodes: " + e.getMessage() + "; the fabric is taken from node labels instead");
                }
            }
            if (model == null) {
                model = NodeLabelFabric.build(labels, FabricLabelKeys.defaults());
            }
        }
        model = NvlinkDomains.overlay(model, labels);  // clique labels hold whatever the switch fabric's source
        List<SecondaryNetwork> networks = networks(objects, pools, warnings);
        ClusterSnapshot snapshot = new ClusterSnapshot(nodes.value().nodes(), networks, model, pools);
        return new ClusterView(objects, snapshot, groups.value(), coscheduling.value(), pods,
                nodes.value().gpuAccounting(), nodes.value().rdmaResources(), nodes.value().topologies(), warnings);
    }

    private static List<SecondaryNetwork> networks(ClusterObjects objects, AddressPools pools,
                                                   List<String> warnings) {
        List<SecondaryNetwork> out = new ArrayList<>();
        for (GenericKubernetesResource r : objects.of(WatchedKind.NETWORK_ATTACHMENT_DEFINITION)) {
            if (r.getMetadata() == null || r.getMetadata().getName() == null) {
                continue;
            }
            String ns = r.getMetadata().getNamespace() == null ? "default" : r.getMetadata().getNamespace();
            String name = r.getMetadata().getName();
            String master = null;
            String range = null;
            String pool = null;
            if (pools != null) {
                PoolVerdict v = pools.check(PodNetworksRequest.ofAnnotation(ns, ns + "/" + name), 0, null);
                if (!v.networks().isEmpty()) {
                    NetworkVerdict nv = v.networks().get(0);
                    master = nv.master();
                    if (!nv.pools().isEmpty()) {
                        PoolStatus s = nv.pools().get(0);
                        range = s.range();
                        pool = s.poolName();
                    }
                }
            }
            if (master == null) {
                master = cniMaster(ObjectFields.text(ObjectFields.at(r, "spec", "config")));
            }
            out.add(new SecondaryNetwork(ns, name, master, range, pool));
        }
        return out;
    }

    /** @return the {@code master} of a CNI config or of the first conflist plugin that has one, or null */
    static String cniMaster(String config) {
        if (config == null || config.isBlank()) {
            return null;
        }
        try {
            JsonNode root = NodeStateConverter.RECORDS.readTree(config);
            if (root.path("master").isTextual()) {
                return root.path("master").asText();
            }
            for (JsonNode p : root.path("plugins")) {
                if (p.path("master").isTextual()) {
                    return p.path("master").asText();
                }
            }
        } catch (Exception e) {
            return null;
        }
        return null;
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
        List<PodView> out = new ArrayList<>();
        boolean coscheduling = group.convention() == PodGroup.Convention.COSCHEDULING;
        for (PodView p : pods.values()) {
            if (!p.namespace().equals(group.namespace())) {
                continue;
            }
            if (coscheduling ? p.podGroupName() == null && group.name().equals(p.coschedulingGroupName())
                    : group.name().equals(p.podGroupName())) {
                out.add(p);
            }
        }
        out.sort(PodView.RANK_ORDER);
        return out;
    }

    /** @return the engine's request for the pod (RDMA resources being those some node advertises) */
    public PodRequest request(PodView pod) {
        return pod.request(rdmaResources);
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
