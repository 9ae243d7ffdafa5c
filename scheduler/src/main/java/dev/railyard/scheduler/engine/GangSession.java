package dev.railyard.scheduler.engine;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What a gang's scheduling session remembers between the scheduler's calls, in the manner of Volcano's session
 * (tentative allocations) and Koordinator's deviceshare state: the adapter turns an extension point into a call
 * here with the gang read from the cluster state, and gets back what the engine needs to judge one pod.
 *
 * <ul>
 *   <li><b>Tentative allocations</b> (Volcano {@code allocateFunc} / {@code deallocateFunc}): gang → pod → node,
 *       counted as placed members until released.</li>
 *   <li><b>The gang's plan</b>: planned once per cluster snapshot and member set, and kept across snapshots while
 *       it still names the pod asked about and no member is bound elsewhere than planned (members bound since must
 *       not be re-planned onto other rails: rail alignment holds across the whole gang).</li>
 *   <li><b>Steering</b>: the plan entry each pod was last judged by ({@link #steered}), for the hints written at
 *       bind time, and the score steering of {@link #steer}.</li>
 * </ul>
 * Thread-safe; entries expire 30 minutes after they are written.
 */
public final class GangSession {
    private static final Logger LOG = LoggerFactory.getLogger(GangSession.class);

    private final PlacementEngine engine;
    /** gang key → pod key → node, from Volcano's tentative allocations. */
    private final ConcurrentMap<String, ConcurrentMap<String, String>> tentative = new ConcurrentHashMap<>();
    private final Cache<String, Steered> steered = thirtyMinutes(100_000);
    private final Cache<String, PlanOutcome> plans = thirtyMinutes(10_000);
    /**
     * gang key → the last {@link #boundAsPlanned} answer, reused while both the gang (read once per cluster view)
     * and its plan are the same instances: a predicate storm then checks the plan's members once per view, not on
     * every call. The gang is held weakly: it reaches its cluster view, which must not outlive the calls using it.
     */
    private final Cache<String, BoundCheck> boundChecks = thirtyMinutes(10_000);

    private record BoundCheck(java.lang.ref.WeakReference<Gang> gang, PlanOutcome outcome, boolean asPlanned) {
    }

    /**
     * pod key → its last {@link #decide} answer, reused while the gang instance (one per cluster view), Volcano's
     * tentative allocations ({@link #tentativeChanges}) and the gang's plan instance are the same: the answer depends
     * on nothing else, and a 64-task gang asks it once per (task, node). The gang is held weakly, as in
     * {@link #boundChecks}.
     */
    private final Cache<String, Decided> decided = thirtyMinutes(100_000);
    /** Counts the plans made ({@link #plansMade}). */
    private final java.util.concurrent.atomic.AtomicLong plansMade = new java.util.concurrent.atomic.AtomicLong();
    /** Counts every tentative allocation and its undoing. */
    private final java.util.concurrent.atomic.AtomicLong tentativeChanges = new java.util.concurrent.atomic.AtomicLong();

    private record Decided(java.lang.ref.WeakReference<Gang> gang, long tentativeChanges, PlanOutcome plan,
                           Decision decision) {
    }
    private volatile Memo memo;

    /**
     * The plan entry a pod was last steered by.
     *
     * @param snapshot the snapshot the plan was made on
     * @param plan     the gang's plan
     * @param pod      the pod's entry in it
     * @param request  the pod's request
     */
    public record Steered(ClusterSnapshot snapshot, GangPlan plan, PlannedPod pod, PodRequest request) {
    }

    /**
     * One member of a gang as the cluster shows it.
     *
     * @param key     {@code namespace/name}
     * @param name    pod name
     * @param node    the node it is bound to, or null
     * @param request its request
     */
    public record Member(String key, String name, String node, PodRequest request) {
    }

    /**
     * A gang read from the cluster for one call.
     *
     * @param key        {@code namespace/name} of its PodGroup
     * @param namespace  its namespace
     * @param name       its name
     * @param planPolicy the policy to plan with (resolved from the first member still to place)
     * @param members    every member, in rank order
     * @param bound      the members already bound that hold devices ({@link BoundMember}), asked for only when a
     *                   plan is made
     * @param boundNode  pod name → the node the cluster shows it bound to, or null (for pods the plan names)
     */
    public record Gang(String key, String namespace, String name, PlacementPolicy planPolicy, List<Member> members,
                       Supplier<List<BoundMember>> bound, Function<String, String> boundNode) {
        public Gang {
            members = List.copyOf(members);
        }
    }

    /**
     * What the engine needs to judge one pod.
     *
     * @param context the gang's context: members placed (bound or tentatively allocated, else the plan's other
     *                nodes) and the plan's rail vector for the pod
     * @param planned the pod's entry in the gang's plan, or null when the plan does not place it
     * @param outcome the gang's plan, or null when none was made
     */
    public record Decision(GangContext context, PlannedPod planned, PlanOutcome outcome) {
    }

    private record Memo(ClusterSnapshot snapshot, ConcurrentMap<String, PlanOutcome> plans) {
    }

    /** @param engine the engine that plans */
    public GangSession(PlacementEngine engine) {
        this.engine = engine;
    }

    private static <K, V> Cache<K, V> thirtyMinutes(long maximumSize) {
        return Caffeine.newBuilder().expireAfterWrite(Duration.ofMinutes(30)).maximumSize(maximumSize).build();
    }

    /**
     * @param snapshot the cluster
     * @param podKey   the pod asked about ({@code namespace/name})
     * @param podName  its name
     * @param gang     its gang
     * @return the pod's gang context and plan entry
     */
    public Decision decide(ClusterSnapshot snapshot, String podKey, String podName, Gang gang) {
        long changes = tentativeChanges.get();
        Decided last = decided.getIfPresent(podKey);
        if (last != null && last.gang().get() == gang && last.tentativeChanges() == changes
                && last.plan() == plans.getIfPresent(gang.key())) {
            return last.decision();
        }
        Decision d = decideAgain(snapshot, podKey, podName, gang);
        decided.put(podKey, new Decided(new java.lang.ref.WeakReference<>(gang), changes,
                plans.getIfPresent(gang.key()), d));
        return d;
    }

    private Decision decideAgain(ClusterSnapshot snapshot, String podKey, String podName, Gang gang) {
        List<String> placed = new ArrayList<>();
        List<Member> toPlace = new ArrayList<>();
        boolean listed = false;
        for (Member m : gang.members()) {
            if (m.node() != null && !m.node().isEmpty()) {
                placed.add(m.node());
            } else {
                toPlace.add(m);
                listed |= m.key().equals(podKey);
            }
        }
        Map<String, String> held = tentative.getOrDefault(gang.key(), new ConcurrentHashMap<>());
        held.forEach((k, node) -> {
            if (!k.equals(podKey)) {
                placed.add(node);
            }
        });
        if (!listed) {
            // the informer has not seen this pod yet: judged on its own, with the members' nodes as context
            LOG.debug("gang {}: {} is not among the {} members the cluster state lists; judged without a plan",
                    gang.key(), podKey, gang.members().size());
            return new Decision(new GangContext(placed, null), null, null);
        }
        // plan every unbound member, those Volcano holds tentatively included, so the plan stays the same for the
        // whole session; the gang keeps the plan it was first given while it still names this pod
        PlanOutcome outcome = plans.getIfPresent(gang.key());
        if (planned(outcome, podName) == null || !boundAsPlannedOnce(gang, outcome)) {
            outcome = planFor(snapshot, gang, toPlace);
            if (outcome != null && outcome.schedulable()) {
                plans.put(gang.key(), outcome);
            }
        }
        PlannedPod p = planned(outcome, podName);
        if (p == null) {
            return new Decision(new GangContext(placed, null), null, outcome);
        }
        GangContext ctx = GangContext.of(outcome.plan(), p.index());
        // the gang's actual members (bound or tentatively allocated) are the context when there are any, otherwise
        // the plan's other nodes, which steers the first pod into the plan's fabric domain
        return new Decision(new GangContext(placed.isEmpty() ? ctx.placed() : placed, ctx.rails()), p, outcome);
    }

    /** Records that the pod was steered by its plan entry (for the hints written when it is bound). */
    public void steered(String podKey, Steered entry) {
        steered.put(podKey, entry);
    }

    /** @return the plan entry the pod was last steered by, or null */
    public Steered steered(String podKey) {
        return steered.getIfPresent(podKey);
    }

    /**
     * @param plannedNode the node the plan gives the pod, or null
     * @param node        the node scored
     * @param score       the engine's score, 0..100
     * @return 100 for the planned node, half the engine's score for the others (at most 50), the engine's score when
     *         there is no plan: the plan's choice stands out even though Volcano adds the extender's raw score to
     *         its other plugins' without normalising
     */
    public static int steer(String plannedNode, String node, int score) {
        if (plannedNode == null) {
            return score;
        }
        return node.equals(plannedNode) ? 100 : score / 2;
    }

    /** Volcano allocated the pod to the node tentatively (its session's {@code allocateFunc}). */
    public void allocated(String gangKey, String podKey, String node) {
        tentative.computeIfAbsent(gangKey, k -> new ConcurrentHashMap<>()).put(podKey, node);
        tentativeChanges.incrementAndGet(); // after the change, as in deallocated
    }

    /** Volcano undid a tentative allocation ({@code deallocateFunc}), whatever node it was on. */
    public void deallocated(String gangKey, String podKey) {
        deallocated(gangKey, podKey, null);
    }

    /**
     * Volcano undid a tentative allocation ({@code deallocateFunc}) of the pod on {@code node}; an allocation on
     * another node is kept (a call that does not name it undoes nothing).
     *
     * @param node the node the call names, or null for any
     */
    public void deallocated(String gangKey, String podKey, String node) {
        ConcurrentMap<String, String> held = tentative.get(gangKey);
        if (held != null) {
            if (node == null) {
                held.remove(podKey);
            } else {
                held.remove(podKey, node);
            }
            if (held.isEmpty()) {
                tentative.remove(gangKey, held);
            }
        }
        // counted after the change, so a decision that saw the new count also saw the change
        tentativeChanges.incrementAndGet();
    }

    /** @return the pod's entry in a schedulable outcome, or null */
    public static PlannedPod planned(PlanOutcome outcome, String podName) {
        if (outcome == null || !outcome.schedulable()) {
            return null;
        }
        for (PlannedPod p : outcome.plan().pods()) {
            if (p.pod().equals(podName)) {
                return p;
            }
        }
        return null;
    }

    /** {@link #boundAsPlanned}, memoised per gang instance and plan instance (both immutable). */
    private boolean boundAsPlannedOnce(Gang gang, PlanOutcome outcome) {
        BoundCheck last = boundChecks.getIfPresent(gang.key());
        if (last != null && last.gang().get() == gang && last.outcome() == outcome) {
            return last.asPlanned();
        }
        boolean ok = boundAsPlanned(gang, outcome);
        boundChecks.put(gang.key(), new BoundCheck(new java.lang.ref.WeakReference<>(gang), outcome, ok));
        return ok;
    }

    /**
     * @return false when a member the plan placed is bound now to another node than the plan's (the scheduler
     * chose otherwise), so the plan no longer describes the gang and is made again around the bound members
     */
    private static boolean boundAsPlanned(Gang gang, PlanOutcome outcome) {
        for (PlannedPod p : outcome.plan().pods()) {
            String node = gang.boundNode().apply(p.pod());
            if (node != null && !node.equals(p.node())) {
                return false;
            }
        }
        return true;
    }

    /** Plans the unbound members, once per snapshot and member set. */
    private PlanOutcome planFor(ClusterSnapshot snapshot, Gang gang, List<Member> toPlace) {
        if (toPlace.isEmpty()) {
            return null;
        }
        StringBuilder key = new StringBuilder(gang.key()).append('|');
        for (Member m : toPlace) {
            key.append(m.key()).append(',');
        }
        Memo m = memo;
        if (m == null || m.snapshot() != snapshot) {
            m = new Memo(snapshot, new ConcurrentHashMap<>());
            memo = m;
        }
        // concurrent calls for one gang (Volcano's 16 workers) wait for the one plan instead of each making it
        return m.plans().computeIfAbsent(key.toString(), k -> plan(snapshot, gang, toPlace));
    }

    /** @return how many gang plans this session has made (each search, or short answer, of the engine) */
    public long plansMade() {
        return plansMade.get();
    }

    private PlanOutcome plan(ClusterSnapshot snapshot, Gang gang, List<Member> toPlace) {
        plansMade.incrementAndGet();
        try {
            // GangRequest is (namespace, name): its key, and so the hint's "gang", is namespace/name
            GangRequest request = new GangRequest(gang.namespace(), gang.name(),
                    toPlace.stream().map(Member::request).toList(), gang.planPolicy())
                    .withBound(gang.bound().get());
            // only whether there is a plan, the plan and the pools' verdict are read here: a gang the cluster's
            // free GPUs cannot hold is answered without a search on each cluster change while it waits for room
            PlanOutcome outcome = engine.planUnlessShort(snapshot, request);
            LOG.debug("gang {}: {}", gang.key(), outcome.summary());
            return outcome;
        } catch (RuntimeException e) {
            LOG.warn("gang {}: cannot plan ({}); judging its pods one by one", gang.key(), e.getMessage());
            return null;
        }
    }
}
