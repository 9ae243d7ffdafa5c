package dev.railyard.scheduler.simulate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The node-by-node baselines: random feasible node and GPU bin-packing (kube-scheduler's NodeResourcesFit with
 * the MostAllocated strategy). Neither knows rails or GPU–HCA pairs: each takes the lowest-numbered free GPUs of a
 * node (what the kubelet's device manager hands out when GPUs are interchangeable), and each GPU then sends
 * through its own pair from the node's rail map (what NCCL picks when the pod sees every HCA). Sources and
 * versions: docs/simulation.md ("Baselines").
 */
final class Baselines {
    private Baselines() {
    }

    /** A random node with enough free GPUs, pod by pod (kube-scheduler with no scoring that matters). */
    static PlacementStrategy random(long seed) {
        Random rnd = new Random(seed);
        return new PodByPod("random", null, (c, taken, g, candidates) -> {
            List<Integer> ok = new ArrayList<>();
            for (int k = 0, n = count(c, candidates); k < n; k++) {
                int i = at(candidates, k);
                if (c.free(i) - taken.getOrDefault(i, Set.of()).size() >= g) {
                    ok.add(i);
                }
            }
            return ok.isEmpty() ? -1 : ok.get(rnd.nextInt(ok.size()));
        });
    }

    /**
     * kube-scheduler NodeResourcesFit, scoring strategy MostAllocated on {@code nvidia.com/gpu}: score =
     * (requested + already allocated) / allocatable, highest first; ties to the first node.
     */
    static PlacementStrategy binPacking() {
        return new PodByPod("binpack", null, Baselines::mostAllocated);
    }

    /** @return the feasible node with the fewest free GPUs left (MostAllocated on one resource), or -1 */
    static int mostAllocated(SimCluster c, Map<Integer, Set<Integer>> taken, int gpus, int[] candidates) {
        int best = -1;
        double bestScore = -1;
        for (int k = 0, n = count(c, candidates); k < n; k++) {
            int i = at(candidates, k);
            int f = c.free(i) - taken.getOrDefault(i, Set.of()).size();
            if (f >= gpus) {
                double score = (c.total(i) - f + gpus) / (double) c.total(i);
                if (score > bestScore) {
                    best = i;
                    bestScore = score;
                }
            }
        }
        return best;
    }

    /** Chooses a node index for one pod given GPUs already taken by earlier pods of the job. */
    @FunctionalInterface
    interface NodeChoice {
        int choose(SimCluster c, Map<Integer, Set<Integer>> taken, int gpus, int[] candidates);
    }

    /** @return how many nodes {@code candidates} lists (all nodes when null) */
    static int count(SimCluster c, int[] candidates) {
        return candidates == null ? c.size() : candidates.length;
    }

    /** @return the k-th candidate node (k itself when null) */
    static int at(int[] candidates, int k) {
        return candidates == null ? k : candidates[k];
    }

    /** Places pods one by one with a node choice among candidate nodes (null = all), and the lowest free GPUs. */
    record PodByPod(String name, int[] candidates, NodeChoice choice) implements PlacementStrategy {
        @Override
        public List<PodUse> place(SimCluster c, TraceJob job, double waited) {
            return placeWithin(c, job, candidates, choice);
        }

        @Override
        public boolean mayFit(SimCluster c, TraceJob job, double waited) {
            return slots(c, job.gpus(), candidates) >= job.pods();
        }
    }

    /** @return pods of {@code gpus} GPUs the candidate nodes can hold by free GPU count */
    static long slots(SimCluster c, int gpus, int[] candidates) {
        long n = 0;
        for (int k = 0, m = count(c, candidates); k < m; k++) {
            int i = at(candidates, k);
            if (c.free(i) >= gpus) {
                n += c.free(i) / gpus;
            }
        }
        return n;
    }

    /** Pod by pod on candidate nodes: the choice picks a node, the pod takes its lowest free GPUs. */
    static List<PlacementStrategy.PodUse> placeWithin(SimCluster c, TraceJob job, int[] candidates,
                                                      NodeChoice choice) {
        Map<Integer, Set<Integer>> taken = new HashMap<>();
        List<PlacementStrategy.PodUse> out = new ArrayList<>();
        for (int p = 0; p < job.pods(); p++) {
            int i = choice.choose(c, taken, job.gpus(), candidates);
            if (i < 0) {
                return null;
            }
            Set<Integer> t = taken.computeIfAbsent(i, k -> new HashSet<>());
            List<Integer> gpus = c.firstFree(i, job.gpus(), t);
            if (gpus == null) {
                return null;
            }
            t.addAll(gpus);
            List<PlacementStrategy.GpuUse> uses = new ArrayList<>();
            for (int g : gpus) {
                uses.add(c.homeUse(i, g));
            }
            out.add(new PlacementStrategy.PodUse(c.node(i).name(), uses));
        }
        return out;
    }
}
