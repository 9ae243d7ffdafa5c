package dev.railyard.scheduler.cli;

import dev.railyard.api.hints.AffinityPolicy;
import dev.railyard.scheduler.cluster.PodView;
import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.GangPlan;
import dev.railyard.scheduler.engine.GangRequest;
import dev.railyard.scheduler.engine.HcaResource;
import dev.railyard.scheduler.engine.NodeState;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.scheduler.engine.PlacementPolicy;
import dev.railyard.scheduler.engine.PlanOutcome;
import dev.railyard.scheduler.engine.PlannedPod;
import dev.railyard.scheduler.engine.PodRequest;
import dev.railyard.scheduler.explain.VolcanoJobTemplate;
import dev.railyard.scheduler.ipam.PodPlacement;
import dev.railyard.scheduler.ipam.PoolVerdict;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Places the demo's jobs one after the other, as Volcano would create them ({@link VolcanoJobTemplate}, the reader
 * {@code explain} uses, so settings are credited to the same object), each on the cluster the earlier ones left:
 * their GPUs and RDMA slots taken, their addresses held in the pool ledger.
 */
final class DemoRun {
    /**
     * One job's run.
     *
     * @param job        the job as Volcano would expand it
     * @param gang       the gang planned
     * @param outcome    the plan, or why there is none
     * @param before     the cluster the job was planned on
     * @param unaligned  with required rail alignment on several nodes: the plan without it, when it mixes rails;
     *                   else null
     * @param heldError  why the plan's addresses could not be held, or null
     */
    record Placed(VolcanoJobTemplate.Job job, GangRequest gang, PlanOutcome outcome, ClusterSnapshot before,
                  GangPlan unaligned, String heldError) {
    }

    private DemoRun() {
    }

    /**
     * @return one result per job, in order; {@code after} receives the cluster after the last job
     */
    static List<Placed> run(DemoCluster.Loaded cluster, List<VolcanoJobTemplate.Job> jobs, PlacementEngine engine,
                            ClusterSnapshot[] after) {
        ClusterSnapshot snapshot = cluster.snapshot();
        List<Placed> out = new ArrayList<>();
        for (VolcanoJobTemplate.Job job : jobs) {
            GangRequest gang = gang(job, snapshot);
            PlanOutcome outcome = engine.plan(snapshot, gang);
            GangPlan unaligned = null;
            String heldError = null;
            ClusterSnapshot before = snapshot;
            if (outcome.schedulable()) {
                unaligned = withoutAlignment(engine, snapshot, gang, outcome.plan());
                PoolVerdict held = cluster.ledger().reserve(placements(gang, outcome.plan()));
                heldError = held.admitted() ? null : held.message();
                snapshot = snapshot.taking(gang, outcome.plan());
            }
            out.add(new Placed(job, gang, outcome, before, unaligned, heldError));
        }
        after[0] = snapshot;
        return out;
    }

    /** The gang of a job: every pod, the RDMA resources kept being those some node advertises. */
    static GangRequest gang(VolcanoJobTemplate.Job job, ClusterSnapshot snapshot) {
        Set<String> rdma = new HashSet<>();
        for (NodeState n : snapshot.nodes()) {
            for (HcaResource r : n.hcaResources()) {
                rdma.add(r.resource());
            }
        }
        List<PodView> pods = new ArrayList<>();
        for (GenericKubernetesResource p : job.pods()) {
            pods.add(PodView.of(p));
        }
        List<PodRequest> requests = pods.stream().map(p -> p.request(rdma)).toList();
        PlacementPolicy policy = PlacementPolicy.resolve(job.annotations(), job.podGroup(),
                pods.get(0).annotations(), snapshot.fabric());
        return new GangRequest(job.namespace(), job.name(), requests, policy);
    }

    /** @return the cheapest plan without rail alignment when the gang required it across nodes and it mixes rails */
    private static GangPlan withoutAlignment(PlacementEngine engine, ClusterSnapshot snapshot, GangRequest gang,
                                             GangPlan plan) {
        if (gang.policy().railAlignment() != AffinityPolicy.REQUIRED || plan.nodes().size() < 2) {
            return null;
        }
        GangRequest loose = new GangRequest(gang.namespace(), gang.name(), gang.pods(),
                gang.policy().withRailAlignment(AffinityPolicy.IGNORE));
        PlanOutcome o = engine.plan(snapshot, loose);
        if (!o.schedulable()) {
            return null;
        }
        Set<String> vectors = new TreeSet<>();
        o.plan().pods().forEach(p -> vectors.add(p.rails().toString()));
        return vectors.size() > 1 ? o.plan() : null;
    }

    private static List<PodPlacement> placements(GangRequest gang, GangPlan plan) {
        List<PodPlacement> out = new ArrayList<>();
        for (PlannedPod p : plan.pods()) {
            out.add(new PodPlacement(p.pod(), gang.pods().get(p.index()).networks(), p.node()));
        }
        return out;
    }
}
