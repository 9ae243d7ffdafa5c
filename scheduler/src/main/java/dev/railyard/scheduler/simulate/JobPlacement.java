package dev.railyard.scheduler.simulate;

import dev.railyard.api.topology.PcieDistance;
import dev.railyard.topology.fabric.FabricModel;
import dev.railyard.topology.fabric.FabricPosition;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What one job's placement gives its network traffic, for {@link StepTimeModel#slowdown}.
 *
 * <p>Flows: for the ring all-reduce, each pod and the next one in rank order (the last back to the first; one pair
 * for two pods); for all-to-all, every pair of pods; in both, once per local rank k below both pods' GPU counts
 * (GPU k of one pod talks to GPU k of the other, one ring per rail as NCCL builds them). A flow crosses rails when
 * the two GPUs' HCAs are on different rails; it crosses leaves when the switches it uses differ.
 *
 * @param usesNetwork    true when some flow leaves a pod (two pods or more)
 * @param bottleneckGBps bandwidth of the slowest flow, GB/s (the line rate when no flow)
 * @param maxLayers      switch layers of the longest flow (1 when no flow)
 * @param flows          flows counted
 * @param crossRail      flows whose two HCAs are on different rails
 * @param crossLeaf      flows between different nodes whose leaf switches differ on the rail used
 * @param gpusByDistance the job's GPUs per GPU–HCA distance class
 */
public record JobPlacement(boolean usesNetwork, double bottleneckGBps, int maxLayers, int flows, int crossRail,
                           int crossLeaf, Map<PcieDistance, Integer> gpusByDistance) {
    public JobPlacement {
        Map<PcieDistance, Integer> copy = new EnumMap<>(PcieDistance.class);
        copy.putAll(gpusByDistance);
        gpusByDistance = copy;
    }

    /**
     * @param job    the job (its collective)
     * @param pods   its pods in rank order
     * @param fabric the fabric
     * @param model  the bandwidth terms
     * @return the analysis
     */
    public static JobPlacement of(TraceJob job, List<PlacementStrategy.PodUse> pods, FabricModel fabric,
                                  StepTimeModel model) {
        Map<PcieDistance, Integer> hist = new EnumMap<>(PcieDistance.class);
        Map<String, Integer> sharers = new HashMap<>();
        for (PlacementStrategy.PodUse p : pods) {
            for (PlacementStrategy.GpuUse g : p.gpus()) {
                hist.merge(g.distance(), 1, Integer::sum);
                if (g.hca() != null) {
                    sharers.merge(p.node() + "/" + g.hca(), 1, Integer::sum);
                }
            }
        }
        int n = pods.size();
        if (n < 2) {
            return new JobPlacement(false, model.lineRateGBps(), 1, 0, 0, 0, hist);
        }
        Acc acc = new Acc(model.lineRateGBps());
        if (job.collective() == Collective.RING_ALL_REDUCE) {
            int pairs = n == 2 ? 1 : n;
            for (int i = 0; i < pairs; i++) {
                flows(pods.get(i), pods.get((i + 1) % n), fabric, model, sharers, acc);
            }
        } else {
            for (int i = 0; i < n; i++) {
                for (int j = i + 1; j < n; j++) {
                    flows(pods.get(i), pods.get(j), fabric, model, sharers, acc);
                }
            }
        }
        boolean network = model.sameNodePodsUseNetwork() || acc.interNode > 0;
        return new JobPlacement(network, acc.minGbps, acc.maxLayers, acc.flows, acc.crossRail, acc.crossLeaf, hist);
    }

    private static final class Acc {
        double minGbps;
        int maxLayers = 1;
        int flows;
        int crossRail;
        int crossLeaf;
        int interNode;

        Acc(double line) {
            minGbps = line;
        }
    }

    private static void flows(PlacementStrategy.PodUse a, PlacementStrategy.PodUse b, FabricModel fabric,
                              StepTimeModel model, Map<String, Integer> sharers, Acc acc) {
        boolean sameNode = a.node().equals(b.node());
        if (!sameNode) {
            acc.interNode++;
        } else if (!model.sameNodePodsUseNetwork()) {
            return;
        }
        FabricPosition pa = fabric.position(a.node());
        FabricPosition pb = fabric.position(b.node());
        int ranks = Math.min(a.gpus().size(), b.gpus().size());
        for (int k = 0; k < ranks; k++) {
            PlacementStrategy.GpuUse ga = a.gpus().get(k);
            PlacementStrategy.GpuUse gb = b.gpus().get(k);
            double bw = Math.min(bandwidth(a.node(), ga, sharers, model), bandwidth(b.node(), gb, sharers, model));
            boolean crossRail = ga.rail() != gb.rail();
            int rail = gb.rail();
            int tier;
            if (crossRail) {
                acc.crossRail++;
                // a shared path either way: the relaying GPU's NIC (PXN) or the fabric above the rail planes
                bw *= model.sharedNicFactor();
                if (model.pxn() && hasRail(a, gb.rail())) {
                    // PXN on a's side: NVLink to a's GPU on b's rail (the pod's own GPUs only), then that rail
                    tier = sameNode ? 0 : fabric.commonTier(pa, pb, rail);
                } else if (model.pxn() && hasRail(b, ga.rail())) {
                    rail = ga.rail();
                    tier = sameNode ? 0 : fabric.commonTier(pa, pb, rail);
                } else {
                    // no GPU of either pod on the other's rail: climb to where the rail planes meet (a
                    // rail-only fabric: one tier above the top)
                    tier = fabric.maxTier() + 1;
                }
            } else {
                tier = sameNode ? 0 : fabric.commonTier(pa, pb, rail);
            }
            if (!sameNode) {
                String la = pa == null || rail < 0 ? null : pa.leaf(rail);
                String lb = pb == null || rail < 0 ? null : pb.leaf(rail);
                if (la == null || !la.equals(lb)) {
                    acc.crossLeaf++;
                }
            }
            acc.flows++;
            acc.minGbps = Math.min(acc.minGbps, bw);
            acc.maxLayers = Math.max(acc.maxLayers, StepTimeModel.layers(tier));
        }
    }

    private static boolean hasRail(PlacementStrategy.PodUse pod, int rail) {
        for (PlacementStrategy.GpuUse g : pod.gpus()) {
            if (g.rail() == rail) {
                return true;
            }
        }
        return false;
    }

    private static double bandwidth(String node, PlacementStrategy.GpuUse g, Map<String, Integer> sharers,
                                    StepTimeModel model) {
        if (g.hca() == null) {
            return model.gpuBandwidth(PcieDistance.SYS, 1);
        }
        return model.gpuBandwidth(g.distance(), sharers.getOrDefault(node + "/" + g.hca(), 1));
    }
}
