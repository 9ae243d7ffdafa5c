package dev.railyard.scheduler.ipam;

import dev.railyard.api.whereabouts.IPPool;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The whereabouts address ledger: free addresses per pool exactly as whereabouts counts them, minus Railyard's own
 * in-flight holds, checked for whole gangs at once.
 *
 * <p>For every network a pod attaches ({@link NetworkSelectionParser}), the ledger resolves the
 * NetworkAttachmentDefinition (and the MacvlanNetwork that rendered it), reads its whereabouts IPAM config
 * ({@link IpamConfigParser}), finds the IPPool by whereabouts' naming rule ({@link PoolNames}) in whichever namespace
 * holds it, and counts
 * {@code free = usable − allocated − reserved by other ranges − in flight} ({@link UsableAddresses}). A missing
 * IPPool means nothing is allocated yet. Stale allocations (podref of no existing pod) are reported and still count
 * as used: whereabouts does not reuse them until its reconciler runs.
 *
 * <p>In flight: addresses promised but not in the pool yet. (1) Holds: {@link #reserve} holds one address per pod,
 * network and range. A hold ends when the pool shows an allocation for the pod and interface that was not there
 * when the hold was made, when a snapshot taken after the hold no longer lists the pod, on {@link #release}, or
 * after the configured timeout. (2) Bound pods ({@link IpamSnapshot#boundPods()}) whose allocation the pool does not
 * list yet, read from every snapshot: they cover the time after a hold ends by timeout and, since they come from the
 * cluster and not from memory, a restarted Railyard (docs/adr/0005). A pod interface with both counts once.
 *
 * <p>Thread-safety: every public method is safe to call concurrently. {@link #check}, {@link #reserve},
 * {@link #release} and {@link #update} serialize on one lock; the work under it is hash lookups and cached counts
 * (the per-snapshot counts are computed once), so a check costs microseconds.
 */
public final class IpPoolLedger implements AddressPools {
    /** Default hold timeout: whereabouts gives a CNI ADD two minutes ({@code AddTimeLimit}), plus binding slack. */
    public static final Duration DEFAULT_RESERVATION_TIMEOUT = Duration.ofMinutes(5);

    private final Clock clock;
    private final Duration reservationTimeout;
    private final String whereaboutsNamespace;
    private final Object lock = new Object();
    private LedgerState state;
    private final Map<String, ArrayDeque<Hold>> holdsByPool = new HashMap<>();
    private final Map<String, List<Hold>> holdsByPod = new HashMap<>();

    /**
     * One address held for a pod.
     *
     * @param podRef      {@code ns/name}
     * @param poolName    IPPool name
     * @param ifname      pod interface the address is for
     * @param createdAt   when the hold was made
     * @param preexisting the pool's addresses already allocated to this podref when the hold was made
     */
    private record Hold(String podRef, String poolName, String ifname, Instant createdAt, Set<String> preexisting) {
    }

    /**
     * @param clock                time source for hold expiry
     * @param reservationTimeout   how long a hold lives at most; positive
     * @param whereaboutsNamespace namespace whereabouts keeps its objects in, or null to use wherever they are (the
     *                             snapshot then should list them cluster-wide)
     */
    public IpPoolLedger(Clock clock, Duration reservationTimeout, String whereaboutsNamespace) {
        if (clock == null || reservationTimeout == null || reservationTimeout.isNegative()
                || reservationTimeout.isZero()) {
            throw new IllegalArgumentException("a ledger needs a clock and a positive reservation timeout");
        }
        this.clock = clock;
        this.reservationTimeout = reservationTimeout;
        this.whereaboutsNamespace = whereaboutsNamespace;
        this.state = new LedgerState(IpamSnapshot.empty(clock.instant()), whereaboutsNamespace);
    }

    /** A ledger with the {@link #DEFAULT_RESERVATION_TIMEOUT} that discovers whereabouts' namespace. */
    public IpPoolLedger(Clock clock) {
        this(clock, DEFAULT_RESERVATION_TIMEOUT, null);
    }

    /**
     * Replaces the snapshot and ends the holds it settles: the pod's new allocation is in the pool, or the pod is
     * gone.
     */
    public void update(IpamSnapshot snapshot) {
        LedgerState next = new LedgerState(snapshot, whereaboutsNamespace);
        synchronized (lock) {
            state = next;
            List<Hold> done = new ArrayList<>();
            for (List<Hold> holds : holdsByPod.values()) {
                for (Hold h : holds) {
                    if (settled(next, h)) {
                        done.add(h);
                    }
                }
            }
            done.forEach(this::drop);
            expire(clock.instant());
        }
    }

    private static boolean settled(LedgerState s, Hold h) {
        if (s.snapshot.takenAt().isAfter(h.createdAt()) && !s.snapshot.livePods().contains(h.podRef())) {
            return true;
        }
        DecodedPool pool = s.pool(h.poolName()).pool();
        if (pool == null || pool.error() != null) {
            return false;
        }
        for (DecodedPool.Allocation a : pool.allocationsOf(h.podRef())) {
            if (a.address() != null && (a.ifname().isEmpty() || a.ifname().equals(h.ifname()))
                    && !h.preexisting().contains(AddressText.format(a.address()))) {
                return true;
            }
        }
        return false;
    }

    /** @return the snapshot in use */
    public IpamSnapshot snapshot() {
        synchronized (lock) {
            return state.snapshot;
        }
    }

    /** @return the number of addresses Railyard holds in flight, over all pools */
    public int heldAddresses() {
        synchronized (lock) {
            expire(clock.instant());
            return holdsByPool.values().stream().mapToInt(ArrayDeque::size).sum();
        }
    }

    @Override
    public PoolVerdict check(List<PoolDemand> demands) {
        synchronized (lock) {
            expire(clock.instant());
            return evaluate(state, demands, Set.of(), false);
        }
    }

    @Override
    public boolean sameOnEveryNode(PodNetworksRequest request) {
        if (!request.valid()) {
            return true;
        }
        LedgerState s;
        synchronized (lock) {
            s = state;
        }
        for (NetworkSelection sel : request.selections()) {
            NetworkResolution res = s.resolve(sel);
            if (res.ipam() != null && res.ipam().nodeSliceMode()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public PoolVerdict reserve(List<PodPlacement> placements) {
        synchronized (lock) {
            Instant now = clock.instant();
            expire(now);
            List<PoolDemand> demands = new ArrayList<>();
            Set<String> pods = new HashSet<>();
            for (PodPlacement p : placements) {
                demands.add(new PoolDemand(p.request(), 1, p.node()));
                pods.add(p.podRef());
            }
            PoolVerdict verdict = evaluate(state, demands, pods, true);
            if (!verdict.admitted()) {
                return verdict;
            }
            pods.forEach(this::releaseLocked);
            for (PodPlacement p : placements) {
                for (NetworkSelection sel : p.request().selections()) {
                    NetworkResolution res = state.resolve(sel);
                    if (res.ipam() == null) {
                        continue;
                    }
                    for (int i = 0; i < res.ipam().ranges().size(); i++) {
                        RangeView view = state.view(res, i, p.node());
                        Set<String> preexisting = new HashSet<>();
                        if (view.pool() != null) {
                            for (DecodedPool.Allocation a : view.pool().allocationsOf(p.podRef())) {
                                if (a.address() != null) {
                                    preexisting.add(AddressText.format(a.address()));
                                }
                            }
                        }
                        add(new Hold(p.podRef(), view.memberPools().get(0), sel.podInterface(), now,
                                Set.copyOf(preexisting)));
                    }
                }
            }
            return verdict;
        }
    }

    @Override
    public int release(String podRef) {
        synchronized (lock) {
            return releaseLocked(podRef);
        }
    }

    @Override
    public List<PoolAudit> audit() {
        LedgerState s;
        synchronized (lock) {
            s = state;
        }
        List<PoolAudit> out = new ArrayList<>();
        for (IPPool p : s.pools()) {
            DecodedPool d = s.decode(p);
            out.add(new PoolAudit(d.namespace(), d.name(), d.range(), p.getSpec() == null ? 0
                    : p.getSpec().allocations().size(), d.error() == null ? d.stale(s.snapshot.livePods())
                    : List.of(), d.inconsistencies(), d.error()));
        }
        return out;
    }

    // ---- holds (callers hold the lock) ---------------------------------------------------------------------------

    private void add(Hold h) {
        holdsByPool.computeIfAbsent(h.poolName(), k -> new ArrayDeque<>()).addLast(h);
        holdsByPod.computeIfAbsent(h.podRef(), k -> new ArrayList<>()).add(h);
    }

    private void drop(Hold h) {
        ArrayDeque<Hold> q = holdsByPool.get(h.poolName());
        if (q != null) {
            q.removeIf(x -> x == h);
            if (q.isEmpty()) {
                holdsByPool.remove(h.poolName());
            }
        }
        List<Hold> l = holdsByPod.get(h.podRef());
        if (l != null) {
            l.removeIf(x -> x == h);
            if (l.isEmpty()) {
                holdsByPod.remove(h.podRef());
            }
        }
    }

    private int releaseLocked(String podRef) {
        List<Hold> l = holdsByPod.get(podRef);
        if (l == null) {
            return 0;
        }
        List<Hold> copy = List.copyOf(l);
        copy.forEach(this::drop);
        return copy.size();
    }

    /** Drops holds older than the timeout; holds are appended in time order, so each pool's queue is cut at its head. */
    private void expire(Instant now) {
        Instant cutoff = now.minus(reservationTimeout);
        List<Hold> done = new ArrayList<>();
        for (ArrayDeque<Hold> q : holdsByPool.values()) {
            for (Hold h : q) {
                if (h.createdAt().isAfter(cutoff)) {
                    break;
                }
                done.add(h);
            }
        }
        done.forEach(this::drop);
    }

    /**
     * Addresses of the pools promised but not yet recorded: Railyard's holds, plus the snapshot's bound pods that
     * whereabouts has not given their address yet ({@link LedgerState#unrecordedByPool()}), each pod interface
     * counted once when both apply. Pods in {@code exceptPods} (being reserved anew) are left out.
     */
    private long inFlight(LedgerState s, List<String> pools, Set<String> exceptPods) {
        long n = 0;
        Map<String, Set<String>> unrecorded = s.unrecordedByPool();
        for (String pool : pools) {
            ArrayDeque<Hold> q = holdsByPool.get(pool);
            Set<String> bound = unrecorded.getOrDefault(pool, Set.of());
            Set<String> held = bound.isEmpty() || q == null ? Set.of() : new HashSet<>();
            if (q != null) {
                for (Hold h : q) {
                    if (exceptPods.isEmpty() || !exceptPods.contains(h.podRef())) {
                        n++;
                        if (!bound.isEmpty()) {
                            held.add(LedgerState.slot(h.podRef(), h.ifname()));
                        }
                    }
                }
            }
            for (String slot : bound) {
                if (!held.contains(slot) && (exceptPods.isEmpty() || !exceptPods.contains(LedgerState.podOf(slot)))) {
                    n++;
                }
            }
        }
        return n;
    }

    // ---- evaluation --------------------------------------------------------------------------------------------

    /** One network (and node, for node-slice networks) being checked, with the ranges it draws from. */
    private static final class Entry {
        final String network;
        final String interfaceName;
        String master;
        PoolReason failure;
        String message;
        final List<String> notes = new ArrayList<>();
        final Map<String, RangeView> views = new LinkedHashMap<>();

        Entry(String network, String interfaceName) {
            this.network = network;
            this.interfaceName = interfaceName;
        }
    }

    private PoolVerdict evaluate(LedgerState s, List<PoolDemand> demands, Set<String> exceptPods,
                                 boolean holdsNeedNode) {
        Map<String, Entry> entries = new LinkedHashMap<>();
        Map<String, Long> need = new HashMap<>();
        for (PoolDemand d : demands) {
            PodNetworksRequest request = d.request();
            if (!request.valid()) {
                NetworkVerdict nv = new NetworkVerdict("(annotation)", null, null, PoolReason.ANNOTATION_INVALID,
                        "pod in namespace " + request.podNamespace() + ": " + request.error(), List.of(), List.of());
                return new PoolVerdict(PoolReason.ANNOTATION_INVALID, nv.message(), List.of(nv));
            }
            for (NetworkSelection sel : request.selections()) {
                NetworkResolution res = s.resolve(sel);
                boolean perNode = res.ipam() != null && res.ipam().nodeSliceMode();
                String entryKey = res.key() + (perNode ? "@" + d.node() : "");
                Entry e = entries.computeIfAbsent(entryKey, k -> new Entry(res.key(), sel.podInterface()));
                e.master = res.master();
                if (e.failure != null) {
                    continue;
                }
                if (res.failure() != null) {
                    e.failure = res.failure();
                    e.message = res.message();
                    continue;
                }
                for (String n : res.notes()) {
                    if (!e.notes.contains(n)) {
                        e.notes.add(n);
                    }
                }
                if (res.ipam() == null) {
                    continue;
                }
                if (perNode && d.node() == null && holdsNeedNode) {
                    e.failure = PoolReason.NODE_SLICE_MISSING;
                    e.message = "network " + res.key() + " uses whereabouts node slices: a hold needs the node";
                    continue;
                }
                for (int i = 0; i < res.ipam().ranges().size(); i++) {
                    RangeView view = s.view(res, i, d.node());
                    if (view.failure() != null) {
                        e.failure = view.failure();
                        e.message = view.failureMessage();
                        break;
                    }
                    e.views.putIfAbsent(view.id(), view);
                    need.merge(view.id(), (long) d.pods(), Long::sum);
                    for (String n : view.notes()) {
                        if (!e.notes.contains(n)) {
                            e.notes.add(n);
                        }
                    }
                }
            }
        }
        List<NetworkVerdict> verdicts = new ArrayList<>();
        PoolReason first = PoolReason.OK;
        List<String> refusals = new ArrayList<>();
        List<String> admitted = new ArrayList<>();
        for (Entry e : entries.values()) {
            String head = "network " + e.network + " (" + e.interfaceName + ")";
            if (e.failure != null) {
                String msg = head + ": " + e.message;
                verdicts.add(new NetworkVerdict(e.network, e.interfaceName, e.master, e.failure, msg, List.of(),
                        e.notes));
                refusals.add(msg);
                if (first == PoolReason.OK) {
                    first = e.failure;
                }
                continue;
            }
            List<PoolStatus> statuses = new ArrayList<>();
            List<String> shortOf = new ArrayList<>();
            for (RangeView v : e.views.values()) {
                long inFlight = inFlight(s, v.memberPools(), exceptPods);
                long base = v.freeBeforeHolds();
                long free = base == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(0, base - inFlight);
                PoolStatus ps = new PoolStatus(v.poolName(), v.poolNamespace(), v.node(), v.range(), v.span(),
                        v.usable(), v.allocated(), v.reservedElsewhere(), inFlight, free,
                        need.getOrDefault(v.id(), 0L), v.stale(), v.inconsistencies());
                statuses.add(ps);
                if (!ps.enough()) {
                    shortOf.add(ps.describe());
                }
            }
            String msg;
            PoolReason reason;
            if (!shortOf.isEmpty()) {
                reason = PoolReason.POOL_EXHAUSTED;
                msg = head + ": " + String.join("; ", shortOf);
                refusals.add(msg);
                if (first == PoolReason.OK) {
                    first = reason;
                }
            } else {
                reason = PoolReason.OK;
                msg = statuses.isEmpty() ? head + ": not counted (" + String.join("; ", e.notes) + ")"
                        : head + ": " + String.join("; ", statuses.stream().map(PoolStatus::describe).toList());
                admitted.add(msg);
            }
            verdicts.add(new NetworkVerdict(e.network, e.interfaceName, e.master, reason, msg, statuses, e.notes));
        }
        String message;
        if (first != PoolReason.OK) {
            message = String.join("; ", refusals);
        } else if (admitted.isEmpty()) {
            message = "no secondary networks";
        } else {
            message = String.join("; ", admitted);
        }
        return new PoolVerdict(first, message, verdicts);
    }
}
