package dev.railyard.scheduler.simulate;

import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.NodeTopologySpec;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.NodeState;
import dev.railyard.topology.fabric.FabricModel;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The mutable cluster state one strategy works on during a simulation. Not thread-safe.
 *
 * <p>Conservation is checked on every change: {@link #take} refuses a GPU that is already held or does not exist,
 * {@link #release} one that is not held (both throw {@link IllegalStateException}: a simulator bug, never input).
 */
final class SimCluster {
    private final ClusterSnapshot base;
    private final NodeState[] nodes;
    private final int[] free;
    private final int[] total;
    private final Map<String, Integer> index = new HashMap<>();
    private final Map<NodeTopologySpec, Map<Integer, GpuHcaPair>> pairs = new IdentityHashMap<>();
    private final Map<NodeTopologySpec, List<Integer>> gpuLists = new IdentityHashMap<>();
    private final Map<NodeTopologySpec, Set<Integer>> nearGpus = new IdentityHashMap<>();
    private ClusterSnapshot current;
    private long busy;
    private final long capacity;

    SimCluster(ClusterSnapshot base) {
        this.base = base;
        this.nodes = base.nodes().toArray(new NodeState[0]);
        this.free = new int[nodes.length];
        this.total = new int[nodes.length];
        long cap = 0;
        for (int i = 0; i < nodes.length; i++) {
            index.put(nodes[i].name(), i);
            total[i] = nodes[i].topology() == null ? 0 : nodes[i].topology().gpus().size();
            free[i] = nodes[i].schedulable() ? nodes[i].freeGpuCount() : 0;
            cap += total[i];
            busy += total[i] - nodes[i].freeGpuCount();
        }
        this.capacity = cap;
        this.current = base;
    }

    int size() {
        return nodes.length;
    }

    NodeState node(int i) {
        return nodes[i];
    }

    Integer indexOf(String node) {
        return index.get(node);
    }

    FabricModel fabric() {
        return base.fabric();
    }

    /** @return GPUs in the cluster */
    long capacity() {
        return capacity;
    }

    /** @return GPUs held now */
    long busy() {
        return busy;
    }

    /** @return the state as an engine snapshot (rebuilt after changes) */
    ClusterSnapshot snapshot() {
        if (current == null) {
            current = new ClusterSnapshot(List.of(nodes), new ArrayList<>(base.networks().values()), base.fabric(),
                    base.pools());
        }
        return current;
    }

    /** @return free GPUs of node i (0 on an unschedulable node) */
    int free(int i) {
        return free[i];
    }

    int total(int i) {
        return total[i];
    }

    /** @return true when GPU g of node i is free */
    boolean isFree(int i, int gpu) {
        return !nodes[i].allocatedGpus().contains(gpu);
    }

    /** @return the first {@code n} free GPUs of node i by index, skipping {@code also}, or null */
    List<Integer> firstFree(int i, int n, Set<Integer> also) {
        if (nodes[i].topology() == null || !nodes[i].schedulable()) {
            return null;
        }
        List<Integer> out = new ArrayList<>();
        for (int g : gpuIndices(i)) {
            if (isFree(i, g) && !also.contains(g)) {
                out.add(g);
                if (out.size() == n) {
                    return out;
                }
            }
        }
        return null;
    }

    /** @return GPU indices of node i, ascending */
    List<Integer> gpuIndices(int i) {
        return gpuLists.computeIfAbsent(nodes[i].topology(),
                s -> s.gpus().stream().map(g -> g.index()).sorted().toList());
    }

    /** @return the GPU's own pair from the node's rail map, or null */
    GpuHcaPair home(int i, int gpu) {
        NodeTopologySpec spec = nodes[i].topology();
        return pairs.computeIfAbsent(spec, s -> {
            Map<Integer, GpuHcaPair> m = new HashMap<>();
            s.pairs().forEach(p -> m.putIfAbsent(p.gpu(), p));
            return m;
        }).get(gpu);
    }

    /** @return the GPU as NCCL would use it when the pod sees every HCA: through its own pair */
    PlacementStrategy.GpuUse homeUse(int i, int gpu) {
        GpuHcaPair p = home(i, gpu);
        return p == null ? new PlacementStrategy.GpuUse(gpu, null, -1, PcieDistance.SYS)
                : new PlacementStrategy.GpuUse(gpu, p.hca(), p.rail(), p.distance());
    }

    /** @return free GPUs of node i with some HCA at PIX or PXB (an upper bound on what required affinity uses) */
    int freeNearHca(int i) {
        if (free[i] == 0) {
            return 0;
        }
        Set<Integer> near = nearGpus.computeIfAbsent(nodes[i].topology(), s -> {
            Set<Integer> out = new java.util.HashSet<>();
            s.distances().forEach(d -> {
                if (d.distance().isAtMost(PcieDistance.PXB)) {
                    out.add(d.gpu());
                }
            });
            return out;
        });
        int n = 0;
        for (int g : near) {
            if (isFree(i, g)) {
                n++;
            }
        }
        return n;
    }

    void take(String node, List<Integer> gpus) {
        int i = index(node);
        Set<Integer> held = nodes[i].allocatedGpus();
        Set<Integer> add = new TreeSet<>(gpus);
        if (add.size() != gpus.size()) {
            throw new IllegalStateException("conservation: GPU listed twice on " + node + ": " + gpus);
        }
        for (int g : add) {
            if (held.contains(g) || !gpuIndices(i).contains(g)) {
                throw new IllegalStateException("conservation: GPU " + g + " on " + node
                        + (held.contains(g) ? " is already held" : " does not exist"));
            }
        }
        nodes[i] = nodes[i].withAllocated(add, Map.of());
        free[i] -= add.size();
        busy += add.size();
        current = null;
    }

    void release(String node, List<Integer> gpus) {
        int i = index(node);
        Set<Integer> left = new TreeSet<>(nodes[i].allocatedGpus());
        for (int g : gpus) {
            if (!left.remove(g)) {
                throw new IllegalStateException("conservation: GPU " + g + " on " + node + " released but not held");
            }
        }
        NodeState n = nodes[i];
        nodes[i] = new NodeState(n.name(), n.labels(), n.topology(), left, n.hcaResources(), n.schedulable());
        free[i] += gpus.size();
        busy -= gpus.size();
        current = null;
    }

    private int index(String node) {
        Integer i = index.get(node);
        if (i == null) {
            throw new IllegalStateException("conservation: node " + node + " is not in the cluster");
        }
        return i;
    }
}
