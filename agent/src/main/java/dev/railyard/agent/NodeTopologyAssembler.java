package dev.railyard.agent;

import dev.railyard.api.topology.AllocatedGpu;
import dev.railyard.api.topology.AllocatedRdmaResource;
import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.Hca;
import dev.railyard.api.topology.HcaPort;
import dev.railyard.api.topology.HcaPortStatus;
import dev.railyard.api.topology.Locality;
import dev.railyard.api.topology.NetdevAttachment;
import dev.railyard.api.topology.NodeHealth;
import dev.railyard.api.topology.NodeTopologyConditions;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.NodeTopologyStatus;
import dev.railyard.api.topology.PodAllocation;
import dev.railyard.api.topology.RdmaResourceStatus;
import dev.railyard.agent.podresources.v1.AllocatableResourcesResponse;
import dev.railyard.agent.podresources.v1.ContainerDevices;
import dev.railyard.agent.podresources.v1.ContainerResources;
import dev.railyard.agent.podresources.v1.ListPodResourcesResponse;
import dev.railyard.agent.podresources.v1.PodResources;
import dev.railyard.topology.discovery.HcaNameOrder;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Turns refreshes into the {@code NodeTopology} to publish, never publishing a wrong picture: when a source fails,
 * the parts it feeds are taken from the last refresh that read it, {@code observedTime} stays at the last complete
 * refresh, and the {@code Stale} condition says which source failed ({@link NodeTopologyConditions}).
 *
 * <p>Derivations: GPU device ids ({@code GPU-<uuid>}, {@code GPU-<uuid>::<n>} replicas) are matched to spec GPUs by
 * UUID; RDMA resources to HCAs by {@link RdmaResourceMapper}; a port's pod count is the number of pods holding a
 * resource mapped to its HCA; health is {@link NodeHealth#DEGRADED} when any port of a hardware HCA is down.
 * Output lists are sorted (pods by namespace and name, ports by HCA and port, resources by name, netdevs by name),
 * so equal inputs give equal objects. Not thread-safe.
 */
public final class NodeTopologyAssembler {
    private final AgentSettings settings;
    private final RdmaSharedDevicePluginConfig rdmaConfig;
    private final Set<String> gpuResources;

    private HostSnapshot lastHost;
    private ListPodResourcesResponse lastPods;
    private AllocatableResourcesResponse lastAllocatable;
    private Instant lastCompleteAt;
    private final Map<String, Condition> conditions = new LinkedHashMap<>();

    /**
     * @param settings   agent settings (node name, GPU resource names, pod limit per port)
     * @param rdmaConfig the rdma-shared-dev-plugin's config, or null to map resources by name
     */
    public NodeTopologyAssembler(AgentSettings settings, RdmaSharedDevicePluginConfig rdmaConfig) {
        this.settings = settings;
        this.rdmaConfig = rdmaConfig;
        this.gpuResources = Set.copyOf(settings.gpuResourceNames());
    }

    /**
     * Carries the conditions of the status an earlier run of the agent published over to this one: a condition whose
     * status is the same after this run's first refresh keeps its {@code lastTransitionTime}. Call before the first
     * {@link #assemble}; conditions of other types are ignored.
     *
     * @param stored the status the API server holds
     */
    public void resume(NodeTopologyStatus stored) {
        for (String type : List.of(NodeTopologyConditions.READY, NodeTopologyConditions.STALE,
                NodeTopologyConditions.LOCALITY_KNOWN)) {
            stored.conditions().stream()
                    .filter(c -> type.equals(c.getType()) && c.getStatus() != null && c.getLastTransitionTime() != null)
                    .findFirst().ifPresent(c -> conditions.putIfAbsent(type, c));
        }
    }

    /**
     * @param obs this refresh
     * @return what to publish
     */
    public DesiredNodeTopology assemble(NodeObservation obs) {
        if (obs.host() != null) {
            lastHost = obs.host();
        }
        if (obs.pods() != null && obs.allocatable() != null) {
            lastPods = obs.pods();
            lastAllocatable = obs.allocatable();
        }
        if (obs.complete()) {
            lastCompleteAt = obs.at();
        }
        HostSnapshot host = lastHost;
        NodeTopologySpec spec = host == null ? null : host.spec();
        List<HcaPciFacts> facts = host == null ? List.of() : host.hcaFacts();

        List<RdmaResourceBinding> bindings = RdmaResourceMapper.map(rdmaConfig, facts,
                allocatableCounts(lastAllocatable).keySet(), gpuResources);
        List<PodAllocation> allocations = allocations(lastPods, spec, bindings);
        List<HcaPortStatus> ports = ports(host, allocations);
        NodeHealth health = obs.host() == null ? NodeHealth.UNKNOWN : health(spec, ports);

        updateConditions(obs);
        updateLocality(spec, obs);
        NodeTopologyStatus status = new NodeTopologyStatus(
                lastCompleteAt == null ? null : lastCompleteAt.truncatedTo(ChronoUnit.SECONDS).toString(),
                health, allocatedGpus(allocations), allocations, ports, rdmaStatus(bindings, allocations),
                netdevs(spec), List.copyOf(conditions.values()));
        return new DesiredNodeTopology(settings.nodeName(), spec, status);
    }

    private List<PodAllocation> allocations(ListPodResourcesResponse pods, NodeTopologySpec spec,
                                            List<RdmaResourceBinding> bindings) {
        if (pods == null) {
            return List.of();
        }
        Map<String, Integer> indexByUuid = new HashMap<>();
        if (spec != null) {
            for (Gpu gpu : spec.gpus()) {
                if (gpu.uuid() != null) {
                    indexByUuid.put(gpu.uuid(), gpu.index());
                }
            }
        }
        Map<String, List<String>> hcasByResource = new HashMap<>();
        bindings.forEach(b -> hcasByResource.put(b.resourceName(), b.hcas()));

        List<PodAllocation> out = new ArrayList<>();
        for (PodResources pod : pods.getPodResourcesList()) {
            List<AllocatedGpu> gpus = new ArrayList<>();
            Map<String, List<String>> rdmaIds = new TreeMap<>();
            for (ContainerResources container : pod.getContainersList()) {
                for (ContainerDevices devices : container.getDevicesList()) {
                    String resource = devices.getResourceName();
                    if (gpuResources.contains(resource)) {
                        for (String id : devices.getDeviceIdsList()) {
                            String uuid = gpuUuid(id);
                            gpus.add(new AllocatedGpu(id, uuid, uuid == null ? null : indexByUuid.get(uuid)));
                        }
                    } else if (hcasByResource.containsKey(resource)) {
                        rdmaIds.computeIfAbsent(resource, r -> new ArrayList<>()).addAll(devices.getDeviceIdsList());
                    }
                }
            }
            if (gpus.isEmpty() && rdmaIds.isEmpty()) {
                continue;
            }
            List<AllocatedRdmaResource> rdma = new ArrayList<>();
            rdmaIds.forEach((resource, ids) -> rdma.add(new AllocatedRdmaResource(resource, ids,
                    hcasByResource.get(resource))));
            out.add(new PodAllocation(pod.getNamespace(), pod.getName(), gpus, rdma));
        }
        out.sort(Comparator.comparing(PodAllocation::namespace).thenComparing(PodAllocation::name));
        return out;
    }

    /**
     * @param deviceId an NVIDIA device plugin id
     * @return the physical GPU's UUID ({@code GPU-...} with any {@code ::<replica>} suffix removed), or null for ids
     *         that are not GPU UUIDs (MIG instances {@code MIG-...}, other plugins)
     */
    static String gpuUuid(String deviceId) {
        String id = deviceId;
        int replica = id.indexOf("::");
        if (replica >= 0) {
            id = id.substring(0, replica);
        }
        return id.startsWith("GPU-") ? id : null;
    }

    private static List<Integer> allocatedGpus(List<PodAllocation> allocations) {
        Set<Integer> indices = new TreeSet<>();
        allocations.forEach(a -> a.gpus().forEach(g -> {
            if (g.index() != null) {
                indices.add(g.index());
            }
        }));
        return List.copyOf(indices);
    }

    private List<HcaPortStatus> ports(HostSnapshot host, List<PodAllocation> allocations) {
        if (host == null) {
            return List.of();
        }
        Map<String, Set<String>> podsByHca = new HashMap<>();
        for (PodAllocation pod : allocations) {
            for (AllocatedRdmaResource r : pod.rdmaResources()) {
                for (String hca : r.hcas()) {
                    podsByHca.computeIfAbsent(hca, h -> new TreeSet<>()).add(pod.namespace() + "/" + pod.name());
                }
            }
        }
        List<HcaPortStatus> out = new ArrayList<>();
        for (Hca hca : host.spec().hcas()) {
            int pods = podsByHca.getOrDefault(hca.name(), Set.of()).size();
            for (HcaPort port : hca.ports()) {
                Integer gids = host.gidEntries().get(HostSnapshot.portKey(hca.name(), port.number()));
                out.add(new HcaPortStatus(hca.name(), port.number(), port.state(), port.linkLayer(), port.rateGbps(),
                        gids, pods, settings.podLimitPerPort()));
            }
        }
        out.sort(Comparator.comparing(HcaPortStatus::hca, HcaNameOrder.INSTANCE)
                .thenComparingInt(HcaPortStatus::port));
        return out;
    }

    private static NodeHealth health(NodeTopologySpec spec, List<HcaPortStatus> ports) {
        Set<String> hardware = new TreeSet<>();
        for (Hca hca : spec.hcas()) {
            if (!hca.isSoftware()) {
                hardware.add(hca.name());
            }
        }
        boolean down = ports.stream().anyMatch(p -> hardware.contains(p.hca()) && !p.isUp());
        return down ? NodeHealth.DEGRADED : NodeHealth.HEALTHY;
    }

    private static Map<String, Integer> allocatableCounts(AllocatableResourcesResponse allocatable) {
        Map<String, Integer> counts = new TreeMap<>();
        if (allocatable != null) {
            for (ContainerDevices d : allocatable.getDevicesList()) {
                counts.merge(d.getResourceName(), d.getDeviceIdsCount(), Integer::sum);
            }
        }
        return counts;
    }

    private List<RdmaResourceStatus> rdmaStatus(List<RdmaResourceBinding> bindings,
                                                List<PodAllocation> allocations) {
        Map<String, Integer> allocatable = allocatableCounts(lastAllocatable);
        Map<String, Integer> used = new HashMap<>();
        allocations.forEach(a -> a.rdmaResources().forEach(r -> used.merge(r.resourceName(), r.deviceIds().size(),
                Integer::sum)));
        List<RdmaResourceStatus> out = new ArrayList<>();
        for (RdmaResourceBinding b : bindings) {
            out.add(new RdmaResourceStatus(b.resourceName(), b.hcas(), b.mappedBy(),
                    allocatable.get(b.resourceName()), used.getOrDefault(b.resourceName(), 0)));
        }
        out.sort(Comparator.comparing(RdmaResourceStatus::resourceName));
        return out;
    }

    private static List<NetdevAttachment> netdevs(NodeTopologySpec spec) {
        if (spec == null) {
            return List.of();
        }
        Set<NetdevAttachment> out = new TreeSet<>(Comparator.comparing(NetdevAttachment::netdev)
                .thenComparing(NetdevAttachment::hca, HcaNameOrder.INSTANCE)
                .thenComparingInt(NetdevAttachment::port));
        for (Hca hca : spec.hcas()) {
            for (HcaPort port : hca.ports()) {
                port.netdevs().forEach(n -> out.add(new NetdevAttachment(n, hca.name(), port.number())));
                if (hca.bondMaster() != null) {
                    out.add(new NetdevAttachment(hca.bondMaster(), hca.name(), port.number()));
                }
            }
        }
        return List.copyOf(out);
    }

    private void updateConditions(NodeObservation obs) {
        String reason;
        String message;
        if (obs.host() == null) {
            reason = NodeTopologyConditions.REASON_SYSFS_UNREADABLE;
            message = obs.sysfsProblem();
        } else if (obs.pods() == null || obs.allocatable() == null) {
            reason = NodeTopologyConditions.REASON_POD_RESOURCES_UNAVAILABLE;
            message = obs.podResourcesProblem();
        } else {
            reason = NodeTopologyConditions.REASON_OBSERVED;
            message = "sysfs and the kubelet's PodResources API were read";
        }
        if (obs.host() == null && obs.podResourcesProblem() != null) {
            message = message + "; also " + obs.podResourcesProblem();
        }
        boolean complete = obs.complete();
        put(NodeTopologyConditions.READY, complete ? "True" : "False", reason, message, obs.at());
        put(NodeTopologyConditions.STALE, complete ? "False" : "True", reason, message, obs.at());
    }

    /**
     * {@link NodeTopologyConditions#LOCALITY_KNOWN}: whether sysfs told GPU–HCA locality apart ({@link Locality}).
     * False with {@link NodeTopologyConditions#REASON_SOURCE_CANNOT_TELL} publishes no rail map; a scheduler then has
     * no pairs for the node and treats it as such (no made-up index-order pairs). Absent until sysfs was read.
     */
    private void updateLocality(NodeTopologySpec spec, NodeObservation obs) {
        if (spec == null) {
            return;
        }
        Locality l = spec.locality();
        switch (l.basis()) {
            case UNDETERMINED -> put(NodeTopologyConditions.LOCALITY_KNOWN, "False",
                    NodeTopologyConditions.REASON_SOURCE_CANNOT_TELL, l.reason(), obs.at());
            case NUMA -> put(NodeTopologyConditions.LOCALITY_KNOWN, "True",
                    NodeTopologyConditions.REASON_PAIRED_BY_NUMA, l.reason(), obs.at());
            case PCIE -> put(NodeTopologyConditions.LOCALITY_KNOWN, "True",
                    NodeTopologyConditions.REASON_PAIRED_BY_PCIE, spec.pairs().size() + " of "
                            + spec.gpus().size() + " GPUs paired by PCIe distance", obs.at());
        }
    }

    private void put(String type, String status, String reason, String message, Instant at) {
        Condition previous = conditions.get(type);
        String transition = previous != null && status.equals(previous.getStatus())
                ? previous.getLastTransitionTime() : at.truncatedTo(ChronoUnit.SECONDS).toString();
        conditions.put(type, new ConditionBuilder().withType(type).withStatus(status).withReason(reason)
                .withMessage(message).withLastTransitionTime(transition).build());
    }
}
