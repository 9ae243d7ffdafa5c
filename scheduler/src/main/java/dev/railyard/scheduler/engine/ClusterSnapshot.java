package dev.railyard.scheduler.engine;

import dev.railyard.scheduler.ipam.AddressPools;
import dev.railyard.topology.fabric.FabricModel;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The cluster as one scheduling cycle sees it, taken once and immutable while the cycle runs: nodes (sorted by
 * name, which fixes every tie-break), secondary networks, the fabric and the address pools.
 */
public final class ClusterSnapshot {
    private final List<NodeState> nodes;
    private final Map<String, Integer> index;
    private final Map<String, SecondaryNetwork> networks;
    private final FabricModel fabric;
    private final AddressPools pools;
    private final List<String> nodeNames;
    private final int nodeNamesHash;
    /** {@link #networks()}'s hash code, computed on first use (0: not yet; a racy but idempotent cache). */
    private int networksHash;

    /**
     * @param nodes    the nodes
     * @param networks secondary networks (NetworkAttachmentDefinitions with their master netdev and range)
     * @param fabric   the fabric; {@link FabricModel#empty()} when unknown
     * @param pools    address pools, or null when unknown (pool checks are then skipped, with a notice)
     * @throws IllegalArgumentException when two nodes share a name
     */
    public ClusterSnapshot(List<NodeState> nodes, List<SecondaryNetwork> networks, FabricModel fabric,
                           AddressPools pools) {
        List<NodeState> sorted = new ArrayList<>(nodes);
        sorted.sort(Comparator.comparing(NodeState::name));
        this.nodes = Collections.unmodifiableList(sorted);
        Map<String, Integer> idx = new HashMap<>();
        for (int i = 0; i < sorted.size(); i++) {
            if (idx.put(sorted.get(i).name(), i) != null) {
                throw new IllegalArgumentException("node " + sorted.get(i).name() + " appears twice");
            }
        }
        this.index = idx;
        this.nodeNames = sorted.stream().map(NodeState::name).toList();
        this.nodeNamesHash = nodeNames.hashCode();
        Map<String, SecondaryNetwork> nets = new HashMap<>();
        for (SecondaryNetwork n : networks == null ? List.<SecondaryNetwork>of() : networks) {
            nets.put(n.key(), n);
        }
        this.networks = Collections.unmodifiableMap(nets);
        this.fabric = fabric == null ? FabricModel.empty() : fabric;
        this.pools = pools;
    }

    /**
     * A snapshot from nodes already sorted by name and indexed, as the incremental cluster state keeps them: no sort,
     * no index built, so making it costs one list wrapper and the networks map (docs/adr/0008).
     *
     * @param sorted   the nodes sorted by name, unique; the array is owned by the snapshot from now on
     * @param index    node name → position in {@code sorted}; immutable, may be shared between snapshots
     * @param names    node names in {@code sorted} order; immutable, may be shared
     * @param networks secondary networks
     * @param fabric   the fabric; {@link FabricModel#empty()} when unknown
     * @param pools    address pools, or null
     * @return the snapshot
     */
    public static ClusterSnapshot sorted(NodeState[] sorted, Map<String, Integer> index, List<String> names,
                                         List<SecondaryNetwork> networks, FabricModel fabric, AddressPools pools) {
        return new ClusterSnapshot(Collections.unmodifiableList(java.util.Arrays.asList(sorted)), index, names,
                namesHash(names), networks, fabric, pools);
    }

    /** The hash of the last node-name list seen, by instance: the state shares one list while no node comes or goes. */
    private record NamesHash(List<String> names, int hash) {
    }

    private static volatile NamesHash lastNames;

    /** @return {@code names.hashCode()}, remembered for the last list instance (5,000 names: a walk per snapshot) */
    private static int namesHash(List<String> names) {
        NamesHash m = lastNames;
        if (m != null && m.names() == names) {
            return m.hash();
        }
        int h = names.hashCode();
        lastNames = new NamesHash(names, h);
        return h;
    }

    private ClusterSnapshot(List<NodeState> nodes, Map<String, Integer> index, List<String> names, int namesHash,
                            List<SecondaryNetwork> networks, FabricModel fabric, AddressPools pools) {
        this.nodes = nodes;
        this.index = index;
        this.nodeNames = names;
        this.nodeNamesHash = namesHash;
        Map<String, SecondaryNetwork> nets = new HashMap<>();
        for (SecondaryNetwork n : networks == null ? List.<SecondaryNetwork>of() : networks) {
            nets.put(n.key(), n);
        }
        this.networks = Collections.unmodifiableMap(nets);
        this.fabric = fabric == null ? FabricModel.empty() : fabric;
        this.pools = pools;
    }

    /** @return nodes sorted by name */
    public List<NodeState> nodes() {
        return nodes;
    }

    /** @return node names in {@link #nodes()} order */
    public List<String> nodeNames() {
        return nodeNames;
    }

    /** @return a hash of {@link #nodeNames()} (for caches keyed by the node set) */
    public int nodeNamesHash() {
        return nodeNamesHash;
    }

    /** @return the node of that name, or null */
    public NodeState node(String name) {
        Integer i = index.get(name);
        return i == null ? null : nodes.get(i);
    }

    /** @return the position of the node in {@link #nodes()}, or -1 */
    public int indexOf(String name) {
        Integer i = index.get(name);
        return i == null ? -1 : i;
    }

    /** @return the network with that {@code namespace/name}, or null */
    public SecondaryNetwork network(String key) {
        return networks.get(key);
    }

    /** @return every network by {@code namespace/name} */
    public Map<String, SecondaryNetwork> networks() {
        return networks;
    }

    /**
     * @return {@code networks().hashCode()}, computed once per snapshot: the engine's answer caches key on the
     *         networks, and hashing the whole map on every call showed in profiles (docs/performance.md)
     */
    public int networksHash() {
        int h = networksHash;
        if (h == 0) {
            h = networks.hashCode() | 1;   // never 0 again: 0 means "not computed"
            networksHash = h;
        }
        return h;
    }

    /** @return the fabric model */
    public FabricModel fabric() {
        return fabric;
    }

    /** @return the address pools, or null when unknown */
    public AddressPools pools() {
        return pools;
    }

    /** @return the same nodes, networks and fabric with other address pools (O(1): the node lists are shared) */
    public ClusterSnapshot withPools(AddressPools other) {
        return new ClusterSnapshot(nodes, index, nodeNames, nodeNamesHash, new ArrayList<>(networks.values()), fabric,
                other);
    }

    /**
     * @param gang a gang
     * @param plan its plan
     * @return this snapshot with the plan's GPUs and RDMA resource slots taken on its nodes (addresses are the pool
     *         ledger's to hold)
     */
    public ClusterSnapshot taking(GangRequest gang, GangPlan plan) {
        Map<String, Set<Integer>> gpus = new TreeMap<>();
        Map<String, Map<String, Long>> slots = new TreeMap<>();
        for (PlannedPod p : plan.pods()) {
            gpus.computeIfAbsent(p.node(), k -> new TreeSet<>()).addAll(p.gpuIndices());
            gang.pods().get(p.index()).rdmaResources().forEach((r, v) -> slots
                    .computeIfAbsent(p.node(), k -> new TreeMap<>()).merge(r, v, Long::sum));
        }
        List<NodeState> changed = new ArrayList<>();
        gpus.forEach((n, g) -> changed.add(node(n).withAllocated(g, slots.getOrDefault(n, Map.of()))));
        return withNodes(changed);
    }

    /** @return a snapshot with some nodes replaced (same networks, fabric and pools) */
    public ClusterSnapshot withNodes(List<NodeState> replaced) {
        Map<String, NodeState> byName = new HashMap<>();
        for (NodeState n : replaced) {
            byName.put(n.name(), n);
        }
        List<NodeState> next = new ArrayList<>(nodes.size());
        for (NodeState n : nodes) {
            next.add(byName.getOrDefault(n.name(), n));
        }
        return new ClusterSnapshot(next, new ArrayList<>(networks.values()), fabric, pools);
    }
}
