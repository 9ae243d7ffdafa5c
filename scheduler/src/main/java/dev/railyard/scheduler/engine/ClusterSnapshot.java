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
    /** {@link #networks()}'s hash code (never 0), shared with the map ({@link NetworkMap}). */
    private final int networksHash;

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
        NetworkMap nets = NetworkMap.of(networks);
        this.networks = nets.map();
        this.networksHash = nets.hash();
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
                namesHash(names), NetworkMap.of(networks), fabric, pools);
    }

    /**
     * The networks by {@code namespace/name}, and their hash. The last map made is handed to every later snapshot
     * whose networks are equal to it, so snapshots made one after another share one map instance while no
     * NetworkAttachmentDefinition changes: the engine's answer caches compare their keys' networks on every call,
     * and equal maps of different instances were compared entry by entry (docs/performance.md).
     */
    private record NetworkMap(Map<String, SecondaryNetwork> map, int hash) {
        private static volatile NetworkMap last;

        /** @return the map of {@code networks} (null: none), the last one made when its content is the same */
        static NetworkMap of(List<SecondaryNetwork> networks) {
            List<SecondaryNetwork> list = networks == null ? List.of() : networks;
            NetworkMap m = last;
            if (m != null && m.sameAs(list)) {
                return m;
            }
            Map<String, SecondaryNetwork> nets = new HashMap<>();
            for (SecondaryNetwork n : list) {
                nets.put(n.key(), n);
            }
            Map<String, SecondaryNetwork> map = Collections.unmodifiableMap(nets);
            m = new NetworkMap(map, map.hashCode() | 1);   // never 0, as before
            last = m;
            return m;
        }

        /** @return whether the map of {@code list} would equal this one (a later network wins on a repeated key) */
        private boolean sameAs(List<SecondaryNetwork> list) {
            if (list.size() != map.size()) {
                return false;
            }
            java.util.Set<String> keys = new java.util.HashSet<>();
            for (SecondaryNetwork n : list) {
                if (!keys.add(n.key()) || !n.equals(map.get(n.key()))) {
                    return false; // a repeated key: the list's map would be smaller than this one
                }
            }
            return true;
        }
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
                            NetworkMap networks, FabricModel fabric, AddressPools pools) {
        this.nodes = nodes;
        this.index = index;
        this.nodeNames = names;
        this.nodeNamesHash = namesHash;
        this.networks = networks.map();
        this.networksHash = networks.hash();
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
     * @return {@code networks().hashCode() | 1}, computed once per distinct set of networks ({@link NetworkMap}): the
     *         engine's answer caches key on the networks, and hashing the whole map on every call showed in profiles
     *         (docs/performance.md)
     */
    public int networksHash() {
        return networksHash;
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
        return new ClusterSnapshot(nodes, index, nodeNames, nodeNamesHash, new NetworkMap(networks, networksHash),
                fabric, other);
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

    /**
     * @return a snapshot with some nodes replaced (same networks, fabric and pools); a replacement whose name is not
     *         in this snapshot is ignored. The names and their order do not change, so the index, the name list and
     *         the networks map are shared.
     */
    public ClusterSnapshot withNodes(List<NodeState> replaced) {
        Map<String, NodeState> byName = new HashMap<>();
        for (NodeState n : replaced) {
            byName.put(n.name(), n);
        }
        List<NodeState> next = new ArrayList<>(nodes.size());
        for (NodeState n : nodes) {
            next.add(byName.getOrDefault(n.name(), n));
        }
        return new ClusterSnapshot(Collections.unmodifiableList(next), index, nodeNames, nodeNamesHash,
                new NetworkMap(networks, networksHash), fabric, pools);
    }
}
