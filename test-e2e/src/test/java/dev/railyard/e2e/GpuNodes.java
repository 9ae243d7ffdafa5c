package dev.railyard.e2e;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Fake GPU nodes as a kubelet would register them: by default the seed's 8-GPU hosts with four mlx5 HCAs shared
 * through k8s-rdma-shared-dev-plugin ({@code nvidia.com/mlx5_0..3}, {@code rdmaHcaMax: 100} each, as the seed setup
 * has them), or any other GPU count and RDMA resources ({@link MachineShape}), plus CPU, memory and pod slots,
 * Ready, with an InternalIP string (no traffic ever goes there).
 */
public final class GpuNodes {

    /** Label on every node the {@link FakeKubelet} manages. */
    public static final String FAKE_NODE_LABEL = "railyard.dev/e2e-fake-node";
    /** GPUs per node ({@code nvidia.com/gpu}). */
    public static final int GPUS = 8;
    /** Shared slots per HCA resource ({@code rdmaHcaMax} in the seed). */
    public static final int HCA_SLOTS = 100;

    private GpuNodes() {
    }

    /** Capacity (= allocatable) of one seed GPU node. */
    public static Map<String, Quantity> capacity() {
        return capacity(GPUS, FixtureMachines.RDMA_RESOURCES.keySet(), HCA_SLOTS);
    }

    /**
     * Capacity (= allocatable) of a GPU node: the seed's CPU, memory, pods and storage, {@code gpus}
     * {@code nvidia.com/gpu}, and {@code slots} of every RDMA resource.
     */
    public static Map<String, Quantity> capacity(int gpus, Iterable<String> rdmaResources, int slots) {
        Map<String, Quantity> c = new LinkedHashMap<>();
        c.put("cpu", new Quantity("96"));
        c.put("memory", new Quantity("1536Gi"));
        c.put("pods", new Quantity("110"));
        c.put("ephemeral-storage", new Quantity("3500Gi"));
        c.put("nvidia.com/gpu", new Quantity(Integer.toString(gpus)));
        for (String r : rdmaResources) {
            c.put(r, new Quantity(Integer.toString(slots)));
        }
        return c;
    }

    /**
     * A Ready node named {@code name} with the seed capacity, labelled as a fake node; {@code index} (1–250) picks
     * its InternalIP string {@code 10.250.0.<index>}.
     *
     * @throws IllegalArgumentException if {@code index} is outside 1–250
     */
    public static Node node(String name, int index) {
        return node(name, index, capacity());
    }

    /**
     * {@link #node(String, int)} with the given capacity (= allocatable).
     *
     * @throws IllegalArgumentException if {@code index} is outside 1–250
     */
    public static Node node(String name, int index, Map<String, Quantity> capacity) {
        if (index < 1 || index > 250) {
            throw new IllegalArgumentException("node index " + index + " outside 1-250 for node " + name);
        }
        String now = Instant.now().toString();
        return new NodeBuilder()
                .withNewMetadata()
                    .withName(name)
                    .addToLabels("kubernetes.io/hostname", name)
                    .addToLabels("kubernetes.io/os", "linux")
                    .addToLabels("kubernetes.io/arch", "amd64")
                    .addToLabels(FAKE_NODE_LABEL, "true")
                .endMetadata()
                .withNewStatus()
                    .withCapacity(capacity)
                    .withAllocatable(capacity)
                    .addNewCondition().withType("Ready").withStatus("True").withReason("KubeletReady")
                        .withMessage("fake kubelet (railyard e2e)").withLastHeartbeatTime(now)
                        .withLastTransitionTime(now).endCondition()
                    .addNewAddress().withType("InternalIP").withAddress("10.250.0." + index).endAddress()
                    .addNewAddress().withType("Hostname").withAddress(name).endAddress()
                    .withNewNodeInfo().withArchitecture("amd64").withOperatingSystem("linux")
                        .withKubeletVersion("v1.35.4").withContainerRuntimeVersion("fake://0")
                        .withKernelVersion("").withOsImage("").withKubeProxyVersion("").withMachineID("")
                        .withSystemUUID("").withBootID("").endNodeInfo()
                .endStatus()
                .build();
    }
}
