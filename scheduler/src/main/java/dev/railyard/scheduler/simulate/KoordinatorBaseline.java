package dev.railyard.scheduler.simulate;

import dev.railyard.api.topology.Gpu;
import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.PcieDistance;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Koordinator's deviceshare joint allocation ({@code scheduling.koordinator.sh/device-joint-allocate} with
 * {@code deviceTypes: [gpu, rdma]} and {@code requiredScope: SamePCIe}): per pod and node, GPUs first by the
 * GPU topology scopes (PCIe switch, then NUMA node, then the node: the deepest scope that holds the request,
 * preferring scopes already in use, then the lowest indices), then RDMA NICs on the PCIe switches of those GPUs;
 * when a chosen GPU's switch has no NIC the node fails for that pod. Nodes: most allocated first. No rails across
 * nodes. Upstream file and version: docs/simulation.md ("Baselines").
 *
 * <p>A GPU's PCIe switch is known here from the rail map: a GPU whose own HCA is at PIX or PXB shares that HCA's
 * switch; a GPU farther from every HCA sits on a switch without a NIC.
 */
final class KoordinatorBaseline implements PlacementStrategy {
    @Override
    public String name() {
        return "koordinator";
    }

    @Override
    public boolean mayFit(SimCluster c, TraceJob job, double waited) {
        return Baselines.slots(c, job.gpus(), null) >= job.pods();
    }

    @Override
    public List<PodUse> place(SimCluster c, TraceJob job, double waited) {
        Map<Integer, Set<Integer>> taken = new HashMap<>();
        List<PodUse> out = new ArrayList<>();
        for (int p = 0; p < job.pods(); p++) {
            int best = -1;
            double bestScore = -1;
            List<Integer> bestGpus = null;
            for (int i = 0; i < c.size(); i++) {
                Set<Integer> t = taken.getOrDefault(i, Set.of());
                int f = c.free(i) - t.size();
                if (f < job.gpus()) {
                    continue;
                }
                double score = (c.total(i) - f + job.gpus()) / (double) c.total(i);
                if (score <= bestScore) {
                    continue;
                }
                List<Integer> gpus = allocate(c, i, job.gpus(), t);
                if (gpus != null) {
                    best = i;
                    bestScore = score;
                    bestGpus = gpus;
                }
            }
            if (best < 0) {
                return null;
            }
            taken.computeIfAbsent(best, k -> new HashSet<>()).addAll(bestGpus);
            List<GpuUse> uses = new ArrayList<>();
            for (int g : bestGpus) {
                uses.add(c.homeUse(best, g));
            }
            out.add(new PodUse(c.node(best).name(), uses));
        }
        return out;
    }

    /** @return the GPUs deviceshare would give a pod of {@code n} GPUs on node i, or null when the joint fails */
    static List<Integer> allocate(SimCluster c, int i, int n, Set<Integer> taken) {
        List<Integer> all = c.gpuIndices(i);
        Map<Integer, Integer> numaOf = new HashMap<>();
        for (Gpu g : c.node(i).topology().gpus()) {
            numaOf.put(g.index(), g.numaNode() == null ? 0 : g.numaNode());
        }
        // depth 3: PCIe switches; depth 2: NUMA nodes; depth 1: the node
        for (int depth = 3; depth >= 1; depth--) {
            List<Integer> chosen = null;
            int chosenUsed = -1;
            Map<Object, List<Integer>> scopes = new java.util.LinkedHashMap<>();
            for (int g : all) {
                scopes.computeIfAbsent(scopeKey(c, i, g, depth, numaOf), k -> new ArrayList<>()).add(g);
            }
            for (List<Integer> scope : scopes.values()) {
                List<Integer> free = new ArrayList<>();
                boolean used = false;
                for (int g : scope) {
                    if (c.isFree(i, g) && !taken.contains(g)) {
                        free.add(g);
                    } else {
                        used = true;
                    }
                }
                if (free.size() < n) {
                    continue;
                }
                int usedAbove = (used ? 1 : 0) + (depth > 1 && numaUsed(c, i, numaOf.get(scope.get(0)), numaOf, taken)
                        ? 1 : 0);
                if (usedAbove > chosenUsed) {
                    chosen = free.subList(0, n);
                    chosenUsed = usedAbove;
                }
            }
            if (chosen != null) {
                for (int g : chosen) {
                    GpuHcaPair p = c.home(i, g);
                    if (p == null || !p.distance().isAtMost(PcieDistance.PXB)) {
                        return null;
                    }
                }
                return List.copyOf(chosen);
            }
        }
        return null;
    }

    private static Object scopeKey(SimCluster c, int i, int g, int depth, Map<Integer, Integer> numaOf) {
        if (depth == 1) {
            return "node";
        }
        if (depth == 2) {
            return "numa" + numaOf.get(g);
        }
        GpuHcaPair p = c.home(i, g);
        return p != null && p.distance().isAtMost(PcieDistance.PXB) ? "pcie:" + p.hca() : "gpu:" + g;
    }

    private static boolean numaUsed(SimCluster c, int i, int numa, Map<Integer, Integer> numaOf, Set<Integer> taken) {
        for (int g : c.gpuIndices(i)) {
            if (Objects.equals(numaOf.get(g), numa) && (!c.isFree(i, g) || taken.contains(g))) {
                return true;
            }
        }
        return false;
    }
}
