package dev.railyard.scheduler.simulate;

import dev.railyard.scheduler.engine.GangRequest;
import dev.railyard.scheduler.engine.GpuBinding;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.scheduler.engine.PlacementPolicy;
import dev.railyard.scheduler.engine.PlanOutcome;
import dev.railyard.scheduler.engine.PlannedPod;
import dev.railyard.scheduler.engine.PodRequest;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Railyard's own gang plan ({@link PlacementEngine#plan}) with default hints and the job's rail alignment. */
final class RailyardStrategy implements PlacementStrategy {
    private final PlacementEngine engine;

    RailyardStrategy(PlacementEngine engine) {
        this.engine = engine;
    }

    @Override
    public String name() {
        return "railyard";
    }

    @Override
    public List<PodUse> place(SimCluster c, TraceJob job) {
        List<PodRequest> pods = new ArrayList<>();
        for (int i = 0; i < job.pods(); i++) {
            pods.add(new PodRequest("sim", job.name() + "-" + i, job.gpus(), Map.of(), null, false));
        }
        PlacementPolicy policy = PlacementPolicy.defaults().withRailAlignment(job.railAlignment());
        PlanOutcome o = engine.plan(c.snapshot(), new GangRequest("sim", job.name(), pods, policy));
        if (!o.schedulable()) {
            return null;
        }
        List<PodUse> out = new ArrayList<>();
        for (PlannedPod p : o.plan().pods()) {
            List<GpuUse> uses = new ArrayList<>();
            for (GpuBinding b : p.gpus()) {
                uses.add(new GpuUse(b.gpu(), b.rail(), b.distance()));
            }
            out.add(new PodUse(p.node(), uses));
        }
        return out;
    }
}
