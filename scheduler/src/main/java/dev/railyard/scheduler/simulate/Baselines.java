package dev.railyard.scheduler.simulate;

import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.PcieDistance;
import dev.railyard.topology.fabric.FabricModel;
import dev.railyard.topology.fabric.FabricPosition;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The baselines {@code simulate} compares Railyard with. None knows about rails or GPU–HCA pairs: each takes the
 * lowest-numbered free GPUs of a node, and each GPU then sends through its own pair from the node's rail map (what
 * NCCL picks when the pod sees every HCA).
 */
final class Baselines {
    private Baselines() {
    }

    /** A random node with enough free GPUs, pod by pod (kube-scheduler with no scoring that matters). */
    static PlacementStrategy random(long seed) {
        Random rnd = new Random(seed);
        return new PodByPod("random", (c, taken, g) -> {
            List<Integer> ok = new ArrayList<>();
            for (int i = 0; i < c.size(); i++) {
                if (c.free(i) - taken.getOrDefault(i, Set.of()).size() >= g) {
                    ok.add(i);
                }
            }
            return ok.isEmpty() ? -1 : ok.get(rnd.nextInt(ok.size()));
        });
    }

    /** The node with the fewest free GPUs that still fit, pod by pod (GPU-count bin-packing). */
    static PlacementStrategy binPacking() {
        return new PodByPod("binpack", (c, taken, g) -> {
            int best = -1;
            int bestFree = Integer.MAX_VALUE;
            for (int i = 0; i < c.size(); i++) {
                int f = c.free(i) - taken.getOrDefault(i, Set.of()).size();
                if (f >= g && f < bestFree) {
                    best = i;
                    bestFree = f;
                }
            }
            return best;
        });
    }

    /**
     * Volcano-style: the lowest fabric tier with a domain that holds the whole gang by GPU count (domains taken from
     * rail 0, rails merged as Volcano's discoverers do), the fullest such domain (HyperNode bin-packing), then
     * bin-packing inside it.
     */
    static PlacementStrategy tierPacking() {
        return new PlacementStrategy() {
            @Override
            public String name() {
                return "tier-pack";
            }

            @Override
            public List<PodUse> place(SimCluster c, TraceJob job) {
                FabricModel f = c.fabric();
                for (int t = 1; t <= f.maxTier() + 1; t++) {
                    Map<Integer, List<Integer>> domains = new LinkedHashMap<>();
                    for (int i = 0; i < c.size(); i++) {
                        FabricPosition p = f.position(c.node(i).name());
                        int d = t > f.maxTier() ? 0 : p == null ? -1 - i : p.domain(0, t);
                        domains.computeIfAbsent(d, k -> new ArrayList<>()).add(i);
                    }
                    int best = Integer.MIN_VALUE;
                    long bestFree = Long.MAX_VALUE;
                    for (var e : domains.entrySet()) {
                        long pods = 0;
                        long free = 0;
                        for (int i : e.getValue()) {
                            pods += c.free(i) / job.gpus();
                            free += c.free(i);
                        }
                        if (pods >= job.pods() && free < bestFree) {
                            best = e.getKey();
                            bestFree = free;
                        }
                    }
                    if (best != Integer.MIN_VALUE) {
                        Set<Integer> inside = new HashSet<>(domains.get(best));
                        return new PodByPod("tier-pack", (cc, taken, g) -> {
                            int pick = -1;
                            int pickFree = Integer.MAX_VALUE;
                            for (int i = 0; i < cc.size(); i++) {
                                int fr = cc.free(i) - taken.getOrDefault(i, Set.of()).size();
                                if (inside.contains(i) && fr >= g && fr < pickFree) {
                                    pick = i;
                                    pickFree = fr;
                                }
                            }
                            return pick;
                        }).place(c, job);
                    }
                }
                return null;
            }
        };
    }

    /** Chooses a node index for one pod given GPUs already taken by earlier pods of the job. */
    @FunctionalInterface
    interface NodeChoice {
        int choose(SimCluster c, Map<Integer, Set<Integer>> taken, int gpus);
    }

    /** Places pods one by one with a node choice and the lowest free GPUs. */
    record PodByPod(String name, NodeChoice choice) implements PlacementStrategy {
        @Override
        public List<PodUse> place(SimCluster c, TraceJob job) {
            Map<Integer, Set<Integer>> taken = new HashMap<>();
            List<PodUse> out = new ArrayList<>();
            for (int p = 0; p < job.pods(); p++) {
                int i = choice.choose(c, taken, job.gpus());
                if (i < 0) {
                    return null;
                }
                Set<Integer> t = taken.computeIfAbsent(i, k -> new HashSet<>());
                List<Integer> gpus = c.firstFree(i, job.gpus(), t);
                if (gpus == null) {
                    return null;
                }
                t.addAll(gpus);
                List<GpuUse> uses = new ArrayList<>();
                for (int g : gpus) {
                    GpuHcaPair pair = c.home(i, g);
                    uses.add(pair == null ? new GpuUse(g, -1, PcieDistance.SYS)
                            : new GpuUse(g, pair.rail(), pair.distance()));
                }
                out.add(new PodUse(c.node(i).name(), uses));
            }
            return out;
        }
    }
}
