package dev.railyard.benchmarks.scale;

import dev.railyard.e2e.FixtureMachines;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * What the benchmark cluster holds, decided before anything is created (deterministic for a seed): N GPU nodes in
 * scalable units of {@value #SU_SIZE} under leaf/spine/core switches, the machine type of each, which GPUs are taken
 * by which bound pod, the daemon pods on every node, the pending 64-pod gang and the pending kube-scheduler pod.
 *
 * <ul>
 *   <li><b>Nodes</b> {@code gpu-00000..}: scalable unit {@code su-NNNN} = index / 32 (the tier-1 label), eight units
 *       per spine ({@code spine-NNN}), one core. Machines by unit, as the demo's three machine types from real
 *       {@code nvidia-smi topo -m} dumps: units 0 and 1 of every 4 are PCIe 8 GPU (case-06, two GPUs per HCA under
 *       one switch, all PIX), unit 2 DGX H100 (case-01, GPU i PIX to mlx5_i, so GPUs 4-7 pair with mlx5_4..7, which
 *       the seed's pods do not request), unit 3 HGX with 4 GPU NICs (case-05, odd GPUs SYS to every NIC). So an
 *       8-GPU pod of the seed's shape (mlx5_0..3, GPU–HCA distance at most PXB) fits only the PCIe machines: Railyard
 *       refuses the other two with their reasons, as it would in such a cluster.</li>
 *   <li><b>Occupancy</b> (seeded random per node): 40 % full (one 8-GPU worker of a bound gang of up to 8 pods on
 *       consecutive full nodes), 15 % two 4-GPU pods, 15 % one 4-GPU pod, 30 % free. Every bound GPU pod attaches to
 *       the seed's four RDMA networks and holds one address in each pool.</li>
 *   <li><b>Daemon pods</b>: {@code podsPerNode - 1} per node (so about {@code podsPerNode} pods per node with the
 *       GPU pods), from a fixed list of the DaemonSets a GPU node runs.</li>
 * </ul>
 *
 * @param nodes       node count
 * @param podsPerNode average pods per node (daemon pods = this − 1)
 * @param gangSize    pods of the pending Volcano gang (each 8 GPUs)
 * @param seed        random seed for the occupancy
 */
public record ClusterLayout(int nodes, int podsPerNode, int gangSize, long seed) {
    /** Nodes per scalable unit (one tier-1 domain). */
    public static final int SU_SIZE = 32;
    /** Scalable units per spine. */
    public static final int SUS_PER_SPINE = 8;
    /** Namespace of the GPU workloads and networks (the seed's). */
    public static final String PROD = "prod";
    /** Name of the pending gang's PodGroup and Volcano job. */
    public static final String GANG = "bench-gang";
    /** Name of the pending kube-scheduler pod. */
    public static final String KUBE_POD = "bench-kube-0";

    /** DGX H100 as the demo models it (case-01: GPU i PIX to mlx5_i; mlx5_0..3 carry lan2..lan5). */
    public static final FixtureMachines.Machine DGX = FixtureMachines.DGX_H100;

    /** DaemonSets of a GPU node: namespace and name, in the order they are kept when fewer are asked for. */
    public static final List<String[]> DAEMONSETS = List.of(
            new String[]{"kube-system", "kube-proxy"}, new String[]{"kube-system", "calico-node"},
            new String[]{"kube-system", "kube-multus-ds"}, new String[]{"kube-system", "whereabouts"},
            new String[]{"gpu-operator", "nvidia-device-plugin-daemonset"},
            new String[]{"network-operator", "rdma-shared-dp-ds"}, new String[]{"railyard-system", "railyard-agent"},
            new String[]{"gpu-operator", "nvidia-dcgm-exporter"}, new String[]{"monitoring", "node-exporter"},
            new String[]{"gpu-operator", "gpu-feature-discovery"}, new String[]{"gpu-operator", "nvidia-driver-daemonset"},
            new String[]{"gpu-operator", "nvidia-container-toolkit-daemonset"},
            new String[]{"gpu-operator", "nvidia-operator-validator"},
            new String[]{"gpu-operator", "gpu-operator-node-feature-discovery-worker"},
            new String[]{"network-operator", "mofed-ubuntu22.04-ds"}, new String[]{"kube-system", "node-local-dns"},
            new String[]{"kube-system", "csi-node-driver"}, new String[]{"monitoring", "fluent-bit"},
            new String[]{"kube-system", "kube-vip"}, new String[]{"monitoring", "promtail"});

    /** How a node's GPUs are used. */
    public enum Occupancy { FREE, ONE_HALF, TWO_HALVES, FULL }

    /**
     * A bound GPU pod.
     *
     * @param name  pod name (namespace {@link #PROD})
     * @param node  node index
     * @param gpus  GPU indices it holds
     * @param gang  its PodGroup's name
     * @param rank  its rank in the gang
     * @param gangSize pods in its gang
     */
    public record GpuPod(String name, int node, int[] gpus, String gang, int rank, int gangSize) {
    }

    /**
     * A bound gang (PodGroup) of GPU pods.
     *
     * @param name PodGroup name
     * @param pods its pods in rank order
     */
    public record BoundGang(String name, List<GpuPod> pods) {
    }

    /**
     * @throws IllegalArgumentException for nodes &lt; 1, podsPerNode outside 1..{@code DAEMONSETS.size() + 1} or a
     *                                  gang size outside 1..nodes
     */
    public ClusterLayout {
        if (nodes < 1) {
            throw new IllegalArgumentException("--nodes: at least 1 node, got " + nodes);
        }
        if (podsPerNode < 1 || podsPerNode > DAEMONSETS.size() + 1) {
            throw new IllegalArgumentException("--pods-per-node: 1.." + (DAEMONSETS.size() + 1) + ", got " + podsPerNode);
        }
        if (gangSize < 1 || gangSize > nodes) {
            throw new IllegalArgumentException("--gang-size: 1.." + nodes + " (the node count), got " + gangSize);
        }
    }

    /** Name of node {@code i}. */
    public static String nodeName(int i) {
        return String.format("gpu-%05d", i);
    }

    /** The tier-1 domain (scalable unit) of node {@code i}. */
    public static String leaf(int i) {
        return String.format("su-%04d", i / SU_SIZE);
    }

    /** The tier-2 domain of node {@code i}. */
    public static String spine(int i) {
        return String.format("spine-%03d", i / SU_SIZE / SUS_PER_SPINE);
    }

    /** The machine of node {@code i} (by scalable unit). */
    public static FixtureMachines.Machine machine(int i) {
        return switch ((i / SU_SIZE) % 4) {
            case 0, 1 -> FixtureMachines.PCIE_8GPU;
            case 2 -> DGX;
            default -> FixtureMachines.HGX_4NIC;
        };
    }

    /** Occupancy of every node, from the seed. */
    public Occupancy[] occupancy() {
        Random r = new Random(seed);
        Occupancy[] out = new Occupancy[nodes];
        for (int i = 0; i < nodes; i++) {
            double x = r.nextDouble();
            out[i] = x < 0.40 ? Occupancy.FULL : x < 0.55 ? Occupancy.TWO_HALVES : x < 0.70 ? Occupancy.ONE_HALF
                    : Occupancy.FREE;
        }
        return out;
    }

    /** The bound gangs: full nodes grouped 8 at a time in node order; each 4-GPU pod its own one-pod gang. */
    public List<BoundGang> boundGangs() {
        Occupancy[] occ = occupancy();
        List<BoundGang> gangs = new ArrayList<>();
        List<Integer> run = new ArrayList<>();
        for (int i = 0; i <= nodes; i++) {
            if (i < nodes && occ[i] == Occupancy.FULL) {
                run.add(i);
            }
            if (run.size() == 8 || (i == nodes || occ[i] != Occupancy.FULL) && !run.isEmpty()) {
                String g = String.format("train-%05d", gangs.size());
                List<GpuPod> pods = new ArrayList<>();
                for (int k = 0; k < run.size(); k++) {
                    pods.add(new GpuPod(g + "-worker-" + k, run.get(k), new int[]{0, 1, 2, 3, 4, 5, 6, 7}, g, k,
                            run.size()));
                }
                gangs.add(new BoundGang(g, pods));
                run.clear();
            }
            if (i < nodes && (occ[i] == Occupancy.ONE_HALF || occ[i] == Occupancy.TWO_HALVES)) {
                for (int half = 0; half < (occ[i] == Occupancy.TWO_HALVES ? 2 : 1); half++) {
                    String g = String.format("ft-%05d", gangs.size());
                    int[] gpus = half == 0 ? new int[]{0, 1, 2, 3} : new int[]{4, 5, 6, 7};
                    gangs.add(new BoundGang(g, List.of(new GpuPod(g + "-worker-0", i, gpus, g, 0, 1))));
                }
            }
        }
        return gangs;
    }

    /** Daemon pods per node. */
    public int daemonsPerNode() {
        return podsPerNode - 1;
    }

    /** Names of the pending gang's pods, in rank order. */
    public List<String> gangPods() {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < gangSize; i++) {
            out.add(GANG + "-worker-" + i);
        }
        return out;
    }
}
