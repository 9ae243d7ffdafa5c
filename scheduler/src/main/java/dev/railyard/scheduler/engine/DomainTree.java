package dev.railyard.scheduler.engine;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
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
 *
 * <p><b>NVLink domains.</b> When some node of the snapshot has one ({@link FabricModel#nvlinkDomain}), an extra
 * level 1 holds the NVLink domains, the innermost tier: nodes of one domain under one tier-1 domain (a domain split
 * across leaves becomes one part per leaf, so levels still nest; its parts then talk through the leaf, which is
 * counted). The switch tiers move up one level; {@link #tierOf}, {@link #levelOf}, {@link #hops} and
 * {@link #levelName} translate, and are the identity without NVLink domains. Pods in one NVLink domain cost no
 * switch hops (their traffic stays on NVLink), so the planner prefers a gang inside one domain (a lower level) and,
 * across domains, the placement with the fewest pod pairs crossing between domains.
 *
 * <p>The structure depends only on the fabric, the node names and the rail set, so it is cached per fabric (weakly,
 * by identity) and shared by plans; free GPU counts per domain are computed per snapshot ({@link #freeGpus}).
 */
final class DomainTree {
    private static final Cache<FabricModel, Map<String, DomainTree>> CACHE = Caffeine.newBuilder().weakKeys()
            .maximumSize(64).build();

    final int top;
    /** True when level 1 holds NVLink domains. */
    final boolean nvlinkLevel;
    /** children[t][d]: indices of level t-1 items under domain d of level t (t ≥ 1). */
    final int[][][] children;
    final String[][] names;
    /** parent[t][d]: index at level t+1 of the domain holding item d of level t (t < top). */
    final int[][] parent;
    private final int nodes;
    private final List<String> nodeNames;

    private DomainTree(int top, boolean nvlinkLevel, int[][][] children, String[][] names, int nodes,
                       List<String> nodeNames) {
        this.top = top;
        this.nvlinkLevel = nvlinkLevel;
        this.children = children;
        this.parent = new int[top][];
        for (int t = 1; t <= top; t++) {
            parent[t - 1] = new int[t == 1 ? nodes : children[t - 1].length];
            for (int d = 0; d < children[t].length; d++) {
                for (int c : children[t][d]) {
                    parent[t - 1][c] = d;
                }
            }
        }
        this.names = names;
        this.nodes = nodes;
        this.nodeNames = nodeNames;
    }

    /**
     * @param nodeFree free GPUs per node, in snapshot order
     * @return free GPUs per level and domain (level 0: the nodes)
     */
    long[][] freeGpus(long[] nodeFree) {
        long[][] free = new long[top + 1][];
        free[0] = nodeFree;
        for (int t = 1; t <= top; t++) {
            free[t] = new long[children[t].length];
            for (int d = 0; d < children[t].length; d++) {
                for (int c : children[t][d]) {
                    free[t][d] += free[t - 1][c];
                }
            }
        }
        return free;
    }

    /** @return the tree of this rail set for the snapshot's fabric and nodes, from the cache when built before */
    static DomainTree of(ClusterSnapshot snapshot, int[] rails) {
        Map<String, DomainTree> byRails = CACHE.get(snapshot.fabric(),
                f -> new java.util.concurrent.ConcurrentHashMap<>());
        String key = snapshot.nodes().size() + ":" + snapshot.nodeNamesHash() + ":" + java.util.Arrays.toString(rails);
        DomainTree t = byRails.get(key);
        List<String> names = snapshot.nodeNames();
        if (t == null || !t.nodeNames.equals(names)) {
            t = build(snapshot, rails);
            if (byRails.size() > 4096) {
                byRails.clear();
            }
            byRails.put(key, t);
        }
        return t;
    }

    int size(int level) {
        return level == 0 ? nodes : children[level].length;
    }

    /** @return the switch tier a level's domains lie within: the level itself, one less above the NVLink level */
    int tierOf(int level) {
        return nvlinkLevel && level >= 2 ? level - 1 : level;
    }

    /** @return the highest level whose domains lie within a tier-{@code tier} domain ({@code MAX_VALUE} stays) */
    int levelOf(int tier) {
        return !nvlinkLevel || tier <= 0 || tier == Integer.MAX_VALUE ? tier : tier + 1;
    }

    /** @return switch hops between pods whose lowest common domain is at {@code level}: 0 on one NVLink domain */
    long hops(int level) {
        return nvlinkLevel && level == 1 ? 0 : FabricModel.hopsForTier(tierOf(level));
    }

    /** @return a name for people ("a ... domain"): {@code NVLink} for the NVLink level, else the tier's name */
    String levelName(FabricModel fabric, int level) {
        return nvlinkLevel && level == 1 ? "NVLink" : fabric.tierName(tierOf(level));
    }

    /**
     * @param snapshot the cluster
     * @param rails    the rail set (ascending, non-empty)
     */
    static DomainTree build(ClusterSnapshot snapshot, int[] rails) {
        FabricModel fabric = snapshot.fabric();
        int maxTier = fabric.maxTier();
        List<NodeState> all = snapshot.nodes();
        int n = all.size();
        FabricPosition[] pos = new FabricPosition[n];
        String[] nodeNames = new String[n];
        String[] nvl = new String[n];
        boolean nvlinkLevel = false;
        for (int i = 0; i < n; i++) {
            pos[i] = fabric.position(all.get(i).name());
            nodeNames[i] = all.get(i).name();
            nvl[i] = fabric.nvlinkDomain(nodeNames[i]);
            nvlinkLevel |= nvl[i] != null;
        }
        int shift = nvlinkLevel ? 1 : 0;
        int top = maxTier + 1 + shift;
        int[][][] children = new int[top + 1][][];
        String[][] names = new String[top + 1][];
        names[0] = nodeNames;
        // item of each node at the current level
        int[] itemOfNode = new int[n];
        for (int i = 0; i < n; i++) {
            itemOfNode[i] = i;
        }
        int prevSize = n;
        for (int t = 1; t <= top; t++) {
            Map<Key, Integer> ids = new HashMap<>();
            List<List<Integer>> kids = new ArrayList<>();
            List<String> dn = new ArrayList<>();
            int[] parentOfItem = new int[prevSize];
            java.util.Arrays.fill(parentOfItem, -1);
            for (int i = 0; i < n; i++) {
                int item = itemOfNode[i];
                if (parentOfItem[item] >= 0) {
                    continue;
                }
                boolean nvlinkHere = nvlinkLevel && t == 1;
                Key key = t == top ? Key.ROOT : nvlinkHere ? nvlinkKey(nvl[i], pos[i], rails, maxTier, i)
                        : key(pos[i], rails, t - shift, i);
                Integer d = ids.get(key);
                if (d == null) {
                    d = kids.size();
                    ids.put(key, d);
                    kids.add(new ArrayList<>());
                    dn.add(t == top ? "cluster" : nvlinkHere ? (nvl[i] == null ? nodeNames[i] + " (no NVLink domain)"
                            : "NVLink " + nvl[i]) : name(fabric, pos[i], rails, t - shift, nodeNames[i]));
                }
                parentOfItem[item] = d;
                kids.get(d).add(item);
            }
            children[t] = new int[kids.size()][];
            for (int d = 0; d < kids.size(); d++) {
                children[t][d] = kids.get(d).stream().mapToInt(Integer::intValue).toArray();
            }
            names[t] = dn.toArray(new String[0]);
            for (int i = 0; i < n; i++) {
                itemOfNode[i] = parentOfItem[itemOfNode[i]];
            }
            prevSize = kids.size();
        }
        return new DomainTree(top, nvlinkLevel, children, names, n, snapshot.nodeNames());
    }

    /**
     * An NVLink-level key: the domain and the node's tier-1 key (so the level nests in tier 1), or the node alone
     * when it has no domain. With no switch tiers the domain alone.
     */
    private static Key nvlinkKey(String domain, FabricPosition p, int[] rails, int maxTier, int node) {
        if (domain == null) {
            return new Key(new int[0], node);
        }
        Key leaf = maxTier >= 1 ? key(p, rails, 1, node) : Key.ROOT;
        int[] ids = new int[leaf.ids.length + 1];
        ids[0] = leaf.alone;
        System.arraycopy(leaf.ids, 0, ids, 1, leaf.ids.length);
        return new Key(ids, -2, domain);
    }

    /**
     * A domain key: the domain ids on every rail of the set, or a node of its own ({@code alone ≥ 0}); an NVLink-level
     * key also names its NVLink domain.
     */
    private record Key(int[] ids, int alone, String nvlink) {
        static final Key ROOT = new Key(new int[0], -1, null);

        Key(int[] ids, int alone) {
            this(ids, alone, null);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && alone == k.alone && java.util.Arrays.equals(ids, k.ids)
                    && java.util.Objects.equals(nvlink, k.nvlink);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(ids) * 31 + alone;
        }
    }

    private static Key key(FabricPosition p, int[] rails, int tier, int node) {
        if (p == null) {
            return new Key(new int[0], node);
        }
        int[] ids = new int[rails.length];
        for (int i = 0; i < rails.length; i++) {
            ids[i] = p.domain(rails[i], tier);
            if (ids[i] < 0) {
                return new Key(new int[0], node);
            }
        }
        return new Key(ids, -1);
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
