package dev.railyard.scheduler.service;

import dev.railyard.scheduler.engine.ReasonCode;
import dev.railyard.scheduler.engine.Reason;
import dev.railyard.api.volcano.PodGroup;
import dev.railyard.scheduler.cluster.ClusterObjects;
import dev.railyard.scheduler.cluster.ClusterView;
import dev.railyard.scheduler.cluster.ClusterState;
import dev.railyard.scheduler.cluster.PodView;
import dev.railyard.scheduler.cluster.WatchedKind;
import dev.railyard.scheduler.engine.BoundMember;
import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.GangContext;
import dev.railyard.scheduler.engine.GangSession;
import dev.railyard.scheduler.engine.NodeAnswers;
import dev.railyard.scheduler.engine.NodeScore;
import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.engine.GangRequest;
import dev.railyard.scheduler.engine.NodeState;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.scheduler.engine.PlacementPolicy;
import dev.railyard.scheduler.engine.PlanOutcome;
import dev.railyard.scheduler.engine.PlannedPod;
import dev.railyard.scheduler.engine.PodRequest;
import dev.railyard.scheduler.hints.OffPlanHints;
import dev.railyard.scheduler.input.LogText;
import dev.railyard.scheduler.input.RateLimitedLog;
import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.ipam.PodNetworksRequest;
import dev.railyard.scheduler.ipam.PodPlacement;
import dev.railyard.scheduler.ipam.PoolVerdict;
import dev.railyard.scheduler.protocol.AllocationVerdict;
import dev.railyard.scheduler.protocol.BindDecision;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.GangJob;
import dev.railyard.scheduler.protocol.GangReadiness;
import dev.railyard.scheduler.protocol.GangRef;
import dev.railyard.scheduler.protocol.GangVerdict;
import dev.railyard.scheduler.protocol.KnownNames;
import dev.railyard.scheduler.protocol.PlacementDecisions;
import dev.railyard.scheduler.protocol.PodRef;
import dev.railyard.topology.InputException;
import dev.railyard.topology.fabric.FabricModel;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

/**
 * The protocol port answered by the placement engine over live cluster state.
 *
 * <p>Per request it takes one {@link ClusterView} (rebuilt only when the cache's event counter moved, so a burst of
 * 16 concurrent predicate calls shares one view), finds the pod's gang (its PodGroup: Volcano's, or the
 * scheduler-plugins coscheduling PodGroup its {@code scheduling.x-k8s.io/pod-group} label names), plans the gang
 * once per view
 * and steers every task by that plan:
 * <ul>
 *   <li><b>Filter</b>: the engine's per-pod verdict with the gang's context (members already bound or tentatively
 *       allocated, and the plan's rail set). A node the snapshot does not know, or one without a NodeTopology, passes
 *       neutrally (never a rejection for want of data).</li>
 *   <li><b>Score</b>: the engine's 0–100 score; when the gang plan placed this pod, its node gets 100 and every other
 *       node half its own score (at most 50), so the plan's choice stands out even though Volcano adds the
 *       extender's raw score to its other plugins' scores without normalising (docs/formats/volcano-extender.md
 *       §3).</li>
 *   <li><b>Reserve</b> (Volcano {@code allocateFunc}): holds one address per network in the IP pool ledger; a pool
 *       that cannot hold it vetoes the allocation. {@code deallocateFunc} releases the holds.</li>
 *   <li><b>Gang admission</b> ({@code jobEnqueueable}): permit when the whole gang has a plan (nodes, rails and
 *       addresses), reject with the plan's reasons otherwise (a gang the cluster's free GPUs cannot hold at all
 *       is refused without a search, naming that bound: {@link PlacementEngine#planUnlessShort}).</li>
 *   <li><b>Bind hints</b> ({@link BindHints}): the hint for the node in the Binding: the plan's pod when the plan
 *       chose that node, otherwise the GPUs on that node that keep the gang's rail set (the one its bound members
 *       hold, else the plan's), or the node's best pairing when it cannot offer it, with the gang's rank and size,
 *       said in the hint's {@code railChoice} ({@link OffPlanHints}); only for pods in Railyard's scope
 *       ({@link HintScope}). A pod not bound yet gets its gang decision as Filter does.</li>
 * </ul>
 * Members of the gang already bound are read from the cluster, not from memory (docs/adr/0005): each bound member
 * that holds its devices enters the plan as a {@link BoundMember} with the GPUs, rails and rank of its
 * {@code railyard.dev/placement} hint, or by its node only when it has no usable hint (logged once per pod). So a
 * gang bound one pod at a time (kube-scheduler) that outlives a restart keeps its rail set, fabric domain and ranks.
 * While the cluster cache has not synced, every answer is neutral and the log says so once. Events: {@link
 * DecisionEvents}. Thread-safe.
 */
public final class EnginePlacementDecisions implements PlacementDecisions {
    private static final Logger LOG = LoggerFactory.getLogger(EnginePlacementDecisions.class);

    private final Supplier<ClusterView> views;
    private final IpPoolLedger ledger;
    private final PlacementEngine engine;
    private final int neutralScore;
    private final MeterRegistry registry;
    private final GangSession session;
    private final NodeAnswers answers;
    private volatile boolean announcedCold;
    private volatile Reservations reservations;
    private final GangReader gangReader = new GangReader();
    /** How many recently asked gangs {@link #prepare} plans for, at most, per view. */
    static final int PREPARED_GANGS = 8;
    /** The gangs asked about lately, prepared for each new view ({@link #prepare}). */
    private final RecentGangs recentGangs = new RecentGangs();
    /** The last view {@link #prepare} was given. */
    private volatile ClusterView prepared;
    private volatile DecisionEvents events;
    /**
     * The lines a caller can repeat at will (a gang not enqueueable, hints for a pod the webhook names): one per kind
     * every 10 s. Each decision also has its Event, its hint annotation or its debug line.
     */
    private final RateLimitedLog lines = RateLimitedLog.of(LOG);
    /** The hint annotations of a bind, over the same view, session, gang reader and lines. */
    private final BindHints hints;

    /**
     * @param views        the cluster state's current view ({@link ClusterState#snapshot()}), or null while the
     *                     informers have not synced
     * @param ledger       the IP pool ledger the state feeds
     * @param engine       the placement engine
     * @param neutralScore score for nodes Railyard cannot judge, 0..100
     * @param registry     where to count neutral answers ({@code railyard_neutral_answers_total{why}})
     */
    public EnginePlacementDecisions(Supplier<ClusterView> views, IpPoolLedger ledger, PlacementEngine engine,
                                    int neutralScore, MeterRegistry registry) {
        this.views = views;
        this.ledger = ledger;
        this.engine = engine;
        this.neutralScore = neutralScore;
        this.registry = registry;
        this.session = new GangSession(engine);
        io.micrometer.core.instrument.FunctionCounter.builder("railyard_gang_plans_total", session,
                        GangSession::plansMade)
                .description("gang plans made, by a scheduler's call or for a new view before the calls (prepare)")
                .register(registry);
        this.answers = new NodeAnswers(engine);
        this.hints = new BindHints(this::view, engine, session, gangReader, lines, (view, pod) -> {
            PodContext pc = contextOf(view, pod);
            return new BindHints.PodDecision(pc.request(), pc.policy(), pc.planned(), pc.outcome());
        });
        this.reservations = reservations(Reservations.Settings.DEFAULTS, HoldWriter.none());
    }

    /**
     * Holds addresses with these settings, writing Volcano's holds with {@code writer} (the default writes nowhere:
     * for tests and snapshot directories).
     */
    public void reserveWith(Reservations.Settings settings, HoldWriter writer) {
        this.reservations = reservations(settings, writer);
    }

    private Reservations reservations(Reservations.Settings settings, HoldWriter writer) {
        AddressHolds holds = new AddressHolds(ledger, writer, settings.lifetimes(), registry);
        return new Reservations(holds, new BindAdmission(this::view, this::filter, this::bindHints, holds,
                settings.schedulers(), settings.podWait(), registry), settings.allocateBudget());
    }

    /**
     * Over a source of whole object lists (a test, a snapshot that changes): each new list is fed to a
     * {@link ClusterState} as a relist of every kind, so the state is updated incrementally as the informers would.
     *
     * @param objects      the current cluster objects; a new {@link ClusterObjects#version()} means new contents
     * @param ledger       the IP pool ledger; fed by the state
     * @param engine       the placement engine
     * @param fabric       a static fabric, or null to read it from HyperNodes or node labels
     * @param neutralScore score for nodes Railyard cannot judge, 0..100
     * @param registry     where to count neutral answers
     */
    public EnginePlacementDecisions(Supplier<ClusterObjects> objects, IpPoolLedger ledger, PlacementEngine engine,
                                    FabricModel fabric, int neutralScore, MeterRegistry registry) {
        this(relisting(objects, new ClusterState(fabric, ledger, ledger::update, java.time.Clock.systemUTC())),
                ledger, engine, neutralScore, registry);
    }

    private static Supplier<ClusterView> relisting(Supplier<ClusterObjects> objects, ClusterState state) {
        java.util.concurrent.atomic.AtomicReference<ClusterObjects> fed = new java.util.concurrent.atomic
                .AtomicReference<>();
        return () -> {
            ClusterObjects now = objects.get();
            if (!now.synced()) {
                return null;
            }
            synchronized (state) {
                ClusterObjects before = fed.get();
                if (before == null || before.version() != now.version() || before != now) {
                    for (WatchedKind k : WatchedKind.ALL) {
                        state.replaceAll(k, now.of(k));
                    }
                    state.disabled(now.disabled());
                    fed.set(now);
                }
            }
            return state.snapshot();
        };
    }

    /** Writes Events to {@code sink} ({@link DecisionEvents}): one per attempt on pods no node can take, and more. */
    public void recordEventsWith(EventSink sink) {
        recordEventsWith(DecisionEvents.started(sink, key -> DecisionEvents.waiting(views.get(), key)));
    }

    void recordEventsWith(DecisionEvents e) {
        this.events = e;
    }

    private void withEvents(java.util.function.Consumer<DecisionEvents> say) {
        DecisionEvents e = events;
        if (e != null) {
            say.accept(e);
        }
    }

    /**
     * Prepares a new cluster view for the gangs asked about in the last 30 s ({@link RecentGangs}), at most
     * {@value #PREPARED_GANGS}, most recent first: reads each gang from the view and decides for its first pod still
     * to place as a call would ({@link GangSession#decide}), so the gang's plan, kept or made again, is there before
     * the scheduler's next call. The cache's view refresher calls this after making each view (docs/adr/0024,
     * amendment), off the calls' path; a call that comes first decides itself, and both reach the same plan (one per
     * snapshot and member set). A view already prepared is skipped. Nothing is written to the scheduler: no Event,
     * no steering entry. A gang whose PodGroup is gone or whose pods are all placed is forgotten; a gang that cannot
     * be read or planned is skipped with a debug line (its next call says why).
     *
     * @param view the view just made, or null (ignored)
     */
    public void prepare(ClusterView view) {
        if (view == null || view == prepared) {
            return;
        }
        prepared = view;
        for (RecentGangs.Asked a : recentGangs.recent(PREPARED_GANGS)) {
            try {
                PodGroup group = a.in(view);
                if (group == null) {
                    recentGangs.forget(a);
                    continue;
                }
                GangSession.Gang gang = gangReader.gangOf(view, group);
                GangSession.Member first = gang.members().stream()
                        .filter(m -> m.node() == null || m.node().isEmpty()).findFirst().orElse(null);
                if (first == null) {
                    recentGangs.forget(a);
                    continue;
                }
                session.decide(view.snapshot(), first.key(), first.name(), gang);
            } catch (RuntimeException e) {
                LOG.debug("preparing view g{} for gang {}: {}", view.generation(), LogText.escape(a.key()),
                        LogText.escape(e.toString()));
            }
        }
    }

    /** @return the current view, or null while the cache has not synced */
    ClusterView view() {
        ClusterView v = views.get();
        if (v == null) {
            if (!announcedCold) {
                announcedCold = true;
                LOG.warn("cluster cache not synced yet: answering neutrally (all nodes pass, score {})", neutralScore);
            }
            return null;
        }
        ClusterView seen = lastSeen;
        if (seen != v && !v.warnings().isEmpty() && (seen == null || seen.warnings() != v.warnings())) {
            LOG.debug("cluster view g{}: {} objects skipped or partly read: {}", v.generation(), v.warnings().size(),
                    v.warnings());
        }
        lastSeen = v;
        return v;
    }

    private volatile ClusterView lastSeen;
    /** {@link #knownNodeNames()}'s table, made again when the snapshot's node-name list is another instance. */
    private volatile KnownNames knownNames = KnownNames.NONE;

    /**
     * @return the node names of the last view a decision read ({@link #view()}), without asking the state for a new
     *         one: no lock, no events applied, so a request refused while it is read costs the state nothing. The
     *         table is made once per node set (the state shares one name list while no node comes or goes); a table
     *         one node set old only leaves the new nodes' names to be read as new strings
     */
    @Override
    public KnownNames knownNodeNames() {
        ClusterView v = lastSeen;
        if (v == null) {
            return KnownNames.NONE;
        }
        List<String> names = v.snapshot().nodeNames();
        KnownNames k = knownNames;
        if (k.source() != names) {
            k = KnownNames.of(names);
            knownNames = k;
        }
        return k;
    }

    private void countNeutral(String why) {
        registry.counter("railyard_neutral_answers_total", "why", why).increment();
    }

    /** What the engine needs to judge one pod: its request, policy, gang context and the plan's choice. */
    private record PodContext(PodRequest request, PlacementPolicy policy, GangContext context, PlannedPod planned,
                              String gangKey, PlanOutcome outcome) {
    }

    private PodContext contextOf(ClusterView view, ExtenderPod pod) {
        String key = pod.ref().namespace() + "/" + pod.ref().name();
        PodView known = view.pod(key);
        PodRequest request = known != null ? view.request(known) : AdmissionRequests.requestOf(pod);
        GangRef gangRef = pod.gang();
        PodGroup group = gangRef == null ? null : gangRef.convention() == GangRef.Convention.COSCHEDULING
                ? view.coschedulingGroup(gangRef.toString()) : view.podGroup(gangRef.toString());
        if (group == null && gangRef != null) {
            gangReader.announceNoPodGroup(view, gangRef);
        }
        if (shown(known, pod)) {
            // the pod's own annotations as the cluster shows them, not the caller's copy: Events name real pods only
            withEvents(e -> e.asked(pod.ref(), known.annotations(), group));
        }
        if (group == null) {
            PlacementPolicy policy = PlacementPolicy.resolve(null, null, pod.annotations(), view.snapshot().fabric());
            return new PodContext(request, policy, GangContext.none(), null, key, null);
        }
        PlacementPolicy policy = PlacementPolicy.resolve(null, group, pod.annotations(), view.snapshot().fabric());
        recentGangs.asked(group);
        GangSession.Gang gang = gangReader.gangOf(view, group);
        GangSession.Decision d = session.decide(view.snapshot(), key, pod.ref().name(), gang);
        if (d.planned() != null) {
            session.steered(key, new GangSession.Steered(view.snapshot(), d.outcome().plan(), d.planned(), request));
        }
        return new PodContext(request, policy, d.context(), d.planned(), gang.key(), d.outcome());
    }

    private String unjudgeable(ClusterSnapshot snapshot, String node) {
        return unjudgeable(node, snapshot.node(node));
    }

    private static String unjudgeable(String node, NodeState ns) {
        if (ns == null) {
            return "node " + node + " unknown to Railyard";
        }
        if (ns.topology() == null) {
            return "node " + node + " has no NodeTopology";
        }
        if (!ns.topology().locality().determined()) {
            return "node " + node + ": its topology source cannot tell GPU-HCA locality (" + ns.topology().locality()
                    .reason() + ")";
        }
        return null;
    }

    @Override
    public List<NodeVerdict> filter(ExtenderPod pod, List<String> nodeNames) {
        ClusterView view = view();
        List<NodeVerdict> out = new ArrayList<>(nodeNames.size());
        if (view == null) {
            countNeutral("cache-cold");
            nodeNames.forEach(n -> out.add(NodeVerdict.neutral(n, "Railyard's cluster cache has not synced")));
            return out;
        }
        PodContext pc;
        try {
            pc = contextOf(view, pod);
        } catch (InputException e) {
            Reason r = policyInvalid(pod, e);
            nodeNames.forEach(n -> out.add(new NodeVerdict(n, List.of(r))));
            withEvents(ev -> filtered(ev, view, pod, out));
            return out;
        }
        String gangShort = gangPoolRefusal(pc);
        if (gangShort != null) {
            // the gang's pools cannot hold all its remaining pods: every task is refused with the one reason, so
            // Volcano does not allocate the others only to roll them back at the end of each session (issue 19)
            Reason r = new Reason(ReasonCode.POOL_EXHAUSTED, "IP pool exhausted", gangShort);
            nodeNames.forEach(n -> out.add(new NodeVerdict(n, List.of(r))));
            withEvents(e -> filtered(e, view, pod, out));
            return out;
        }
        ClusterSnapshot snapshot = view.snapshot();
        // the pools are checked once per call when they do not depend on the node (no node slices)
        PoolVerdict shared = nodeNames.isEmpty() ? null : NodeAnswers.shared(snapshot, pc.request());
        NodeAnswers.Judge judge = answers.judge(snapshot, pc.request(), pc.policy(), pc.context(), shared);
        for (String node : nodeNames) {
            NodeState ns = snapshot.node(node); // looked up once per name: a kube filter asks for every node
            // a node Railyard does not know is passed neutrally for every pod (a pod without GPUs too: Volcano asks
            // for CPU-only pods as well, and a node the cache has not seen yet must not refuse them); a node without
            // topology only matters to a pod with GPUs
            String why = pc.request().gpus() > 0 || ns == null ? unjudgeable(node, ns) : null;
            if (why != null) {
                // no topology to judge GPUs by, but the address pools do not depend on the node: a dry pool refuses
                // here too, so the reason reaches the scheduler's fit errors instead of a later allocateFunc veto
                if (!pc.request().selections().isEmpty()) {
                    PoolVerdict pools = shared != null ? shared : ledger.checkPod(pc.request().networks(),
                            pc.request().key(), node);
                    if (!pools.admitted()) {
                        out.add(new NodeVerdict(node, List.of(NodeAnswers.poolReason(pools))));
                        continue;
                    }
                }
                countNeutral("no-topology");
                out.add(NodeVerdict.neutral(node, why));
                continue;
            }
            NodeVerdict verdict = judge.filter(node, ns);
            out.add(verdict);
            if (!verdict.feasible() && LOG.isDebugEnabled()) { // describe() builds a string per refused node
                LOG.debug("filter {} on {}: {}", pod, node, verdict.describe());
            }
        }
        withEvents(e -> filtered(e, view, pod, out));
        return out;
    }

    /**
     * @return whether the call is about a pod the cluster shows, with the call's UID: only then do its answers
     *         become Events on the pod (a caller on the main port could otherwise make Events about invented pods
     *         in any namespace, or about a real pod under a forged UID)
     */
    private static boolean shown(PodView known, ExtenderPod pod) {
        return known != null && !pod.ref().uid().isEmpty() && pod.ref().uid().equals(known.uid());
    }

    /** One filter call's answers, as Events on the pod when the cluster shows it with the call's UID. */
    private static void filtered(DecisionEvents e, ClusterView view, ExtenderPod pod, List<NodeVerdict> out) {
        if (shown(view.pod(pod.ref().namespace() + "/" + pod.ref().name()), pod)) {
            e.filtered(pod.ref(), out);
        }
    }

    /**
     * @return one line saying the gang's address pools cannot hold all its remaining pods, when its plan failed on
     *         its pools (a verdict that does not depend on the node); else null
     */
    static String gangPoolRefusal(PodContext pc) {
        PlanOutcome o = pc.outcome();
        if (o == null || o.schedulable() || o.pools() == null || o.pools().admitted()) {
            return null;
        }
        return "gang " + o.gang() + " cannot get addresses for all its remaining pods: " + o.pools().message();
    }

    /**
     * The reason every node gets when the pod's (or its PodGroup's) {@code railyard.dev/} placement annotations
     * cannot be read: one log line a minute per kind, the annotation's own message (which quotes the bad value)
     * escaped, since it is the pod author's text.
     */
    private Reason policyInvalid(ExtenderPod pod, InputException e) {
        String detail = LogText.escape(e.getMessage());
        lines.info("policy invalid", "pod {}/{}: placement annotation unreadable, every node refused: {}",
                LogText.escape(pod.ref().namespace()), LogText.escape(pod.ref().name()), detail);
        return new Reason(ReasonCode.POLICY_INVALID, "placement annotation invalid", detail);
    }

    @Override
    public List<NodeScore> score(ExtenderPod pod, List<String> nodeNames) {
        ClusterView view = view();
        List<NodeScore> out = new ArrayList<>(nodeNames.size());
        if (view == null) {
            countNeutral("cache-cold");
            nodeNames.forEach(n -> out.add(NodeScore.neutral(n, neutralScore)));
            return out;
        }
        PodContext pc;
        try {
            pc = contextOf(view, pod);
        } catch (InputException e) {
            // the filter refused every node with the reason; a score cannot make it better or worse
            policyInvalid(pod, e);
            nodeNames.forEach(n -> out.add(NodeScore.neutral(n, neutralScore)));
            return out;
        }
        ClusterSnapshot snapshot = view.snapshot();
        String plannedNode = pc.planned() == null ? null : pc.planned().node();
        PoolVerdict shared = nodeNames.isEmpty() ? null : NodeAnswers.shared(snapshot, pc.request());
        NodeAnswers.Judge judge = answers.judge(snapshot, pc.request(), pc.policy(), pc.context(), shared);
        for (String node : nodeNames) {
            if (unjudgeable(snapshot, node) != null) {
                countNeutral("no-topology");
                out.add(NodeScore.neutral(node, neutralScore));
                continue;
            }
            NodeScore s = judge.score(node);
            out.add(s.withScore(GangSession.steer(plannedNode, node, s.score())));
        }
        return out;
    }

    @Override
    public GangVerdict enqueueable(GangJob job) {
        ClusterView view = view();
        if (view == null) {
            countNeutral("cache-cold");
            return GangVerdict.abstain("Railyard's cluster cache has not synced");
        }
        PodGroup group = view.podGroup(job.namespace() + "/" + job.podGroupName());
        List<PodRequest> requests = AdmissionRequests.of(view, group, job, reservations.admission().schedulers());
        if (requests.isEmpty()) {
            // a Volcano Job's controller creates its pods only once the PodGroup is Inqueue: a no would wedge it
            return GangVerdict.abstain("the job carries no tasks and the cluster shows no pending member yet");
        }
        // the pod-level hints of the first task, else of the first pending member (as GangReader resolves a gang's)
        Map<String, String> podHints = !job.tasks().isEmpty() ? job.tasks().get(0).annotations() : group == null
                ? Map.of() : view.members(group).stream().filter(m -> m.node() == null).findFirst()
                .map(PodView::annotations).orElse(Map.of());
        PlacementPolicy policy;
        try {
            policy = PlacementPolicy.resolve(null, group, podHints, view.snapshot().fabric());
        } catch (InputException e) {
            // the job waits, saying which annotation to fix (it cannot be planned under the policy it asks for)
            String why = LogText.escape(e.getMessage());
            lines.info("policy invalid", "gang {}/{} not enqueueable: {}", LogText.escape(job.namespace()),
                    LogText.escape(job.podGroupName()), why);
            return GangVerdict.reject(why);
        }
        // asked for every pending job in every session: a gang the free GPUs cannot hold is refused without a search
        PlanOutcome outcome = engine.planUnlessShort(view.snapshot(),
                new GangRequest(job.namespace(), job.podGroupName(), requests, policy));
        if (outcome.schedulable()) {
            return GangVerdict.permit();
        }
        lines.info("not enqueueable", "gang {}/{} not enqueueable: {}", job.namespace(), job.podGroupName(),
                outcome.summary());
        List<ExtenderPod> pending = AdmissionRequests.pendingMembers(view, group, job.tasks());
        withEvents(e -> e.gangRefused(job, pending, outcome.summary()));
        return GangVerdict.reject(outcome.summary());
    }

    @Override
    public GangReadiness jobReady(GangJob job) {
        return GangReadiness.readyToCommit();
    }

    @Override
    public AllocationVerdict allocated(ExtenderPod pod, String nodeName) {
        String podKey = pod.ref().namespace() + "/" + pod.ref().name();
        GangRef gang = pod.gang();
        String gangKey = gang == null ? podKey : gang.namespace() + "/" + gang.podGroupName();
        AllocationVerdict v = reservations.admission().admitAllocate(pod.ref(), nodeName,
                reservations.allocateBudget());
        if (!v.accepted()) {
            return v;
        }
        session.allocated(gangKey, podKey, nodeName);
        withEvents(e -> e.placed(podKey));
        return AllocationVerdict.accept();
    }

    @Override
    public void deallocated(ExtenderPod pod, String nodeName) {
        String podKey = pod.ref().namespace() + "/" + pod.ref().name();
        GangRef gang = pod.gang();
        String gangKey = gang == null ? podKey : gang.namespace() + "/" + gang.podGroupName();
        session.deallocated(gangKey, podKey, nodeName);
        reservations.holds().deallocate(pod.ref().namespace(), pod.ref().name(), pod.ref().uid(), nodeName);
        withEvents(e -> e.unplaced(podKey));
    }

    @Override
    public List<NodeVerdict> filterAndHold(ExtenderPod pod, List<String> nodeNames) {
        List<NodeVerdict> verdicts = filter(pod, nodeNames);
        ClusterView view = view();
        if (view == null || verdicts.stream().noneMatch(NodeVerdict::feasible)) {
            return verdicts;
        }
        PodView known = view.pod(pod.ref().namespace() + "/" + pod.ref().name());
        PodNetworksRequest networks = PodNetworksRequest.of(pod.ref().namespace(),
                known != null ? known.annotations() : pod.annotations());
        String uid = !pod.ref().uid().isEmpty() || known == null ? pod.ref().uid() : known.uid();
        PoolVerdict refusal = reservations.holds().assume(pod.ref().namespace(), pod.ref().name(), uid, networks);
        if (refusal == null) {
            return verdicts;
        }
        // another pod's filter took the last address between this pod's check and its hold
        Reason r = NodeAnswers.poolReason(refusal);
        return verdicts.stream().map(v -> v.feasible() ? new NodeVerdict(v.node(), List.of(r)) : v).toList();
    }

    @Override
    public BindDecision admitBind(PodRef pod, String nodeName) {
        return reservations.admission().admitBind(pod, nodeName);
    }

    @Override
    public void bindFinished(PodRef pod, String nodeName, BindDecision decision, BindOutcome outcome) {
        if (outcome == BindOutcome.FAILED) {
            reservations.holds().bindFailed(pod.namespace(), pod.name(), decision.holdSince());
        }
    }

    @Override
    public Map<String, String> bindHints(PodRef ref, String nodeName) {
        return hints.of(ref, nodeName);
    }
}
