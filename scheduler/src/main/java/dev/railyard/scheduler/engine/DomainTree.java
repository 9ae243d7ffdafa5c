package dev.railyard.scheduler.engine;

import dev.railyard.topology.fabric.FabricModel;
import dev.railyard.topology.fabric.FabricPosition;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * The fabric seen through one rail set, as a tree of domains: level 0 holds the nodes, level t (1..maxTier) the
 * tier-t domains (nodes whose switches on every rail of the set share a tier-t domain), level maxTier+1 a single
 * root (the cluster). Domains nest because a tier-t domain of the fabric lies inside one tier-(t+1) domain. A node
 * without a position on some rail of the set stays alone up to the root. Children are in order of their first node
 * (nodes are in snapshot order), which fixes the rank order.
 */
final class DomainTree {
    final int top;
    /** children[t][d]: indices of level t-1 items under domain d of level t (t ≥ 1). */
    final int[][][] children;
    /** Free GPUs per level and domain (level 0: per node). */
    final long[][] freeGpus;
    final String[][] names;
    private final int nodes;

    private DomainTree(int top, int[][][] children, long[][] freeGpus, String[][] names, int nodes) {
        this.top = top;
        this.children = children;
        this.freeGpus = freeGpus;
        this.names = names;
        this.nodes = nodes;
    }

    int size(int level) {
        return level == 0 ? nodes : children[level].length;
    }

    /**
     * @param snapshot the cluster
     * @param rails    the rail set (ascending, non-empty)
     */
    static DomainTree build(ClusterSnapshot snapshot, int[] rails) {
        FabricModel fabric = snapshot.fabric();
        int maxTier = fabric.maxTier();
        int top = maxTier + 1;
        List<NodeState> all = snapshot.nodes();
        int n = all.size();
        FabricPosition[] pos = new FabricPosition[n];
        long[] nodeFree = new long[n];
        String[] nodeNames = new String[n];
        for (int i = 0; i < n; i++) {
            pos[i] = fabric.position(all.get(i).name());
            nodeFree[i] = all.get(i).freeGpuCount();
            nodeNames[i] = all.get(i).name();
        }
        int[][][] children = new int[top + 1][][];
        long[][] free = new long[top + 1][];
        String[][] names = new String[top + 1][];
        free[0] = nodeFree;
        names[0] = nodeNames;
        // item of each node at the current level
        int[] itemOfNode = new int[n];
        for (int i = 0; i < n; i++) {
            itemOfNode[i] = i;
        }
        int prevSize = n;
        for (int t = 1; t <= top; t++) {
            Map<String, Integer> ids = new HashMap<>();
            List<List<Integer>> kids = new ArrayList<>();
            List<String> dn = new ArrayList<>();
            int[] parentOfItem = new int[prevSize];
            java.util.Arrays.fill(parentOfItem, -1);
            for (int i = 0; i < n; i++) {
                int item = itemOfNode[i];
                if (parentOfItem[item] >= 0) {
                    continue;
                }
                String key = t == top ? "" : key(pos[i], rails, t, nodeNames[i]);
                Integer d = ids.get(key);
                if (d == null) {
                    d = kids.size();
                    ids.put(key, d);
                    kids.add(new ArrayList<>());
                    dn.add(t == top ? "cluster" : name(fabric, pos[i], rails, t, nodeNames[i]));
                }
                parentOfItem[item] = d;
                kids.get(d).add(item);
            }
            children[t] = new int[kids.size()][];
            free[t] = new long[kids.size()];
            for (int d = 0; d < kids.size(); d++) {
                children[t][d] = kids.get(d).stream().mapToInt(Integer::intValue).toArray();
                for (int c : children[t][d]) {
                    free[t][d] += free[t - 1][c];
                }
            }
            names[t] = dn.toArray(new String[0]);
            for (int i = 0; i < n; i++) {
                itemOfNode[i] = parentOfItem[itemOfNode[i]];
            }
            prevSize = kids.size();
        }
        return new DomainTree(top, children, free, names, n);
    }

    private static String key(FabricPosition p, int[] rails, int tier, String node) {
        if (p == null) {
            return "?" + node;
        }
        StringBuilder b = new StringBuilder();
        for (int r : rails) {
            int d = p.domain(r, tier);
            if (d < 0) {
                return "?" + node;
            }
            b.append(d).append(',');
        }
        return b.toString();
    }

    private static String name(FabricModel fabric, FabricPosition p, int[] rails, int tier, String node) {
        if (p == null || p.domain(rails[0], tier) < 0) {
            return node + " (no fabric position)";
        }
        LinkedHashSet<String> ns = new LinkedHashSet<>();
        for (int r : rails) {
            ns.add(fabric.domainName(tier, p.domain(r, tier)));
        }
        List<String> list = new ArrayList<>(ns);
        if (list.size() == 1) {
            return list.get(0);
        }
        if (list.size() == 2) {
            return list.get(0) + "+" + list.get(1);
        }
        return list.get(0) + " +" + (list.size() - 1) + " more";
    }
}
