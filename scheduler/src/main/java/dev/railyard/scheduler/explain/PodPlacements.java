package dev.railyard.scheduler.explain;

import dev.railyard.api.hints.PlacementHint;
import dev.railyard.api.topology.AllocatedGpu;
import dev.railyard.api.topology.GpuHcaPair;
import dev.railyard.api.topology.NodeTopologyStatus;
import dev.railyard.api.topology.PodAllocation;
import dev.railyard.scheduler.cluster.ClusterView;
import dev.railyard.scheduler.cluster.PodView;
import dev.railyard.scheduler.engine.GpuBinding;
import dev.railyard.scheduler.engine.NodeState;
import dev.railyard.scheduler.engine.PlannedPod;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The placement lines of an explanation ({@link Explanation.Placement}): a pod the engine planned, or a pod already
 * bound, with its GPUs, their HCAs and rails. Stateless.
 */
final class PodPlacements {
    private PodPlacements() {
    }

    /** A pod as the gang plan places it; {@code gpuCount} is what the pod asks for. */
    static Explanation.Placement planned(PlannedPod pp, int gpuCount) {
        List<Explanation.GpuEntry> gpus = new ArrayList<>();
        LinkedHashSet<String> hcas = new LinkedHashSet<>();
        List<Integer> rails = new ArrayList<>();
        for (GpuBinding b : pp.gpus()) {
            gpus.add(new Explanation.GpuEntry(b.gpu(), b.hca(), b.rail(), b.distance().name()));
            hcas.add(b.hca());
            rails.add(b.rail());
        }
        return new Explanation.Placement(pp.pod(), pp.rank(), pp.node(), "plan", gpuCount, gpus,
                new ArrayList<>(hcas), rails, pp.rails() == null ? null : pp.rails().toString());
    }

    /** Where a bound pod is: from its placement hint, else the node agent's allocation, else its request count. */
    static Explanation.Placement bound(ClusterView view, PodView pod) {
        NodeState node = view.snapshot().node(pod.node());
        PlacementHint h = pod.placementHint();
        if (h != null) {
            List<Explanation.GpuEntry> gpus = new ArrayList<>();
            LinkedHashSet<String> hcas = new LinkedHashSet<>();
            List<Integer> rails = new ArrayList<>();
            for (PlacementHint.GpuHint g : h.gpus()) {
                gpus.add(new Explanation.GpuEntry(g.gpu(), g.hca(), g.rail(),
                        g.distance() == null ? null : g.distance().name()));
                hcas.add(g.hca());
                rails.add(g.rail());
            }
            return new Explanation.Placement(pod.name(), h.rank(), pod.node(), "bound", pod.gpus(), gpus,
                    new ArrayList<>(hcas), rails, railSet(rails));
        }
        NodeTopologyStatus status = view.topologyStatuses().get(pod.node());
        if (status != null) {
            for (PodAllocation a : status.allocations()) {
                if (a.namespace().equals(pod.namespace()) && a.name().equals(pod.name())) {
                    List<Explanation.GpuEntry> gpus = new ArrayList<>();
                    LinkedHashSet<String> hcas = new LinkedHashSet<>();
                    List<Integer> rails = new ArrayList<>();
                    for (AllocatedGpu g : a.gpus()) {
                        if (g.index() == null) {
                            continue;
                        }
                        GpuHcaPair pair = node == null || node.topology() == null ? null : node.topology().pairs()
                                .stream().filter(x -> x.gpu() == g.index()).findFirst().orElse(null);
                        gpus.add(new Explanation.GpuEntry(g.index(), pair == null ? null : pair.hca(),
                                pair == null ? null : pair.rail(), pair == null ? null : pair.distance().name()));
                        if (pair != null) {
                            hcas.add(pair.hca());
                            rails.add(pair.rail());
                        }
                    }
                    return new Explanation.Placement(pod.name(), null, pod.node(), "bound", pod.gpus(), gpus,
                            new ArrayList<>(hcas), rails, rails.size() == gpus.size() ? railSet(rails) : null);
                }
            }
        }
        return new Explanation.Placement(pod.name(), null, pod.node(), "bound-count", pod.gpus(), List.of(), List.of(),
                List.of(), null);
    }

    /** @return {@code {0,1,2,3}} with multiplicities {@code {0×2,1×2}}, as the engine's rail vectors print */
    static String railSet(List<Integer> rails) {
        if (rails.isEmpty()) {
            return null;
        }
        Map<Integer, Integer> counts = new TreeMap<>();
        rails.forEach(r -> counts.merge(r, 1, Integer::sum));
        List<String> parts = new ArrayList<>();
        counts.forEach((r, c) -> parts.add(c > 1 ? r + "×" + c : Integer.toString(r)));
        return "{" + String.join(",", parts) + "}";
    }
}
