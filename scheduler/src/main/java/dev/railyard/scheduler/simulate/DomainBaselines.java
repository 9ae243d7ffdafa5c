package dev.railyard.scheduler.simulate;

import dev.railyard.topology.fabric.FabricModel;
import dev.railyard.topology.fabric.FabricPosition;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Baselines that know fabric domains but not rails: Volcano's network-topology-aware scheduling over HyperNodes
 * built by its UFM discovery, and KAI Scheduler's topology domains. Both take the lowest free GPUs of a node and
 * send each GPU through its own pair (as {@link Baselines}). Upstream files and versions: docs/simulation.md
 * ("Baselines").
 */
final class DomainBaselines {
    private DomainBaselines() {
    }

    /** Nodes grouped into domains: {@code members[d]} are the node indices of domain d. */
    record Domains(int[][] members) {
        int size() {
            return members.length;
        }

        long free(SimCluster c, int d) {
            long f = 0;
            for (int i : members[d]) {
                f += c.free(i);
            }
            return f;
        }

        long total(SimCluster c, int d) {
            long t = 0;
            for (int i : members[d]) {
                t += c.total(i);
            }
            return t;
        }
    }

    /**
     * Volcano's UFM discovery: leaf switches that share a node are one leaf group (a breadth-first walk over
     * leaf–node links), each group a tier-1 HyperNode; one tier-2 HyperNode holds them all. On a rail-optimised
     * fabric every rail leaf of a scalable unit serves the same nodes, so the rails merge into one group.
     */
    static Domains ufmLeafGroups(SimCluster c) {
        FabricModel f = c.fabric();
        Map<String, String> parent = new HashMap<>();
        List<List<String>> nodeLeaves = new ArrayList<>();
        for (int i = 0; i < c.size(); i++) {
            FabricPosition p = f.position(c.node(i).name());
            List<String> leaves = new ArrayList<>();
            if (p != null) {
                Set<Integer> rails = p.explicitRails().isEmpty() ? Set.of(0) : p.explicitRails();
                for (int r : rails) {
                    String l = p.leaf(r);
                    if (l != null) {
                        leaves.add(l);
                        parent.putIfAbsent(l, l);
                    }
                }
            }
            for (int k = 1; k < leaves.size(); k++) {
                union(parent, leaves.get(0), leaves.get(k));
            }
            nodeLeaves.add(leaves);
        }
        Map<String, List<Integer>> groups = new LinkedHashMap<>();
        for (int i = 0; i < c.size(); i++) {
            List<String> leaves = nodeLeaves.get(i);
            String key = leaves.isEmpty() ? "node:" + i : find(parent, leaves.get(0));
            groups.computeIfAbsent(key, k -> new ArrayList<>()).add(i);
        }
        return toDomains(groups);
    }

    /** KAI-style: one domain per value of a node's tier-{@code tier} switch on rail 0 (a node label has one value). */
    static Domains labelDomains(SimCluster c, int tier) {
        Map<Integer, List<Integer>> groups = new LinkedHashMap<>();
        FabricModel f = c.fabric();
        for (int i = 0; i < c.size(); i++) {
            FabricPosition p = f.position(c.node(i).name());
            int d = p == null || tier > f.maxTier() ? -1 - i : p.domain(0, tier);
            groups.computeIfAbsent(tier > f.maxTier() ? 0 : d, k -> new ArrayList<>()).add(i);
        }
        return toDomains(groups);
    }

    private static <K> Domains toDomains(Map<K, List<Integer>> groups) {
        int[][] m = new int[groups.size()][];
        int k = 0;
        for (List<Integer> g : groups.values()) {
            m[k++] = g.stream().mapToInt(Integer::intValue).toArray();
        }
        return new Domains(m);
    }

    private static String find(Map<String, String> parent, String x) {
        String r = x;
        while (!parent.get(r).equals(r)) {
            r = parent.get(r);
        }
        parent.put(x, r);
        return r;
    }

    private static void union(Map<String, String> parent, String a, String b) {
        String ra = find(parent, a);
        String rb = find(parent, b);
        if (!ra.equals(rb)) {
            parent.put(rb, ra);
        }
    }

    /**
     * Volcano network-topology-aware, hard mode up to the top tier: tier-1 HyperNodes whose idle GPUs cover the
     * job are tried (allocate action, one gradient per tier); among those where every pod fits, the one with the
     * highest HyperNode bin-packing score (used + request) / allocatable wins; then the whole cluster. Inside the
     * HyperNode, nodes by the binpack plugin (most allocated first).
     */
    static PlacementStrategy volcano() {
        return new PlacementStrategy() {
            private Domains groups;

            @Override
            public String name() {
                return "volcano";
            }

            @Override
            public boolean mayFit(SimCluster c, TraceJob job, double waited) {
                return Baselines.slots(c, job.gpus(), null) >= job.pods();
            }

            @Override
            public List<PodUse> place(SimCluster c, TraceJob job, double waited) {
                if (groups == null) {
                    groups = ufmLeafGroups(c);
                }
                List<PodUse> best = null;
                double bestScore = -1;
                for (int d = 0; d < groups.size(); d++) {
                    long free = groups.free(c, d);
                    if (free < job.totalGpus()) {
                        continue;
                    }
                    List<PodUse> p = Baselines.placeWithin(c, job, groups.members()[d], Baselines::mostAllocated);
                    if (p == null) {
                        continue;
                    }
                    long total = groups.total(c, d);
                    double score = (total - free + job.totalGpus()) / (double) total;
                    if (score > bestScore) {
                        best = p;
                        bestScore = score;
                    }
                }
                return best != null ? best : Baselines.placeWithin(c, job, null, Baselines::mostAllocated);
            }
        };
    }

    /**
     * KAI Scheduler topology plugin with a preferred level of tier 1 (rack) and no required level, over the
     * levels tier 2 (block) and tier 1 (rack) as node labels: the lowest level with a domain that holds the job
     * wins; among its domains the one with the fewest idle GPUs (bin-packing); inside it, racks with the most idle
     * GPUs first (pods kept together at the preferred level), then nodes most allocated first.
     */
    static PlacementStrategy kai() {
        return new PlacementStrategy() {
            private Domains racks;
            private Domains blocks;
            private int[] rackOf;

            @Override
            public String name() {
                return "kai";
            }

            @Override
            public boolean mayFit(SimCluster c, TraceJob job, double waited) {
                return Baselines.slots(c, job.gpus(), null) >= job.pods();
            }

            @Override
            public List<PodUse> place(SimCluster c, TraceJob job, double waited) {
                if (racks == null) {
                    racks = labelDomains(c, 1);
                    blocks = labelDomains(c, 2);
                    rackOf = new int[c.size()];
                    for (int d = 0; d < racks.size(); d++) {
                        for (int i : racks.members()[d]) {
                            rackOf[i] = d;
                        }
                    }
                }
                for (Domains level : List.of(racks, blocks, new Domains(new int[][] {allNodes(c)}))) {
                    List<Integer> order = new ArrayList<>();
                    for (int d = 0; d < level.size(); d++) {
                        if (level.free(c, d) >= job.totalGpus()) {
                            order.add(d);
                        }
                    }
                    order.sort(Comparator.comparingLong(d -> level.free(c, d)));
                    for (int d : order) {
                        List<PodUse> p = Baselines.placeWithin(c, job, level.members()[d], this::choose);
                        if (p != null) {
                            return p;
                        }
                    }
                }
                return null;
            }

            /**
             * Racks with the most idle GPUs before the job (an order fixed for the job, so its pods gather in the
             * first racks) first, then the most allocated node; first in order on ties.
             */
            private int choose(SimCluster c, Map<Integer, Set<Integer>> taken, int gpus, int[] candidates) {
                Map<Integer, Long> rackFree = new HashMap<>();
                for (int i : candidates) {
                    rackFree.merge(rackOf[i], (long) c.free(i), Long::sum);
                }
                int best = -1;
                long bestRack = -1;
                int bestFree = Integer.MAX_VALUE;
                for (int i : candidates) {
                    int f = c.free(i) - taken.getOrDefault(i, Set.of()).size();
                    if (f < gpus) {
                        continue;
                    }
                    long rf = rackFree.get(rackOf[i]);
                    if (rf > bestRack || (rf == bestRack && f < bestFree)) {
                        best = i;
                        bestRack = rf;
                        bestFree = f;
                    }
                }
                return best;
            }
        };
    }

    static int[] allNodes(SimCluster c) {
        int[] all = new int[c.size()];
        for (int i = 0; i < all.length; i++) {
            all[i] = i;
        }
        return all;
    }
}
