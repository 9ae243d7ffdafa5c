package dev.railyard.scheduler.simulate;

import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.NodeTopologySpec;
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

/** The mutable cluster state one strategy works on during a replay. Not thread-safe. */
final class SimCluster {
    private final ClusterSnapshot base;
    private final NodeState[] nodes;
    private final Map<String, Integer> index = new HashMap<>();
    private final Map<NodeTopologySpec, Map<Integer, GpuHcaPair>> pairs = new IdentityHashMap<>();
    private ClusterSnapshot current;

    SimCluster(ClusterSnapshot base) {
        this.base = base;
        this.nodes = base.nodes().toArray(new NodeState[0]);
        for (int i = 0; i < nodes.length; i++) {
            index.put(nodes[i].name(), i);
        }
        this.current = base;
    }

    int size() {
        return nodes.length;
    }

    NodeState node(int i) {
        return nodes[i];
    }

    int indexOf(String node) {
        return index.get(node);
    }

    FabricModel fabric() {
        return base.fabric();
    }

    /** @return the state as an engine snapshot (rebuilt after changes) */
    ClusterSnapshot snapshot() {
        if (current == null) {
            current = new ClusterSnapshot(List.of(nodes), new ArrayList<>(base.networks().values()), base.fabric(),
                    base.pools());
        }
        return current;
    }

    int free(int i) {
        return nodes[i].freeGpuCount();
    }

    int total(int i) {
        return nodes[i].topology() == null ? 0 : nodes[i].topology().gpus().size();
    }

    /** @return the first {@code n} free GPUs of node i by index, skipping {@code also}, or null */
    List<Integer> firstFree(int i, int n, Set<Integer> also) {
        List<Integer> out = new ArrayList<>();
        if (nodes[i].topology() == null) {
            return null;
        }
        List<Integer> all = nodes[i].topology().gpus().stream().map(g -> g.index()).sorted().toList();
        for (int g : all) {
            if (!nodes[i].allocatedGpus().contains(g) && !also.contains(g)) {
                out.add(g);
                if (out.size() == n) {
                    return out;
                }
            }
        }
        return null;
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

    void take(String node, List<Integer> gpus) {
        int i = index.get(node);
        nodes[i] = nodes[i].withAllocated(Set.copyOf(gpus), Map.of());
        current = null;
    }

    void release(String node, List<Integer> gpus) {
        int i = index.get(node);
        Set<Integer> left = new TreeSet<>(nodes[i].allocatedGpus());
        gpus.forEach(left::remove);
        NodeState n = nodes[i];
        nodes[i] = new NodeState(n.name(), n.labels(), n.topology(), left, n.hcaResources(), n.schedulable());
        current = null;
    }
}
