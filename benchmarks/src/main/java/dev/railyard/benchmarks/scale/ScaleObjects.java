package dev.railyard.benchmarks.scale;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.railyard.api.hints.HintAnnotations;
import dev.railyard.api.hints.PlacementHint;
import dev.railyard.api.multus.MultusAnnotations;
import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.e2e.FixtureMachines;
import dev.railyard.e2e.GpuNodes;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Kubernetes objects of a {@link ClusterLayout}: Nodes as a kubelet registers them, NodeTopologies as the node
 * agent publishes them (spec from the machine's real {@code nvidia-smi topo -m} dump, status with the GPU pods'
 * allocations), daemon pods, bound GPU pods with the hints Railyard wrote at bind, the pending gang and kube pod,
 * PodGroups. Pod and container fields follow what the seed's job ({@code test-e2e/.../seed/rdma-test-job.yaml})
 * and common DaemonSets set, so objects have a realistic size; all values are made up where the seed says nothing.
 */
final class ScaleObjects {
    /** The seed's four networks in attachment order, each pod's {@code net1..net4}. */
    static final List<String> NETWORKS = List.of("rdma-net-ipam-lan2", "rdma-net-ipam-lan3", "rdma-net-ipam-lan4",
            "rdma-net-ipam-lan5");
    static final String NOW = "2026-12-01T08:00:00Z";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesSerialization serialization;
    /** Per machine: its NodeTopology as a map (spec and a status without allocations), computed once. */
    private final Map<FixtureMachines.Machine, Map<String, Object>> topologies = new ConcurrentHashMap<>();
    private final Map<FixtureMachines.Machine, NodeTopologySpec> specs = new ConcurrentHashMap<>();
    private final ScaleNetworks networks;

    ScaleObjects(KubernetesSerialization serialization, ScaleNetworks networks) {
        this.serialization = serialization;
        this.networks = networks;
    }

    /** Node {@code i} (labels for the fabric tiers, the GPU product, seed capacity, 30 images). */
    Node node(int i) {
        String name = ClusterLayout.nodeName(i);
        FixtureMachines.Machine m = ClusterLayout.machine(i);
        String product = m == FixtureMachines.PCIE_8GPU ? "NVIDIA-L40S" : "NVIDIA-H100-80GB-HBM3";
        NodeBuilder b = new NodeBuilder()
                .withNewMetadata().withName(name)
                    .addToLabels("kubernetes.io/hostname", name).addToLabels("kubernetes.io/os", "linux")
                    .addToLabels("kubernetes.io/arch", "amd64")
                    .addToLabels("network.topology.nvidia.com/leaf", ClusterLayout.leaf(i))
                    .addToLabels("network.topology.nvidia.com/spine", ClusterLayout.spine(i))
                    .addToLabels("network.topology.nvidia.com/core", "core")
                    .addToLabels("nvidia.com/gpu.product", product).addToLabels("nvidia.com/gpu.count", "8")
                    .addToLabels("feature.node.kubernetes.io/rdma.available", "true")
                    .addToLabels("node.kubernetes.io/instance-type", m.fixture().substring(0, 7))
                    .addToAnnotations("node.alpha.kubernetes.io/ttl", "0")
                    .addToAnnotations("volumes.kubernetes.io/controller-managed-attach-detach", "true")
                .endMetadata()
                .withNewSpec().withPodCIDR(String.format("10.%d.%d.0/24", 128 + i / 256, i % 256)).endSpec()
                .withNewStatus()
                    .withCapacity(GpuNodes.capacity()).withAllocatable(GpuNodes.capacity())
                    .addNewAddress().withType("InternalIP").withAddress(hostIp(i)).endAddress()
                    .addNewAddress().withType("Hostname").withAddress(name).endAddress()
                    .withNewNodeInfo().withArchitecture("amd64").withOperatingSystem("linux")
                        .withKubeletVersion("v1.35.4").withContainerRuntimeVersion("containerd://2.1.4")
                        .withKernelVersion("6.8.0-60-generic").withOsImage("Ubuntu 24.04.2 LTS")
                        .withKubeProxyVersion("").withMachineID(String.format("%032x", i))
                        .withSystemUUID(String.format("4c4c4544-%04x-0000-0000-%012x", i % 65536, i))
                        .withBootID(String.format("%08x-0000-4000-8000-%012x", i, i)).endNodeInfo()
                .endStatus();
        for (String type : new String[]{"MemoryPressure", "DiskPressure", "PIDPressure", "Ready"}) {
            boolean ready = type.equals("Ready");
            b.editStatus().addNewCondition().withType(type).withStatus(ready ? "True" : "False")
                    .withReason(ready ? "KubeletReady" : "KubeletHasSufficient" + type)
                    .withMessage(ready ? "kubelet is posting ready status" : "kubelet has sufficient resources")
                    .withLastHeartbeatTime(NOW).withLastTransitionTime(NOW).endCondition().endStatus();
        }
        for (int k = 0; k < 30; k++) {
            b.editStatus().addNewImage().withNames(
                    String.format("nvcr.io/team/image-%02d@sha256:%064x", k, (long) k * 7919),
                    String.format("nvcr.io/team/image-%02d:v1.%d", k, k)).withSizeBytes(1_000_000_000L + k)
                    .endImage().endStatus();
        }
        return b.build();
    }

    static String hostIp(int i) {
        return String.format("10.250.%d.%d", i / 250, 1 + i % 250);
    }

    /** The machine's paired spec (read and paired once). */
    NodeTopologySpec spec(FixtureMachines.Machine m) {
        return specs.computeIfAbsent(m, FixtureMachines::spec);
    }

    /**
     * NodeTopology of node {@code i} as a generic object (spec and status; status holds one allocation per GPU pod).
     */
    GenericKubernetesResource nodeTopology(int i, List<ClusterLayout.GpuPod> pods) {
        FixtureMachines.Machine m = ClusterLayout.machine(i);
        Map<String, Object> template = topologies.computeIfAbsent(m, this::template);
        @SuppressWarnings("unchecked")
        Map<String, Object> status = new LinkedHashMap<>((Map<String, Object>) template.get("status"));
        List<Object> allocations = new ArrayList<>();
        List<Integer> allocated = new ArrayList<>();
        for (ClusterLayout.GpuPod p : pods) {
            List<Object> gpus = new ArrayList<>();
            for (int g : p.gpus()) {
                String uuid = gpuUuid(i, g);
                gpus.add(Map.of("deviceId", uuid, "uuid", uuid, "index", g));
                allocated.add(g);
            }
            List<Object> rdma = new ArrayList<>();
            for (int h = 0; h < 4; h++) {
                rdma.add(Map.of("resourceName", "nvidia.com/mlx5_" + h, "deviceIds", List.of(Integer.toString(p.rank() % 100)),
                        "hcas", List.of("mlx5_" + h)));
            }
            allocations.add(Map.of("namespace", ClusterLayout.PROD, "name", p.name(), "gpus", gpus,
                    "rdmaResources", rdma));
        }
        allocated.sort(null);
        status.put("allocatedGpus", allocated);
        status.put("allocations", allocations);
        status.put("observedTime", NOW);
        return new GenericKubernetesResourceBuilder().withApiVersion("railyard.dev/v1alpha1").withKind("NodeTopology")
                .withNewMetadata().withName(ClusterLayout.nodeName(i))
                    .addToLabels("app.kubernetes.io/managed-by", "railyard-agent").endMetadata()
                .addToAdditionalProperties("spec", template.get("spec"))
                .addToAdditionalProperties("status", status)
                .build();
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> template(FixtureMachines.Machine m) {
        return serialization.convertValue(FixtureMachines.nodeTopology("template", m), Map.class);
    }

    static String gpuUuid(int node, int gpu) {
        return String.format("GPU-%08x-%04x-4%03x-8000-%012x", node, gpu, gpu, (long) node * 8 + gpu);
    }

    /** Daemon pod {@code d} (index into {@link ClusterLayout#DAEMONSETS}) on node {@code i}, bound. */
    static Pod daemonPod(int i, int d) {
        String ns = ClusterLayout.DAEMONSETS.get(d)[0];
        String ds = ClusterLayout.DAEMONSETS.get(d)[1];
        String node = ClusterLayout.nodeName(i);
        return new PodBuilder()
                .withNewMetadata().withName(ds + "-" + Integer.toString(i, 36)).withNamespace(ns)
                    .addToLabels("app.kubernetes.io/name", ds).addToLabels("controller-revision-hash", "6d4f8b7c9")
                    .addToLabels("pod-template-generation", "1")
                    .addNewOwnerReference().withApiVersion("apps/v1").withKind("DaemonSet").withName(ds)
                        .withUid(String.format("5f0c3b2a-%04x-4e1d-9c7b-%012x", d, (long) d)).withController(true)
                        .withBlockOwnerDeletion(true).endOwnerReference()
                .endMetadata()
                .withNewSpec().withNodeName(node).withServiceAccountName(ds).withPriorityClassName("system-node-critical")
                    .withNewAffinity().withNewNodeAffinity().withNewRequiredDuringSchedulingIgnoredDuringExecution()
                        .addNewNodeSelectorTerm().addNewMatchField().withKey("metadata.name").withOperator("In")
                        .withValues(node).endMatchField().endNodeSelectorTerm()
                        .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().endAffinity()
                    .addNewContainer().withName(ds.replace(".", "")).withImage("registry.example.com/" + ds + ":v1.4.2")
                        .withImagePullPolicy("IfNotPresent")
                        .addNewEnv().withName("NODE_NAME").withNewValueFrom().withNewFieldRef().withFieldPath("spec.nodeName")
                            .endFieldRef().endValueFrom().endEnv()
                        .addNewEnv().withName("LOG_LEVEL").withValue("info").endEnv()
                        .withNewResources().addToRequests("cpu", new Quantity("50m"))
                            .addToRequests("memory", new Quantity("64Mi")).addToLimits("memory", new Quantity("256Mi"))
                        .endResources()
                        .addNewVolumeMount().withName("host-sys").withMountPath("/host/sys").withReadOnly(true).endVolumeMount()
                        .withTerminationMessagePath("/dev/termination-log").withTerminationMessagePolicy("File")
                    .endContainer()
                    .addNewVolume().withName("host-sys").withNewHostPath().withPath("/sys").withType("").endHostPath()
                        .endVolume()
                    .addNewToleration().withOperator("Exists").endToleration()
                    .withRestartPolicy("Always").withDnsPolicy("ClusterFirst").withSchedulerName("default-scheduler")
                    .withTerminationGracePeriodSeconds(30L)
                .endSpec().build();
    }

    /** The seed's worker pod shape: pytorch container, its NCCL env, {@code gpus} GPUs, one slot of each mlx5_0..3. */
    private static PodBuilder seedWorker(String name, String gang, int gpus, String scheduler) {
        PodBuilder b = new PodBuilder()
                .withNewMetadata().withName(name).withNamespace(ClusterLayout.PROD)
                    .addToLabels("volcano.sh/job-name", gang).addToLabels("volcano.sh/job-namespace", ClusterLayout.PROD)
                    .addToLabels("volcano.sh/queue-name", "default").addToLabels("volcano.sh/task-spec", "worker")
                    .addToAnnotations(MultusAnnotations.NETWORKS, String.join(",", NETWORKS))
                    .addToAnnotations("scheduling.k8s.io/group-name", gang)
                    .addToAnnotations("volcano.sh/job-name", gang).addToAnnotations("volcano.sh/task-spec", "worker")
                    .addNewOwnerReference().withApiVersion("batch.volcano.sh/v1alpha1").withKind("Job").withName(gang)
                        .withUid(String.format("0c1e5b7a-93f2-4b7e-a1d4-%012x", gang.hashCode() & 0xffffffffL))
                        .withController(true).withBlockOwnerDeletion(true).endOwnerReference()
                .endMetadata()
                .withNewSpec().withSchedulerName(scheduler)
                    .addNewContainer().withName("pytorch").withImage("torch").withCommand("/bin/bash", "-c", "sleep 1440h")
                        .addNewEnv().withName("NCCL_DEBUG").withValue("INFO").endEnv()
                        .addNewEnv().withName("NCCL_IB_DISABLE").withValue("0").endEnv()
                        .addNewEnv().withName("NCCL_NET_GDR_READ").withValue("1").endEnv()
                        .addNewEnv().withName("NCCL_IB_HCA").withValue("mlx5").endEnv()
                        .addNewEnv().withName("NCCL_IB_GID_INDEX").withValue("5").endEnv()
                        .addNewEnv().withName("NCCL_SOCKET_IFNAME").withValue("eth0").endEnv()
                        .withNewResources().endResources()
                    .endContainer()
                    .withRestartPolicy("OnFailure").withDnsPolicy("ClusterFirst")
                .endSpec();
        Map<String, Quantity> res = new LinkedHashMap<>();
        res.put("nvidia.com/gpu", new Quantity(Integer.toString(gpus)));
        for (int h = 0; h < 4; h++) {
            res.put("nvidia.com/mlx5_" + h, new Quantity("1"));
        }
        b.editSpec().editFirstContainer().editResources().withLimits(res).withRequests(new LinkedHashMap<>(res))
                .endResources().endContainer().endSpec();
        return b;
    }

    /** A bound GPU pod with the hints Railyard writes at bind and the network-status multus writes. */
    Pod boundGpuPod(ClusterLayout.GpuPod p, int addressOffset) {
        String node = ClusterLayout.nodeName(p.node());
        PodBuilder b = seedWorker(p.name(), p.gang(), p.gpus().length, "volcano");
        b.editSpec().withNodeName(node).endSpec();
        PlacementHint hint = hint(p);
        try {
            b.editMetadata().addToAnnotations(HintAnnotations.PLACEMENT, JSON.writeValueAsString(hint))
                    .addToAnnotations(HintAnnotations.NCCL_IB_HCA, hint.nccl().ibHca())
                    .addToAnnotations(HintAnnotations.RANK, Integer.toString(p.rank()))
                    .addToAnnotations(HintAnnotations.RAILS, String.join(",", hint.gpus().stream()
                            .map(g -> Integer.toString(g.rail())).toList()))
                    .addToAnnotations(MultusAnnotations.NETWORK_STATUS, networks.networkStatus(p.node(), addressOffset))
                    .endMetadata();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return b.build();
    }

    /** The placement hint of a bound pod: its GPUs with the HCA each pairs with on its machine. */
    PlacementHint hint(ClusterLayout.GpuPod p) {
        FixtureMachines.Machine m = ClusterLayout.machine(p.node());
        Map<Integer, GpuHcaPair> pairs = FixtureMachines.pairsByGpu(spec(m));
        List<PlacementHint.GpuHint> gpus = new ArrayList<>();
        List<String> hcas = new ArrayList<>();
        for (int g : p.gpus()) {
            GpuHcaPair pair = pairs.get(g);
            String hca = pair != null ? pair.hca() : "mlx5_" + (g % 4);
            int rail = pair != null ? pair.rail() : g % 4;
            PcieDistance d = pair != null ? pair.distance() : PcieDistance.SYS;
            String netdev = m.netdevs().get(hca);
            int net = netdev == null ? -1 : List.of("lan2", "lan3", "lan4", "lan5").indexOf(netdev);
            gpus.add(new PlacementHint.GpuHint(g, gpuUuid(p.node(), g), null, hca, 1, netdev, rail, d,
                    net < 0 ? null : ClusterLayout.PROD + "/" + NETWORKS.get(net), net < 0 ? null : "net" + (net + 1)));
            if (!hcas.contains(hca + ":1")) {
                hcas.add(hca + ":1");
            }
        }
        boolean far = gpus.stream().anyMatch(g -> g.distance().compareTo(PcieDistance.PXB) > 0);
        var nccl = new PlacementHint.NcclSettings("=" + String.join(",", hcas), "=eth0", networks.addrRange(), "AF_INET",
                far ? "SYS" : null);
        return new PlacementHint(PlacementHint.VERSION, ClusterLayout.nodeName(p.node()),
                ClusterLayout.PROD + "/" + p.gang(), p.gangSize(), p.rank(), List.of(), gpus, nccl, List.of(), null);
    }

    /** A pending worker of the benchmark gang (8 GPUs, Volcano). */
    static Pod pendingGangPod(String name) {
        return seedWorker(name, ClusterLayout.GANG, 8, "volcano").build();
    }

    /** The pending kube-scheduler pod: the seed's worker shape for the default scheduler, no gang. */
    static Pod pendingKubePod() {
        Pod p = seedWorker(ClusterLayout.KUBE_POD, "unused", 8, "default-scheduler").build();
        p.getMetadata().getAnnotations().remove("scheduling.k8s.io/group-name");
        p.getMetadata().getAnnotations().remove("volcano.sh/job-name");
        p.getMetadata().getAnnotations().remove("volcano.sh/task-spec");
        p.getMetadata().setLabels(Map.of("app.kubernetes.io/name", "bench-kube"));
        p.getMetadata().setOwnerReferences(List.of());
        return p;
    }

    /**
     * Running status as the kubelet reports it for a pod on node {@code i} ({@code podIp} its cluster address);
     * {@code pod} as the API server stored it at create.
     */
    static PodStatus running(Pod pod, int i, String podIp) {
        PodStatusBuilder s = new PodStatusBuilder().withPhase("Running").withHostIP(hostIp(i)).withPodIP(podIp)
                .addNewPodIP(podIp).addNewHostIP(hostIp(i)).withStartTime(NOW)
                // the API server computed the QoS class at create and refuses any other value
                .withQosClass(pod.getStatus() == null ? null : pod.getStatus().getQosClass());
        for (String type : new String[]{"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady",
                "PodScheduled"}) {
            s.addNewCondition().withType(type).withStatus("True").withLastTransitionTime(NOW).endCondition();
        }
        var c = pod.getSpec().getContainers().getFirst();
        s.addNewContainerStatus().withName(c.getName()).withImage(c.getImage())
                .withImageID(c.getImage() + "@sha256:" + String.format("%064x", c.getImage().hashCode() & 0xffffffffL))
                .withContainerID("containerd://" + String.format("%064x", (long) pod.getMetadata().getName().hashCode()))
                .withReady(true).withStarted(true).withRestartCount(0)
                .withNewState().withNewRunning().withStartedAt(NOW).endRunning().endState().endContainerStatus();
        return s.build();
    }

    /** A Volcano PodGroup ({@code scheduling.volcano.sh/v1beta1}) for {@code minMember} pods of {@code gpus} GPUs. */
    static GenericKubernetesResource podGroup(String name, int minMember, int gpus) {
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("minMember", minMember);
        spec.put("queue", "default");
        spec.put("minResources", Map.of("nvidia.com/gpu", Integer.toString(minMember * gpus),
                "count/pods", Integer.toString(minMember)));
        return new GenericKubernetesResourceBuilder().withApiVersion("scheduling.volcano.sh/v1beta1").withKind("PodGroup")
                .withNewMetadata().withName(name).withNamespace(ClusterLayout.PROD)
                    .addNewOwnerReference().withApiVersion("batch.volcano.sh/v1alpha1").withKind("Job").withName(name)
                        .withUid(String.format("0c1e5b7a-93f2-4b7e-a1d4-%012x", name.hashCode() & 0xffffffffL))
                        .withController(true).withBlockOwnerDeletion(true).endOwnerReference()
                .endMetadata()
                .addToAdditionalProperties("spec", spec).build();
    }
}
