package dev.railyard.scheduler.simulate;

import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.api.topology.PcieDistance;
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

/**
 * Railyard's own gang plan: {@link PlacementEngine#plan} with the job's hints, exactly as the extender calls it.
 *
 * <p>{@code relaxAfterSeconds} is the queue-pressure knob: a job that has waited at least that long is planned with
 * {@code railyard.dev/gpu-hca-affinity: preferred} (the planner then gives GPU–HCA affinity up only when no plan
 * keeps it, see docs/adr/0002); before that, with the default {@code required}. {@link Double#POSITIVE_INFINITY}
 * never relaxes (Railyard's default), 0 always does.
 */
final class RailyardStrategy implements PlacementStrategy {
    private final PlacementEngine engine;
    private final double relaxAfterSeconds;
    private final String name;

    RailyardStrategy(PlacementEngine engine, double relaxAfterSeconds) {
        this.engine = engine;
        this.relaxAfterSeconds = relaxAfterSeconds;
        this.name = Double.isInfinite(relaxAfterSeconds) ? "railyard"
                : relaxAfterSeconds == 0 ? "railyard-pref" : "railyard-relax";
    }

    @Override
    public String name() {
        return name;
    }

    /** @return seconds of waiting after which affinity is relaxed (infinite: never) */
    double relaxAfter() {
        return relaxAfterSeconds;
    }

    /** @return the affinity the job is planned with after waiting {@code waited} seconds */
    AffinityPolicy affinity(double waited) {
        return waited >= relaxAfterSeconds ? AffinityPolicy.PREFERRED : AffinityPolicy.REQUIRED;
    }

    @Override
    public boolean mayFit(SimCluster c, TraceJob job, double waited) {
        // with affinity required only GPUs paired at ≤ PXB count; once relaxed, every free GPU does
        boolean strict = affinity(waited) == AffinityPolicy.REQUIRED;
        long slots = 0;
        for (int i = 0; i < c.size() && slots < job.pods(); i++) {
            if (c.free(i) >= job.gpus()) {
                slots += (strict ? c.freeNearHca(i) : c.free(i)) / job.gpus();
            }
        }
        return slots >= job.pods();
    }

    @Override
    public List<PodUse> place(SimCluster c, TraceJob job, double waited) {
        List<PodRequest> pods = new ArrayList<>();
        for (int i = 0; i < job.pods(); i++) {
            pods.add(new PodRequest("sim", job.name() + "-" + i, job.gpus(), Map.of(), null, false));
        }
        PlacementPolicy policy = PlacementPolicy.defaults().withRailAlignment(job.railAlignment())
                .withAffinity(affinity(waited), PcieDistance.PXB);
        PlanOutcome o = engine.plan(c.snapshot(), new GangRequest("sim", job.name(), pods, policy));
        if (!o.schedulable()) {
            return null;
        }
        List<PodUse> out = new ArrayList<>();
        for (PlannedPod p : o.plan().pods()) {
            List<GpuUse> uses = new ArrayList<>();
            for (GpuBinding b : p.gpus()) {
                uses.add(new GpuUse(b.gpu(), b.hca(), b.rail(), b.distance()));
            }
            out.add(new PodUse(p.node(), uses));
        }
        return out;
    }
}
