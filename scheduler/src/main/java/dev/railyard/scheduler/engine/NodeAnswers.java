package dev.railyard.scheduler.engine;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.railyard.scheduler.ipam.PodNetworksRequest;
import dev.railyard.scheduler.ipam.PoolReason;
import dev.railyard.scheduler.ipam.PoolVerdict;
import dev.railyard.topology.fabric.FabricModel;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * {@link PlacementEngine#filter} and {@link PlacementEngine#score} answers per node, computed once and reused until
 * the node's record or the question changes (docs/adr/0008). The question is the pod's shape (GPU count, RDMA
 * resources, networks, host network, node affinity), its policy and gang context, and the snapshot's networks and
 * fabric; an answer stays valid while the snapshot holds the same {@link NodeState} instance for the node (the
 * cluster state makes a new one only when the node, its NodeTopology or its pods change).
 *
 * <p>For Filter the gang context counts only where the engine reads it ({@link #filterContext}): the rail vector
 * when alignment is required, the members' nodes when a fabric scope is required.
 *
 * <p>The address pools change with every hold, so they are left out of the cached part and checked per call, once
 * per call when the pod's networks draw from the same pools on every node
 * ({@link dev.railyard.scheduler.ipam.AddressPools#sameOnEveryNode}):
 * a pool refusal is appended to the cached reasons, and the score's {@code ipHeadroom} term is recomputed and the
 * weighted mean taken again, both exactly as {@link PlacementEngine} does them. The score's {@code proximity} term is
 * recomputed the same way from the gang's placed members, which differ per task ({@link #scoreContext}).
 *
 * <p>Thread-safe. At most {@value #QUESTIONS} questions are kept (least recently used first out), each with an
 * answer per node asked about.
 */
public final class NodeAnswers {
    /** Questions kept at most. */
    static final int QUESTIONS = 128;
    /** Distinct refusals shared at most. */
    static final int STATUSES = 4096;

    private final PlacementEngine engine;
    private final Cache<Question, ConcurrentMap<String, Answer>> filters = cache();
    private final Cache<Question, ConcurrentMap<String, Answer>> scores = cache();
    /**
     * One instance per distinct refusal among the cached filter answers: thousands of full nodes refuse a pod with
     * the same reasons, and sharing one {@link Status} keeps one copy of them, and of the reply's encoding of them
     * ({@link Status#encodedMessage}), instead of one per node.
     */
    private final Cache<Status, Status> statuses = Caffeine.newBuilder().maximumSize(STATUSES).build();
    private volatile Unpooled unpooled;
    private volatile LastAsked lastFilter;
    private volatile LastAsked lastScore;

    /**
     * The key of a cached answer. {@code hash} comes first and is compared first, so questions that differ are told
     * apart without comparing the networks map; it is computed once per question from the snapshot's memoised
     * networks hash ({@link ClusterSnapshot#networksHash}) and the pod's parts.
     */
    private record Question(int hash, Map<String, SecondaryNetwork> networks, FabricIdentity fabric, int gpus,
                            Map<String, Long> rdma, PodNetworksRequest podNetworks, boolean hostNetwork,
                            RequiredNodeAffinity affinity, PlacementPolicy policy, GangContext context) {
        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** A fabric compared by identity (models are immutable and rebuilt only when their inputs change). */
    private record FabricIdentity(FabricModel fabric) {
        @Override
        public boolean equals(Object o) {
            return o instanceof FabricIdentity f && f.fabric == fabric;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(fabric);
        }
    }

    private record Answer(NodeState node, Object value) {
    }

    /**
     * The last question looked up in one of the caches, its answers, and when the cache last saw it asked. While it
     * is asked again the cache is told at most once a second ({@link #TOUCH_NANOS}), so the question keeps its place
     * there. Each answer is checked against the node's record before use, so answers kept here are never stale; at
     * most one question's answers per cache outlive the cache's expiry while nothing is asked.
     */
    private record LastAsked(Question question, ConcurrentMap<String, Answer> answers, long touchedNanos) {
    }

    /** How often a question asked again and again is looked up in its cache anyway. */
    private static final long TOUCH_NANOS = 1_000_000_000L;

    private record Unpooled(ClusterSnapshot with, ClusterSnapshot without) {
    }

    /** @param engine the engine whose answers are kept */
    public NodeAnswers(PlacementEngine engine) {
        this.engine = engine;
    }

    private static Cache<Question, ConcurrentMap<String, Answer>> cache() {
        return Caffeine.newBuilder().maximumSize(QUESTIONS).expireAfterAccess(Duration.ofMinutes(5)).build();
    }

    private static Question question(ClusterSnapshot s, PodRequest pod, PlacementPolicy policy, GangContext ctx) {
        FabricIdentity fabric = new FabricIdentity(s.fabric());
        int hash = java.util.Objects.hash(s.networksHash(), fabric, pod.gpus(), pod.rdmaResources(), pod.networks(),
                pod.hostNetwork(), pod.nodeAffinity(), policy, ctx);
        return new Question(hash, s.networks(), fabric, pod.gpus(), pod.rdmaResources(), pod.networks(),
                pod.hostNetwork(), pod.nodeAffinity(), policy, ctx);
    }

    /**
     * The answers kept for a question: the last one asked of each cache first (a gang's tasks ask the same question
     * for every node, call after call: a predicate storm's 320,000 calls ask one), then the cache.
     */
    private ConcurrentMap<String, Answer> answers(boolean filter, Question q) {
        LastAsked last = filter ? lastFilter : lastScore;
        long now = System.nanoTime();
        boolean again = last != null && last.question().equals(q);
        if (again && now - last.touchedNanos() < TOUCH_NANOS) {
            return last.answers();
        }
        // a new question, or once a second the last one: the cache sees it as used (its expiry and eviction count
        // uses) and gets the last answers back if it dropped them meanwhile
        ConcurrentMap<String, Answer> kept = again ? last.answers() : null;
        ConcurrentMap<String, Answer> answers = (filter ? filters : scores)
                .get(q, k -> kept != null ? kept : new ConcurrentHashMap<>());
        LastAsked next = new LastAsked(q, answers, now);
        if (filter) {
            lastFilter = next;
        } else {
            lastScore = next;
        }
        return answers;
    }

    private ClusterSnapshot withoutPools(ClusterSnapshot s) {
        Unpooled u = unpooled;
        if (u != null && u.with() == s) {
            return u.without();
        }
        ClusterSnapshot without = s.pools() == null ? s : s.withPools(null);
        unpooled = new Unpooled(s, without);
        return without;
    }

    /**
     * The part of a gang context {@link PlacementEngine#filter} reads: the rail vector only when alignment is
     * required and the pod asks for GPUs, the members' nodes only when a fabric scope is required (the engine's two
     * context checks). So the pods of one shape in one gang share their answers, whatever their own plan entries.
     */
    static GangContext filterContext(PodRequest pod, PlacementPolicy policy, GangContext ctx) {
        boolean rails = ctx.rails() != null && policy.railAlignment() == dev.railyard.api.hints.AffinityPolicy.REQUIRED
                && pod.gpus() > 0;
        boolean scope = policy.scope().required() && !policy.scope().isAny() && !ctx.placed().isEmpty();
        if (rails && scope) {
            return ctx;
        }
        return new GangContext(scope ? ctx.placed() : List.of(), rails ? ctx.rails() : null);
    }

    /**
     * @return the pools' verdict for one pod of the request, checked once for every node of a call, or null when it
     *         depends on the node (node slices), there are no pools or the pod attaches no networks. It is asked
     *         without a node (a range that is not node-sliced is the same pool for every node), so a gang's
     *         predicates, one per (task, node), ask the ledger the same question per task and get its remembered
     *         answer ({@code IpPoolLedger#check}).
     */
    public static PoolVerdict shared(ClusterSnapshot s, PodRequest pod) {
        if (s.pools() == null || pod.selections().isEmpty() || !s.pools().sameOnEveryNode(pod.networks())) {
            return null;
        }
        return s.pools().checkPod(pod.networks(), pod.key(), null);
    }

    /**
     * The pools' verdict for one pod of the request on the node, or the shared one.
     *
     * @param shared the verdict computed once for this call when the pod's pools do not depend on the node, or null
     */
    public static PoolVerdict pools(ClusterSnapshot s, PodRequest pod, String node, PoolVerdict shared) {
        if (s.pools() == null || pod.selections().isEmpty()) {
            return null;
        }
        return shared != null ? shared : s.pools().checkPod(pod.networks(), pod.key(), node);
    }

    /**
     * @param shared the pools' verdict shared by every node of this call ({@link #pools}), or null to check per node
     * @return what {@link PlacementEngine#filter} answers for the node
     */
    public NodeVerdict filter(ClusterSnapshot s, PodRequest pod, PlacementPolicy policy, String node,
                              GangContext ctx, PoolVerdict shared) {
        return judge(s, pod, policy, ctx, shared).filter(node);
    }

    /**
     * @param shared as for {@link #filter}
     * @return what {@link PlacementEngine#score} answers for the node
     */
    public NodeScore score(ClusterSnapshot s, PodRequest pod, PlacementPolicy policy, String node, GangContext ctx,
                           PoolVerdict shared) {
        return judge(s, pod, policy, ctx, shared).score(node);
    }

    /**
     * @param shared the pools' verdict shared by every node of the call, or null to check per node
     * @return one pod's question, looked up once, to answer for many nodes (a kube filter over every node name)
     */
    public Judge judge(ClusterSnapshot s, PodRequest pod, PlacementPolicy policy, GangContext ctx,
                       PoolVerdict shared) {
        return new Judge(s, pod, policy, ctx, shared);
    }

    /** One pod's question on one snapshot: Filter and Score per node, from the cache where it holds the answer. */
    public final class Judge {
        private final ClusterSnapshot s;
        private final PodRequest pod;
        private final PlacementPolicy policy;
        private final GangContext ctx;
        private final PoolVerdict shared;
        private ConcurrentMap<String, Answer> filterAnswers;
        private ConcurrentMap<String, Answer> scoreAnswers;
        private ProximityScore.Members members;
        private ScoreTerm.Value sharedHeadroom;

        private Judge(ClusterSnapshot s, PodRequest pod, PlacementPolicy policy, GangContext ctx,
                      PoolVerdict shared) {
            this.s = s;
            this.pod = pod;
            this.policy = policy;
            this.ctx = ctx;
            this.shared = shared;
        }

        /** @return what {@link PlacementEngine#filter} answers for the node */
        public NodeVerdict filter(String node) {
            return filter(node, s.node(node));
        }

        /**
         * @param ns the node's record in this judge's snapshot ({@code snapshot.node(node)}, looked up by the caller)
         * @return what {@link PlacementEngine#filter} answers for the node
         */
        public NodeVerdict filter(String node, NodeState ns) {
            if (ns == null) {
                return engine.filter(s, pod, policy, node, ctx);
            }
            if (filterAnswers == null) {
                filterAnswers = answers(true, question(s, pod, policy, filterContext(pod, policy, ctx)));
            }
            Answer a = filterAnswers.get(node);
            if (a == null || a.node() != ns) {
                a = new Answer(ns, withSharedStatus(engine.filter(withoutPools(s), pod, policy, node, ctx)));
                filterAnswers.put(node, a);
            }
            NodeVerdict base = (NodeVerdict) a.value();
            PoolVerdict v = pools(s, pod, node, shared);
            if (v == null || v.admitted()) {
                return base;
            }
            List<Reason> reasons = new ArrayList<>(base.reasons());
            reasons.add(poolReason(v));
            return new NodeVerdict(node, reasons);
        }

        /** @return what {@link PlacementEngine#score} answers for the node */
        public NodeScore score(String node) {
            NodeState ns = s.node(node);
            if (ns == null) {
                return engine.score(s, pod, policy, node, ctx);
            }
            GangContext railsOnly = scoreContext(ctx);
            if (scoreAnswers == null) {
                scoreAnswers = answers(false, question(s, pod, policy, railsOnly));
            }
            Answer a = scoreAnswers.get(node);
            if (a == null || a.node() != ns) {
                a = new Answer(ns, engine.score(withoutPools(s), pod, policy, node, railsOnly));
                scoreAnswers.put(node, a);
            }
            NodeScore base = (NodeScore) a.value();
            PoolVerdict v = pools(s, pod, node, shared);
            ScoreTerm.Value proximity = null;
            if (railsOnly != ctx) {
                if (members == null) {
                    members = ProximityScore.Members.of(s.fabric(), ctx);
                }
                proximity = ProximityScore.of(node, members);
            }
            ScoreTerm.Value headroom = null;
            if (v != null && v == shared) {
                if (sharedHeadroom == null) {
                    sharedHeadroom = IpHeadroomScore.of(shared);   // the same verdict for every node of the call
                }
                headroom = sharedHeadroom;
            } else if (v != null) {
                headroom = IpHeadroomScore.of(v);
            }
            return withTerms(base, proximity, headroom);
        }
    }

    /** @return the verdict with its status replaced by an equal one already kept, when there is one */
    private NodeVerdict withSharedStatus(NodeVerdict v) {
        if (v.feasible()) {
            return v; // a pass has no reasons (Status.success() is one instance) or is a rare neutral one
        }
        Status one = statuses.get(v.status(), k -> k);
        return one == v.status() ? v : new NodeVerdict(v.node(), one);
    }

    /** @return the reason {@link PlacementEngine#filter} gives for a pool verdict that refuses */
    public static Reason poolReason(PoolVerdict v) {
        boolean exhausted = v.reason() == PoolReason.POOL_EXHAUSTED;
        return new Reason(exhausted ? ReasonCode.POOL_EXHAUSTED : ReasonCode.NETWORK_INVALID,
                exhausted ? "IP pool exhausted" : "network unusable", v.message());
    }

    /**
     * The part of a gang context {@link PlacementEngine#score} reads for every term but proximity: the rail vector
     * ({@link RailScore} and the rail demand of the local selection). Only {@link ProximityScore} reads the placed
     * members, and their list differs per task (each leaves itself out), so a gang's tasks share one cached score
     * per node and proximity is computed per call.
     *
     * @return {@code ctx} itself when no member is placed, else the context without its members
     */
    static GangContext scoreContext(GangContext ctx) {
        return ctx.placed().isEmpty() ? ctx : new GangContext(List.of(), ctx.rails());
    }

    /**
     * The score with its {@code proximity} and {@code ipHeadroom} terms replaced where given, and the terms' weighted
     * mean taken again as {@link WeightedScore} takes it.
     *
     * @param proximity the proximity to the placed members ({@link ProximityScore}), or null to keep the base's
     * @param headroom  the pools' headroom ({@link IpHeadroomScore}), or null to keep the base's
     */
    static NodeScore withTerms(NodeScore base, ScoreTerm.Value proximity, ScoreTerm.Value headroom) {
        List<NodeScore.Term> terms = new ArrayList<>(base.terms());
        boolean changed = false;
        for (int i = 0; i < terms.size(); i++) {
            NodeScore.Term old = terms.get(i);
            ScoreTerm.Value now = old.name().equals("proximity") ? proximity
                    : old.name().equals("ipHeadroom") ? headroom : null;
            if (now != null) {
                terms.set(i, new NodeScore.Term(old.name(), now.value(), old.weight(), now.why()));
                changed = true;
            }
        }
        if (!changed) {
            return base; // nothing given, or the pod does not fit (score 0, one "pairing" term: nothing to weigh)
        }
        double num = 0;
        double den = 0;
        for (NodeScore.Term t : terms) {
            num += (double) t.value() * t.weight();
            den += t.weight();
        }
        return new NodeScore(base.node(), Math.max(0, Math.min(100, (int) Math.round(num / den))), terms);
    }
}
