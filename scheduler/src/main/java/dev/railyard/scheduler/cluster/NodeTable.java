package dev.railyard.scheduler.cluster;

import dev.railyard.api.topology.NodeTopologyStatus;
import dev.railyard.scheduler.engine.HcaResource;
import dev.railyard.scheduler.engine.NodeState;
import org.pcollections.HashTreePMap;
import org.pcollections.PMap;
import org.pcollections.TreePMap;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The node side of the cluster state: one {@link NodeRecord} per Node, the engine's nodes sorted by name, and what
 * {@link ClusterView} shows per node (GPU accounting, NodeTopology status, warnings), all updated for the nodes
 * touched since the last snapshot only. The sorted node array is copied (one reference per node) and the changed
 * entries replaced; the name index is shared while no node comes or goes. Not thread-safe: the state's lock guards it.
 */
final class NodeTable {
    private final Map<String, NodeRecord> records = new HashMap<>();
    private final Map<String, Integer> rdmaCounts = new HashMap<>();
    private NodeState[] sorted = new NodeState[0];
    private Map<String, Integer> index = Map.of();
    private List<String> names = List.of();
    private PMap<String, NodeRecord> recordMap = HashTreePMap.empty();
    private PMap<String, String> accounting = HashTreePMap.empty();
    private PMap<String, NodeTopologyStatus> statuses = HashTreePMap.empty();
    private PMap<String, List<String>> warnings = TreePMap.empty();
    private List<String> orphanWarnings = List.of();
    private Set<String> rdma = Set.of();
    private boolean engineChanged;

    /**
     * Converts the dirty nodes again.
     *
     * @param nodes      every Node's fields
     * @param topologies every NodeTopology's records, by name
     * @param podsByNode pods bound to each node
     * @param dirty      nodes touched since the last call
     * @param setChanged true when a Node or NodeTopology came or went since the last call
     * @param generation the generation of the records made now
     * @return true when the set of nodes in the snapshot changed (the fabric depends on it)
     */
    boolean update(Map<String, NodeFields> nodes, Map<String, TopologyFields> topologies,
                   Map<String, Map<String, PodView>> podsByNode, Collection<String> dirty, boolean setChanged,
                   long generation) {
        boolean membership = setChanged;
        engineChanged = false;
        Map<String, NodeState> replaced = new HashMap<>();
        for (String name : dirty) {
            NodeRecord old = records.get(name);
            NodeFields f = nodes.get(name);
            NodeRecord now = null;
            if (f != null) {
                Map<String, PodView> on = podsByNode.get(name);
                List<PodView> pods = on == null ? List.of() : List.copyOf(on.values());
                TopologyFields topo = topologies.get(name);
                NodeStateConverter.Outcome o = NodeStateConverter.node(f, topo, pods);
                NodeState state = o.state();
                if (state != null && old != null && state.equals(old.state())) {
                    // a pod change that leaves the engine's node as it was (a status update, a pod without
                    // devices): the same instance, so answers cached for it stay valid
                    state = old.state();
                }
                now = new NodeRecord(name, generation, state, o.accounting(), o.status(), o.warnings(), f, topo,
                        pods);
                records.put(name, now);
            } else {
                records.remove(name);
            }
            NodeState before = old == null ? null : old.state();
            NodeState after = now == null ? null : now.state();
            if ((before == null) != (after == null)) {
                membership = true;
            } else if (after != null && after != before) {
                replaced.put(name, after);
            }
            count(before, -1);
            count(after, 1);
            recordMap = now == null ? recordMap.minus(name) : recordMap.plus(name, now);
            accounting = put(accounting, name, now == null ? null : now.accounting());
            statuses = put(statuses, name, now == null ? null : now.status());
            warnings = put(warnings, name, now == null || now.warnings().isEmpty() ? null : now.warnings());
        }
        if (membership) {
            List<String> sortedNames = new ArrayList<>();
            for (NodeRecord r : records.values()) {
                if (r.state() != null) {
                    sortedNames.add(r.name());
                }
            }
            sortedNames.sort(null);
            NodeState[] next = new NodeState[sortedNames.size()];
            Map<String, Integer> idx = new HashMap<>();
            for (int i = 0; i < next.length; i++) {
                next[i] = records.get(sortedNames.get(i)).state();
                idx.put(sortedNames.get(i), i);
            }
            sorted = next;
            index = java.util.Collections.unmodifiableMap(idx);
            names = List.copyOf(sortedNames);
        } else if (!replaced.isEmpty()) {
            NodeState[] next = Arrays.copyOf(sorted, sorted.length);
            replaced.forEach((name, state) -> next[index.get(name)] = state);
            sorted = next;
        }
        engineChanged = membership || !replaced.isEmpty();
        if (setChanged) {
            List<String> orphans = new ArrayList<>();
            for (String t : new TreeSet<>(topologies.keySet())) {
                if (!nodes.containsKey(t)) {
                    orphans.add(NodeStateConverter.orphanTopology(t));
                }
            }
            orphanWarnings = List.copyOf(orphans);
        }
        if (!rdma.equals(rdmaCounts.keySet())) {
            rdma = Set.copyOf(rdmaCounts.keySet());
        }
        return membership;
    }

    private void count(NodeState s, int delta) {
        if (s == null) {
            return;
        }
        for (HcaResource r : s.hcaResources()) {
            rdmaCounts.merge(r.resource(), delta, (a, b) -> a + b == 0 ? null : a + b);
        }
    }

    private static <V> PMap<String, V> put(PMap<String, V> m, String key, V value) {
        if (value == null) {
            return m.containsKey(key) ? m.minus(key) : m;
        }
        return value.equals(m.get(key)) ? m : m.plus(key, value);
    }

    /** @return true when the last {@link #update} changed an engine node or the set of nodes */
    boolean engineChanged() {
        return engineChanged;
    }

    /** @return the engine's nodes sorted by name (a fresh array per changed snapshot; do not modify) */
    NodeState[] sorted() {
        return sorted;
    }

    /** @return node name → position in {@link #sorted()} */
    Map<String, Integer> index() {
        return index;
    }

    /** @return node names in {@link #sorted()} order */
    List<String> names() {
        return names;
    }

    /** @return the record of a node, or null */
    NodeRecord record(String name) {
        return records.get(name);
    }

    /** @return every record by node name (persistent: shared with earlier snapshots where unchanged) */
    Map<String, NodeRecord> records() {
        return recordMap;
    }

    Map<String, String> accounting() {
        return accounting;
    }

    Map<String, NodeTopologyStatus> statuses() {
        return statuses;
    }

    Set<String> rdmaResources() {
        return rdma;
    }

    /** @return node warnings by node name (sorted), then the NodeTopologies without a Node */
    List<String> warnings() {
        List<String> out = new ArrayList<>();
        warnings.values().forEach(out::addAll);
        out.addAll(orphanWarnings);
        return out;
    }

    /** @return labels of every node in the snapshot, by name */
    Map<String, Map<String, String>> labels() {
        Map<String, Map<String, String>> out = new java.util.TreeMap<>();
        for (NodeState n : sorted) {
            out.put(n.name(), n.labels());
        }
        return out;
    }
}
