package dev.railyard.scheduler.explain;

import dev.railyard.api.volcano.PodGroup;
import dev.railyard.scheduler.cluster.ClusterObjects;
import dev.railyard.scheduler.cluster.ClusterView;
import dev.railyard.scheduler.cluster.Converted;
import dev.railyard.scheduler.cluster.IpamSnapshotConverter;
import dev.railyard.scheduler.cluster.PodView;
import dev.railyard.scheduler.cluster.WatchedKind;
import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.GangContext;
import dev.railyard.scheduler.engine.GangPlan;
import dev.railyard.scheduler.engine.GangRequest;
import dev.railyard.scheduler.engine.NodeState;
import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.scheduler.engine.PlanOutcome;
import dev.railyard.scheduler.engine.PlannedPod;
import dev.railyard.scheduler.engine.PodRequest;
import dev.railyard.scheduler.engine.Reason;
import dev.railyard.scheduler.engine.Verdicts;
import dev.railyard.scheduler.ipam.AddressHold;
import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.ipam.IpamSnapshot;
import dev.railyard.scheduler.ipam.NetworkVerdict;
import dev.railyard.scheduler.ipam.PodNetworksRequest;
import dev.railyard.scheduler.ipam.PodPlacement;
import dev.railyard.scheduler.ipam.PoolAudit;
import dev.railyard.scheduler.ipam.PoolReason;
import dev.railyard.scheduler.ipam.PoolStatus;
import dev.railyard.scheduler.ipam.PoolVerdict;
import dev.railyard.topology.InputException;
import dev.railyard.topology.fabric.FabricModel;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The logic of {@code railyard explain} and {@code railyard pools}, over one {@link ClusterObjects} (a snapshot
 * directory, a one-shot listing, or the running service's cache): builds the engine's view with
 * {@link ClusterView}, a fresh {@link IpPoolLedger} over the same objects, and asks the {@link PlacementEngine}. Never
 * changes anything in the cluster; what-if placements are taken in a private copy.
 *
 * <ul>
 *   <li>{@code job NS/NAME}: the Volcano PodGroup of that name, or the PodGroup of the Volcano Job of that name
 *       (found by owner reference, or by the pods' {@code volcano.sh/job-name}), or else the scheduler-plugins
 *       coscheduling PodGroup ({@code scheduling.x-k8s.io}) of that name with the pods its label names. Pods
 *       already bound are reported where they are; the others are planned as one gang. A Volcano PodGroup with no
 *       pods yet (Volcano creates them only once the PodGroup is enqueued) is explained from the Volcano Job's task
 *       templates when the Job is known; a coscheduling one without pods is bad input.</li>
 *   <li>{@code pod NS/NAME}: where a bound pod is, or for a pending one its gang's plan and this pod's own Filter
 *       verdict on every node.</li>
 *   <li>what-if: the jobs placed one after the other, each seeing the GPUs, RDMA slots and addresses of the earlier
 *       ones taken (as {@code railyard demo} does).</li>
 *   <li>{@code pools}: every NetworkAttachmentDefinition's pools (and IPPools no network uses) with usable,
 *       allocated, reserved, in-flight, stale and free counts and the stale holders.</li>
 * </ul>
 * On the running service the live ledger's holds are copied in ({@link IpPoolLedger#copy}), so {@code pools} shows
 * who holds what, since and until when; a what-if's own holds stay in the copy. Thread-safe (no mutable state); each
 * call builds its own view.
 */
public final class Explainer {
    private static final Pattern STALE = Pattern.compile("^(.*) \\((\\S+)(?: (\\S+))?\\)$");

    private final PlacementEngine engine;

    public Explainer(PlacementEngine engine) {
        this.engine = engine == null ? new PlacementEngine() : engine;
    }

    public Explainer() {
        this(new PlacementEngine());
    }

    /**
     * Where the objects came from and what else is known.
     *
     * @param kind      {@code snapshot} or {@code cluster}
     * @param location  the directory or the API server URL
     * @param fabric    the fabric to use, or null to take it from HyperNodes or node labels
     * @param warnings  problems met while reading the objects (files, kinds), carried into the answer
     * @param notices   things left out on purpose, carried into the answer
     * @param jobLookup Volcano Job by {@code namespace/name}, for PodGroups whose pods do not exist yet; may answer
     *                  null
     */
    public record Context(String kind, String location, FabricModel fabric, List<String> warnings,
                          List<String> notices, Function<String, VolcanoJobTemplate.Job> jobLookup) {
        public Context {
            warnings = warnings == null ? List.of() : List.copyOf(warnings);
            notices = notices == null ? List.of() : List.copyOf(notices);
            jobLookup = jobLookup == null ? k -> null : jobLookup;
        }

        /** @return the context of the running service: its cache, no fabric override, no Job lookup */
        public static Context service() {
            return new Context("cluster", "the service's cache", null, List.of(), List.of(), null);
        }
    }

    /**
     * For the running service ({@code /explain}): the same answer as the CLI, over the cache's objects.
     *
     * @throws InputException when the job or pod does not exist, or a hint annotation is malformed
     */
    public Explanation explain(ClusterObjects objects, ExplainRequest request) {
        return explain(objects, request, Context.service());
    }

    /**
     * @param objects the cluster objects
     * @param request what to explain
     * @param context where the objects came from
     * @return the explanation
     * @throws InputException naming what is missing when the job or pod does not exist, or naming the annotation
     *                        when a hint is malformed
     */
    public Explanation explain(ClusterObjects objects, ExplainRequest request, Context context) {
        return explain(prepare(objects, context), objects, request, context);
    }

    /**
     * For the running service: over the cluster state's current view and a copy of the live ledger (the view's pools,
     * holds included), so a what-if's holds stay here; a fresh ledger over {@code ipam} when the view's pools are not
     * a ledger.
     *
     * @param view  the state's view
     * @param ipam  the live ledger's snapshot
     * @throws InputException as {@link #explain(ClusterObjects, ExplainRequest, Context)}
     */
    public Explanation explain(ClusterView view, IpamSnapshot ipam, ExplainRequest request, Context context) {
        List<String> warnings = new ArrayList<>(context.warnings());
        IpPoolLedger ledger;
        if (view.snapshot().pools() instanceof IpPoolLedger live) {
            ledger = live.copy(Duration.ofHours(1));
        } else {
            ledger = new IpPoolLedger(Clock.systemUTC(), Duration.ofHours(1), null);
            ledger.update(ipam);
        }
        warnings.addAll(view.warnings());
        return explain(new Prepared(view.withPools(ledger), ledger, warnings), view.objects(), request, context);
    }

    private Explanation explain(Prepared p, ClusterObjects objects, ExplainRequest request, Context context) {
        List<Explanation.Gang> gangs = new ArrayList<>();
        List<Explanation.PoolLine> pools;
        switch (request.command()) {
            case ExplainRequest.JOB -> gangs.add(job(p, request.namespace(), request.name(), context));
            case ExplainRequest.POD -> gangs.add(pod(p, request.namespace(), request.name()));
            case ExplainRequest.WHAT_IF -> gangs.addAll(whatIf(p, request.jobs(), null));
            default -> {
            }
        }
        if (request.command().equals(ExplainRequest.POOLS)) {
            pools = allPools(p);
        } else {
            // the last state of each pool (a what-if's later jobs see the earlier ones' holds)
            Map<String, Explanation.PoolLine> seen = new LinkedHashMap<>();
            for (Explanation.Gang g : gangs) {
                for (Explanation.PoolLine l : g.pools()) {
                    seen.put(l.network() + " " + l.pool() + " " + l.node(), l);
                }
            }
            pools = new ArrayList<>(seen.values());
        }
        List<String> notices = new ArrayList<>(context.notices());
        for (WatchedKind k : objects.disabled()) {
            notices.add(k + " not available: " + k.feature() + " is off");
        }
        return new Explanation(Explanation.SCHEMA_VERSION, request.command(),
                new Explanation.Source(context.kind(), context.location(), objects.takenAt().toString(),
                        p.view.snapshot().fabric().isEmpty() ? "no fabric data"
                                : p.view.snapshot().fabric().origin()),
                gangs, pools, p.warnings, notices);
    }

    // ---- preparation -------------------------------------------------------------------------------------------

    private static final class Prepared {
        final ClusterView view;
        final IpPoolLedger ledger;
        final List<String> warnings;

        Prepared(ClusterView view, IpPoolLedger ledger, List<String> warnings) {
            this.view = view;
            this.ledger = ledger;
            this.warnings = warnings;
        }
    }

    private static Prepared prepare(ClusterObjects objects, Context context) {
        List<String> warnings = new ArrayList<>(context.warnings());
        Converted<IpamSnapshot> ipam = IpamSnapshotConverter.convert(objects);
        warnings.addAll(ipam.warnings());
        IpPoolLedger ledger = new IpPoolLedger(Clock.systemUTC(), Duration.ofHours(1), null);
        ledger.update(ipam.value());
        ClusterView view = ClusterView.of(objects, ledger, context.fabric());
        warnings.addAll(view.warnings());
        return new Prepared(view, ledger, warnings);
    }

    // ---- job ---------------------------------------------------------------------------------------------------

    private Explanation.Gang job(Prepared p, String ns, String name, Context context) {
        ClusterView view = p.view;
        PodGroup pg = view.podGroup(ns + "/" + name);
        if (pg == null) {
            pg = PodGroupLookup.ofVolcanoJob(view, ns, name);
        }
        if (pg == null) {
            pg = view.coschedulingGroup(ns + "/" + name);
        }
        List<PodView> members = pg == null ? List.of() : view.members(pg);
        if (members.isEmpty() && pg != null && pg.convention() == PodGroup.Convention.COSCHEDULING) {
            throw new InputException("coscheduling PodGroup " + pg.namespace() + "/" + pg.name() + " has no pods "
                    + "(no pod in " + pg.namespace() + " carries the label " + PodView.COSCHEDULING_LABEL + "="
                    + pg.name() + ")");
        }
        if (members.isEmpty()) {
            VolcanoJobTemplate.Job job = context.jobLookup().apply(ns + "/" + name);
            if (job == null && pg != null) {
                String owner = PodGroupLookup.volcanoJobOwner(view, pg);
                if (owner != null) {
                    job = context.jobLookup().apply(ns + "/" + owner);
                }
            }
            if (job != null) {
                if (pg != null) {
                    job = new VolcanoJobTemplate.Job(job.namespace(), job.name(), job.annotations(), pg, job.pods(),
                            job.where());
                }
                return whatIf(p, List.of(job), pg == null ? null
                        : "PodGroup " + pg.namespace() + "/" + pg.name() + " has no pods yet (Volcano creates them "
                        + "once it is enqueued): pods derived from the Volcano Job's task templates").get(0);
            }
            if (pg != null) {
                throw new InputException("PodGroup " + pg.namespace() + "/" + pg.name() + " has no pods yet and its "
                        + "Volcano Job is not available; explain the Job file instead (railyard explain job "
                        + "JOB.yaml), or add the Job to the snapshot (kubectl get vcjob -n " + ns + " -o yaml)");
            }
            throw new InputException("no PodGroup or Volcano Job " + ns + "/" + name + " in " + context.location()
                    + PodGroupLookup.namesIn(view, ns));
        }
        return fromPods(p, pg.namespace() + "/" + pg.name(), "PodGroup", pg, members, null);
    }

    /**
     * A gang of existing pods: bound ones where they are, the others planned.
     *
     * @param focus the pod of {@code explain pod}, whose own Filter verdicts replace the gang's, or null
     */
    private Explanation.Gang fromPods(Prepared p, String gangName, String kind, PodGroup pg, List<PodView> members,
                                      PodView focus) {
        ClusterView view = p.view;
        ClusterSnapshot snapshot = view.snapshot();
        List<PodView> bound = members.stream().filter(m -> m.node() != null).toList();
        List<PodView> pending = members.stream().filter(m -> m.node() == null && !m.finished()).toList();
        List<Explanation.Placement> boundPlacements = new ArrayList<>();
        for (PodView b : bound) {
            boundPlacements.add(PodPlacements.bound(view, b));
        }
        String pgKey = pg == null ? null : pg.namespace() + "/" + pg.name();
        Integer min = pg == null ? null : pg.minMember();
        List<String> notices = new ArrayList<>();
        if (pending.isEmpty()) {
            PodView first = members.get(0);
            List<Explanation.PoolLine> pools = networkPools(p.ledger.check(PodNetworksRequest.of(first.namespace(),
                    first.annotations()), 0, null), p.ledger.holds());
            return new Explanation.Gang(gangName, kind, pgKey, min, Explanation.Gang.PLACED,
                    "all " + members.size() + " pod" + (members.size() == 1 ? " is" : "s are") + " bound", null,
                    List.of(), null, null, boundPlacements, List.of(), List.of(), List.of(), pools, notices);
        }
        // the bound members as the live service keeps them: their rail set, fabric domain and ranks (docs/adr/0005)
        GangRequest gang = view.gang(gangName.substring(gangName.indexOf('/') + 1), pg, pending, null)
                .withBound(view.boundMembers(gangName, members, null));
        if (!bound.isEmpty()) {
            notices.add(bound.size() + " of " + members.size() + " pods are already bound and stay where they are; "
                    + "the plan places the other " + pending.size());
        }
        PlanOutcome outcome = engine.plan(snapshot, gang);
        List<NodeVerdict> verdicts = outcome.verdicts();
        String summary = outcome.summary();
        if (focus != null) {
            PodRequest req = view.request(focus);
            GangContext ctx = new GangContext(bound.stream().map(PodView::node).toList(), null);
            List<NodeVerdict> own = new ArrayList<>();
            for (NodeState n : snapshot.nodes()) {
                own.add(engine.filter(snapshot, req, gang.policy(), n.name(), ctx));
            }
            verdicts = own;
            String nodes = Verdicts.summarize(own);
            String head = String.join("; ", outcome.reasons().stream().map(Reason::toString).toList());
            summary = head.isEmpty() ? nodes : head + "; " + nodes;
        }
        Explanation.Gang g = gangExplanation(p, snapshot, gangName, kind, pgKey, min, gang, outcome, verdicts, summary,
                notices, Map.of());
        List<Explanation.Placement> all = new ArrayList<>(g.placements());
        all.addAll(boundPlacements);
        return new Explanation.Gang(g.gang(), g.kind(), g.podGroup(), g.minMember(), g.status(), g.summary(),
                g.policy(), g.policySources(), g.domain(), g.cost(), all, g.reasons(), g.reasonGroups(), g.nodes(),
                g.pools(), g.notices());
    }

    // ---- pod ---------------------------------------------------------------------------------------------------

    private Explanation.Gang pod(Prepared p, String ns, String name) {
        ClusterView view = p.view;
        PodView pod = view.pod(ns + "/" + name);
        if (pod == null) {
            throw new InputException("no pod " + ns + "/" + name + " in the cluster objects");
        }
        PodGroup pg = view.podGroupOf(pod);
        String pgKey = pg == null ? null : pg.namespace() + "/" + pg.name();
        if (pod.node() != null || pod.finished()) {
            List<Explanation.PoolLine> pools = networkPools(p.ledger.check(PodNetworksRequest.of(pod.namespace(),
                    pod.annotations()), 0, null), p.ledger.holds());
            List<Explanation.Placement> placements = pod.node() == null ? List.of()
                    : List.of(PodPlacements.bound(view, pod));
            String summary = pod.node() == null ? "the pod has finished (" + pod.phase() + ")"
                    : "bound to " + pod.node();
            return new Explanation.Gang(pod.key(), "Pod", pgKey, pg == null ? null : pg.minMember(),
                    Explanation.Gang.PLACED, summary, null, List.of(), null, null, placements, List.of(), List.of(),
                    List.of(), pools, List.of());
        }
        List<PodView> members = pg == null ? List.of(pod) : view.members(pg);
        return fromPods(p, pg == null ? pod.key() : pgKey, pg == null ? "Pod" : "PodGroup", pg, members, pod);
    }

    // ---- what-if -----------------------------------------------------------------------------------------------

    private List<Explanation.Gang> whatIf(Prepared p, List<VolcanoJobTemplate.Job> jobs, String notice) {
        ClusterView view = p.view;
        ClusterSnapshot snapshot = view.snapshot();
        List<Explanation.Gang> out = new ArrayList<>();
        Map<String, String> held = new TreeMap<>();
        for (VolcanoJobTemplate.Job job : jobs) {
            List<PodView> pods = new ArrayList<>();
            for (GenericKubernetesResource r : job.pods()) {
                pods.add(PodView.of(r));
            }
            GangRequest gang = view.gang(job.name(), job.podGroup(), pods, job.annotations());
            ClusterSnapshot current = snapshot;
            PlanOutcome outcome = engine.plan(current, gang);
            List<String> notices = new ArrayList<>();
            if (notice != null) {
                notices.add(notice);
            }
            if (out.size() > 0) {
                notices.add("placed after the " + out.size() + " job" + (out.size() == 1 ? "" : "s")
                        + " before it in the file, whose planned GPUs, RDMA slots and addresses are taken");
            }
            Explanation.Gang g = gangExplanation(p, current, job.key(), "VolcanoJob",
                    job.podGroup().namespace() + "/" + job.podGroup().name(), job.podGroup().minMember(), gang,
                    outcome, outcome.verdicts(), outcome.summary(), notices, Map.copyOf(held));
            out.add(g);
            if (outcome.schedulable()) {
                snapshot = take(current, gang, outcome.plan(), p.ledger);
                Map<String, List<Integer>> gpus = new TreeMap<>();
                for (PlannedPod pp : outcome.plan().pods()) {
                    gpus.computeIfAbsent(pp.node(), k -> new ArrayList<>()).addAll(pp.gpuIndices());
                }
                gpus.forEach((node, g2) -> held.merge(node, "what-if: " + job.key() + " GPUs " + g2,
                        (a, b) -> a + ", " + b));
            }
        }
        return out;
    }

    /** @return the snapshot with the plan's GPUs and RDMA slots taken; the plan's addresses held in the ledger */
    private static ClusterSnapshot take(ClusterSnapshot snapshot, GangRequest gang, GangPlan plan,
                                        IpPoolLedger ledger) {
        Map<String, Set<Integer>> gpus = new TreeMap<>();
        Map<String, Map<String, Long>> slots = new TreeMap<>();
        List<PodPlacement> placements = new ArrayList<>();
        for (PlannedPod pp : plan.pods()) {
            PodRequest req = gang.pods().get(pp.index());
            gpus.computeIfAbsent(pp.node(), k -> new TreeSet<>()).addAll(pp.gpuIndices());
            req.rdmaResources().forEach((r, v) -> slots.computeIfAbsent(pp.node(), k -> new TreeMap<>())
                    .merge(r, v, Long::sum));
            if (!req.selections().isEmpty()) {
                placements.add(new PodPlacement(pp.pod(), req.networks(), pp.node()));
            }
        }
        if (!placements.isEmpty()) {
            ledger.reserve(placements);
        }
        List<NodeState> changed = new ArrayList<>();
        for (var e : gpus.entrySet()) {
            changed.add(snapshot.node(e.getKey()).withAllocated(e.getValue(), slots.getOrDefault(e.getKey(),
                    Map.of())));
        }
        return snapshot.withNodes(changed);
    }

    // ---- rendering an outcome ----------------------------------------------------------------------------------

    /** @param snapshot the snapshot the outcome was planned on (a what-if's later jobs see the earlier ones) */
    private Explanation.Gang gangExplanation(Prepared p, ClusterSnapshot snapshot, String gangName, String kind,
                                             String pgKey, Integer min, GangRequest gang, PlanOutcome outcome,
                                             List<NodeVerdict> verdicts, String summary, List<String> extraNotices,
                                             Map<String, String> whatIfHeld) {
        ClusterView view = p.view;
        List<Explanation.Placement> placements = new ArrayList<>();
        Explanation.Domain domain = null;
        Explanation.Cost cost = null;
        LinkedHashSet<String> notices = new LinkedHashSet<>(extraNotices);
        notices.addAll(outcome.notices());
        if (outcome.schedulable()) {
            GangPlan plan = outcome.plan();
            for (PlannedPod pp : plan.pods()) {
                placements.add(PodPlacements.planned(pp, gang.pods().get(pp.index()).gpus()));
            }
            domain = new Explanation.Domain(plan.tier(), snapshot.fabric().tierName(plan.tier()), plan.domain());
            cost = new Explanation.Cost(plan.cost().relaxedNames(), plan.cost().tier(), plan.cost().hops(),
                    plan.cost().local(), plan.cost().slack());
            notices.addAll(plan.notices());
        }
        List<Explanation.ReasonEntry> reasons = outcome.reasons().stream().map(Explainer::reason).toList();
        List<Explanation.NodeEntry> nodes = new ArrayList<>();
        for (NodeVerdict v : verdicts) {
            NodeState ns = snapshot.node(v.node());
            String accounting = view.gpuAccounting().get(v.node());
            String held = whatIfHeld.get(v.node());
            if (held != null) {
                accounting = accounting == null ? held : accounting + "; " + held;
            }
            nodes.add(new Explanation.NodeEntry(v.node(), v.feasible(), ns == null ? 0 : ns.freeGpuCount(),
                    accounting, v.reasons().stream().map(Explainer::reason).toList()));
        }
        List<Explanation.PoolLine> pools = outcome.pools() == null ? List.of() : networkPools(outcome.pools(),
                view.snapshot().pools() == null ? List.of() : view.snapshot().pools().holds());
        return new Explanation.Gang(gangName, kind, pgKey, min, outcome.schedulable() ? Explanation.Gang.SCHEDULABLE
                : Explanation.Gang.UNSCHEDULABLE, summary, gang.policy().describe(), gang.policy().sources(), domain,
                cost, placements, reasons, ReasonGroups.of(verdicts), nodes, pools, new ArrayList<>(notices));
    }

    private static Explanation.ReasonEntry reason(Reason r) {
        return new Explanation.ReasonEntry(r.code().name(), r.summary(), r.detail());
    }

    // ---- pools -------------------------------------------------------------------------------------------------

    private static List<Explanation.PoolLine> allPools(Prepared p) {
        ClusterView view = p.view;
        List<Explanation.PoolLine> out = new ArrayList<>();
        Set<String> nadKeys = new TreeSet<>();
        for (GenericKubernetesResource r : view.objects().of(WatchedKind.NETWORK_ATTACHMENT_DEFINITION)) {
            if (r.getMetadata() != null && r.getMetadata().getName() != null) {
                String ns = r.getMetadata().getNamespace() == null ? "default" : r.getMetadata().getNamespace();
                nadKeys.add(ns + "/" + r.getMetadata().getName());
            }
        }
        for (GenericKubernetesResource r : view.objects().of(WatchedKind.MACVLAN_NETWORK)) {
            if (r.getMetadata() == null || r.getMetadata().getName() == null) {
                continue;
            }
            Object nsRaw = r.getAdditionalProperties() instanceof Map<?, ?> m && m.get("spec") instanceof Map<?, ?> s
                    ? s.get("networkNamespace") : null;
            String ns = nsRaw instanceof String t && !t.isEmpty() ? t : "default";
            nadKeys.add(ns + "/" + r.getMetadata().getName());
        }
        Set<String> covered = new HashSet<>();
        List<AddressHold> holds = p.ledger.holds();
        for (String key : nadKeys) {
            String ns = key.substring(0, key.indexOf('/'));
            PoolVerdict v = p.ledger.check(PodNetworksRequest.ofAnnotation(ns, key), 0, null);
            for (Explanation.PoolLine l : networkPools(v, holds)) {
                out.add(l);
                if (l.pool() != null) {
                    covered.add(l.poolNamespace() + "/" + l.pool());
                }
            }
        }
        for (PoolAudit a : p.ledger.audit()) {
            if (covered.contains(a.namespace() + "/" + a.name())) {
                continue;
            }
            String message = "IPPool " + a.namespace() + "/" + a.name() + " (range " + a.range() + "): "
                    + a.allocations() + " allocated" + (a.staleAllocations().isEmpty() ? ""
                    : ", " + a.staleAllocations().size() + " stale") + "; no network uses it"
                    + (a.error() == null ? "" : "; " + a.error());
            out.add(new Explanation.PoolLine(null, null, a.error() == null ? "unused" : "pool_invalid", message,
                    a.name(), a.namespace(), null, a.range(), null, (long) a.allocations(), null, null,
                    (long) a.staleAllocations().size(), null, null, staleHolders(a.staleAllocations()),
                    a.inconsistencies(), List.of(), holdLines(holds, a.name())));
        }
        return out;
    }

    /**
     * @param holds the ledger's holds ({@link IpPoolLedger#holds()}), listed under the pools they draw from
     * @return one line per pool of each network of the verdict; a network without pools gets one line alone
     */
    static List<Explanation.PoolLine> networkPools(PoolVerdict verdict, List<AddressHold> holds) {
        List<Explanation.PoolLine> out = new ArrayList<>();
        for (NetworkVerdict nv : verdict.networks()) {
            String status = nv.reason() == PoolReason.OK ? "ok" : nv.reason().name().toLowerCase(Locale.ROOT);
            if (nv.pools().isEmpty()) {
                out.add(new Explanation.PoolLine(nv.network(), nv.master(), status, nv.message(), null, null, null,
                        null, null, null, null, null, null, null, null, List.of(), List.of(), nv.notes(), List.of()));
                continue;
            }
            for (PoolStatus s : nv.pools()) {
                String lineStatus = nv.reason() == PoolReason.POOL_EXHAUSTED && s.enough() ? "ok" : status;
                out.add(new Explanation.PoolLine(nv.network(), nv.master(), lineStatus, s.describe(), s.poolName(),
                        s.poolNamespace(), s.node(), s.range(), s.usable(), s.allocated(), s.reservedElsewhere(),
                        s.inFlight(), (long) s.staleAllocations().size(), s.free(), s.needed(),
                        staleHolders(s.staleAllocations()), s.inconsistencies(), nv.notes(),
                        holdLines(holds, s.poolName())));
            }
        }
        return out;
    }

    /** @return the holders of addresses of the pool, in pod order, each with how many of its addresses */
    static List<Explanation.HoldLine> holdLines(List<AddressHold> holds, String pool) {
        List<Explanation.HoldLine> out = new ArrayList<>();
        for (AddressHold h : holds) {
            int n = (int) h.pools().stream().filter(pool::equals).count();
            if (n > 0) {
                out.add(new Explanation.HoldLine(h.podRef(), h.uid().isEmpty() ? null : h.uid(), h.node(),
                        h.origin().words(), h.since() == null ? null : h.since().toString(),
                        h.until() == null ? null : h.until().toString(), h.persisted(), n));
            }
        }
        return out;
    }

    static List<Explanation.StaleHolder> staleHolders(List<String> described) {
        List<Explanation.StaleHolder> out = new ArrayList<>();
        for (String d : described) {
            Matcher m = STALE.matcher(d);
            if (m.matches()) {
                out.add(new Explanation.StaleHolder(m.group(1), m.group(2), m.group(3)));
            } else {
                out.add(new Explanation.StaleHolder(d, null, null));
            }
        }
        return out;
    }
}
