package dev.railyard.scheduler.ipam;

import dev.railyard.api.whereabouts.IPPool;
import dev.railyard.scheduler.input.LogText;
import dev.railyard.scheduler.input.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The whereabouts address ledger: free addresses per pool exactly as whereabouts counts them, minus the addresses
 * promised and not recorded yet, checked for whole gangs at once; and the holds that make those promises, in the
 * manner of kube-scheduler's assume cache (docs/adr/0011-address-holds.md).
 *
 * <p>For every network a pod attaches ({@link NetworkSelectionParser}), the ledger resolves the
 * NetworkAttachmentDefinition (and the MacvlanNetwork that rendered it), reads its whereabouts IPAM config
 * ({@link IpamConfigParser}), finds the IPPool by whereabouts' naming rule ({@link PoolNames}) in whichever namespace
 * holds it, and counts
 * {@code free = usable − allocated − reserved by other ranges − in flight} ({@link UsableAddresses}). A missing
 * IPPool means nothing is allocated yet. Stale allocations (podref of no existing pod) are reported and still count
 * as used: whereabouts does not reuse them until its reconciler runs.
 *
 * <p>In flight: addresses promised but not in the pool yet, each pod interface counted once.
 * <ul>
 *   <li><b>Holds</b> ({@link #hold}): one address per pod, network and range, taken atomically with the check
 *       (no interleaving of concurrent calls hands out more than a pool has free). Each names the pod (UID), the
 *       node, the pool and interface, who took it, since when and until when. A hold ends when the pool shows an
 *       allocation for the pod and interface that was not there when the hold was made, when a snapshot taken after
 *       the hold no longer lists the pod, on {@link #release}, or at its expiry.</li>
 *   <li><b>Persisted holds</b> ({@link IpamSnapshot#heldPods()}): holds written on pods not bound yet, read back from
 *       the cluster. A restarted replica or a new leader adopts each one (without checking it again: it was
 *       promised) until the cluster stops showing it or it expires, within the bounds of {@link HoldAdoption}: never
 *       for longer than a hold of its origin lives from its {@code since}, nor one dated in the future or of a pod
 *       listing more networks than any GPU pod attaches (each refusal or shortening is a warning line, at most one
 *       per kind every 10 s). A release remembers the hold, so the annotation still in the cluster until the caller
 *       removes it is not adopted back.</li>
 *   <li><b>Bound pods</b> ({@link IpamSnapshot#boundPods()}) whose allocation the pool does not list yet: they cover
 *       the time after a hold ends by expiry and, since they come from the cluster, a restart (docs/adr/0005).</li>
 * </ul>
 *
 * <p>Thread-safety: every public method is safe to call concurrently. Checks, holds, releases and updates serialize
 * on one lock; the work under it is hash lookups and cached counts (the per-snapshot counts are computed once), so a
 * check costs microseconds.
 */
public final class IpPoolLedger implements AddressPools {
    private static final Logger LOG = LoggerFactory.getLogger(IpPoolLedger.class);
    /** Persisted holds refused or shortened: the pod's owner can cause one per snapshot. */
    private static final RateLimitedLog ADOPTION = RateLimitedLog.of(LOG);
    /** Default hold timeout: whereabouts gives a CNI ADD two minutes ({@code AddTimeLimit}), plus binding slack. */
    public static final Duration DEFAULT_RESERVATION_TIMEOUT = Duration.ofMinutes(5);
    /**
     * How long after a {@code bind} hold its Binding must show in the cluster: a snapshot taken later that lists the
     * pod unbound ends the hold (the Binding failed after its caller gave up waiting). The bind verb waits at most
     * its deadline (seconds); this leaves the informer ample time.
     */
    public static final Duration BINDING_GRACE = Duration.ofSeconds(30);

    private final Clock clock;
    private final Duration reservationTimeout;
    private final String whereaboutsNamespace;
    private final Object lock = new Object();
    /** Serializes {@link #update}: a snapshot is built outside {@link #lock}, and the one built last is installed last. */
    private final Object updating = new Object();
    private LedgerState state;
    private final HoldBook book = new HoldBook();
    /** Guarded by {@link #lock}. */
    private HoldAdoption adoption = HoldAdoption.DEFAULTS;

    /**
     * @param clock                time source for hold expiry
     * @param reservationTimeout   how long a hold lives at most unless its request says otherwise; positive
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

    /** @return the default hold lifetime */
    public Duration reservationTimeout() {
        return reservationTimeout;
    }

    /**
     * Sets the bounds of adoption: the lifetimes the service gives the holds it persists (until set,
     * {@link HoldAdoption#DEFAULTS}). Applies to holds adopted from the next {@link #update} on.
     */
    public void adoptWithin(HoldAdoption bounds) {
        synchronized (lock) {
            adoption = java.util.Objects.requireNonNull(bounds, "bounds");
        }
    }

    /**
     * Replaces the snapshot: ends the holds it settles (the pod's new allocation is in the pool, or the pod is gone),
     * adopts the persisted holds it shows that this ledger does not hold, and drops adopted holds it no longer shows.
     * Concurrent updates serialize (each builds on the state the previous one installed, so the last call's snapshot
     * is the one in use); checks and holds go on meanwhile against the state in use.
     */
    public void update(IpamSnapshot snapshot) {
        synchronized (updating) {
            LedgerState previous;
            synchronized (lock) {
                previous = state;
            }
            LedgerState next = new LedgerState(snapshot, whereaboutsNamespace, previous);
            synchronized (lock) {
                state = next;
                checks.clear();
                Instant now = clock.instant();
                Set<String> shown = new HashSet<>();
                for (PersistedHold p : snapshot.heldPods()) {
                    shown.add(HoldBook.persistedKey(p.podRef(), p.since()));
                }
                for (HoldBook.Hold h : book.all()) {
                    if (settled(next, h) || h.adopted() && !shown.contains(h.persistedKey())) {
                        book.drop(h);
                    }
                }
                book.forgetReleases(shown);
                book.expire(now);
                for (PersistedHold p : snapshot.heldPods()) {
                    if (p.until().isAfter(now) && book.ofPod(p.podRef()).isEmpty()
                            && !book.released(HoldBook.persistedKey(p.podRef(), p.since()))) {
                        adopt(p, now);
                    }
                }
            }
        }
    }

    /** Adopts a persisted hold within {@link #adoption}'s bounds. Callers hold the lock. */
    private void adopt(PersistedHold p, Instant now) {
        HoldAdoption.Verdict v = adoption.judge(p, now);
        if (v.why() != null) {
            ADOPTION.warn(v.warning(), "address hold on pod {} ({} on {}, since {}) {}: {} (docs/adr/0011)",
                    LogText.escape(p.podRef()), p.origin().words(), LogText.escape(String.valueOf(
                            p.placement().node())), p.since(), v.adopted() ? "adopted until " + v.until()
                            : "not adopted", LogText.escape(v.why()));
        }
        if (v.adopted()) {
            addHolds(new HoldRequest(p.placement(), p.uid(), p.origin(), Duration.ofSeconds(1)), p.since(),
                    v.until(), true);
        }
    }

    private static boolean settled(LedgerState s, HoldBook.Hold h) {
        if (s.snapshot.takenAt().isAfter(h.since()) && !s.snapshot.livePods().contains(h.podRef())) {
            return true;
        }
        if (h.origin() == HoldOrigin.BIND && s.snapshot.takenAt().isAfter(h.since().plus(BINDING_GRACE))
                && !s.boundRefs().contains(h.podRef())) {
            return true; // the Binding never landed
        }
        DecodedPool pool = s.pool(h.pool()).pool();
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

    /** @return the number of addresses held, over all pools (bound pods not recorded yet not included) */
    public int heldAddresses() {
        synchronized (lock) {
            book.expire(clock.instant());
            return book.size();
        }
    }

    /** A verdict of {@link #check}, valid while the ledger holds the same state and the same holds. */
    private record CheckedVerdict(LedgerState state, long holdChanges, PoolVerdict verdict) {
    }

    /**
     * The last {@value #CHECKS_KEPT} checks by their demands (access order; guarded by {@link #lock}). A Volcano
     * gang's predicates ask the same demands once per node, thousands of times between two changes of the pools (the
     * shared check names no node: {@link dev.railyard.scheduler.engine.NodeAnswers#shared}); the demands name the
     * pod, so a gang takes one entry per task. Under node slices every node's check is its own entry: a kube filter
     * over 20,000 names asks 20,000, so the memo holds that many and more (a few KiB each). It is emptied when the
     * state is replaced, so no entry keeps an old state alive.
     */
    private final Map<List<PoolDemand>, CheckedVerdict> checks = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<List<PoolDemand>, CheckedVerdict> eldest) {
            return size() > CHECKS_KEPT;
        }
    };
    private static final int CHECKS_KEPT = 32_768;

    @Override
    public PoolVerdict check(List<PoolDemand> demands) {
        synchronized (lock) {
            book.expire(clock.instant());
            CheckedVerdict c = checks.get(demands);
            if (c != null && c.state() == state && c.holdChanges() == book.changes()) {
                return c.verdict();
            }
            Set<String> mine = new HashSet<>();
            for (PoolDemand d : demands) {
                mine.addAll(d.podRefs());
            }
            PoolVerdict v = LedgerEvaluation.evaluate(state, book, demands, mine, false);
            checks.put(List.copyOf(demands), new CheckedVerdict(state, book.changes(), v));
            return v;
        }
    }

    /**
     * As the interface says; a node-slice network is named without counting (adding up its slices costs a view per
     * node, some 5 µs each: a fifth of a second at 20,000 nodes and four networks, on every change of any pool):
     * its whole first range and NodeSlicePool, or nulls while its NodeSlicePool does not exist.
     */
    @Override
    public NetworkOrigin origin(PodNetworksRequest request) {
        LedgerState s;
        synchronized (lock) {
            s = state;
        }
        if (!request.valid() || request.selections().isEmpty()) {
            return AddressPools.super.origin(request);
        }
        NetworkResolution res = s.resolve(request.selections().get(0));
        if (res.failure() != null || res.ipam() == null || !res.ipam().nodeSliceMode()) {
            return AddressPools.super.origin(request);
        }
        String sliceName = res.ipam().nodeSlicePoolName();
        if (!s.hasSlicePool(sliceName) || res.ipam().ranges().isEmpty()) {
            return new NetworkOrigin(res.master(), null, null);
        }
        return new NetworkOrigin(res.master(), res.ipam().ranges().get(0).canonical(), sliceName + " (node slices)");
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
        List<HoldRequest> requests = new ArrayList<>();
        for (PodPlacement p : placements) {
            requests.add(new HoldRequest(p, "", HoldOrigin.PLAN, reservationTimeout));
        }
        return hold(requests);
    }

    @Override
    public PoolVerdict hold(List<HoldRequest> requests) {
        synchronized (lock) {
            Instant now = clock.instant();
            book.expire(now);
            List<PoolDemand> demands = new ArrayList<>();
            Set<String> pods = new HashSet<>();
            for (HoldRequest r : requests) {
                demands.add(new PoolDemand(r.placement().request(), 1, r.placement().node()));
                pods.add(r.podRef());
            }
            PoolVerdict verdict = LedgerEvaluation.evaluate(state, book, demands, pods, true);
            if (!verdict.admitted()) {
                return verdict;
            }
            pods.forEach(p -> book.release(p, true));
            for (HoldRequest r : requests) {
                addHolds(r, now, now.plus(r.ttl()), false);
            }
            return verdict;
        }
    }

    /** Adds one hold per network and range of the request. Callers hold the lock. */
    private void addHolds(HoldRequest r, Instant since, Instant until, boolean adopted) {
        PodPlacement p = r.placement();
        for (NetworkSelection sel : p.request().selections()) {
            NetworkResolution res = state.resolve(sel);
            if (res.ipam() == null || res.failure() != null) {
                continue;
            }
            for (int i = 0; i < res.ipam().ranges().size(); i++) {
                RangeView view = state.view(res, i, p.node());
                if (view.failure() != null || view.memberPools().isEmpty()) {
                    continue;
                }
                Set<String> preexisting = new HashSet<>();
                if (view.pool() != null) {
                    for (DecodedPool.Allocation a : view.pool().allocationsOf(p.podRef())) {
                        if (a.address() != null) {
                            preexisting.add(AddressText.format(a.address()));
                        }
                    }
                }
                book.add(new HoldBook.Hold(p.podRef(), r.uid(), view.memberPools().get(0), sel.podInterface(),
                        p.node(), r.origin(), since, until, Set.copyOf(preexisting), adopted));
            }
        }
    }

    @Override
    public int release(String podRef) {
        synchronized (lock) {
            return book.release(podRef, true).size();
        }
    }

    /**
     * Drops the pod's holds if they are still the ones taken at {@code since} (a later hold of the same pod stays):
     * for a Binding whose outcome came after the pod was held again.
     *
     * @return how many holds were dropped
     */
    public int releaseIfSince(String podRef, Instant since) {
        synchronized (lock) {
            List<HoldBook.Hold> held = book.ofPod(podRef);
            if (held.isEmpty() || !held.get(0).since().equals(since)) {
                return 0;
            }
            return book.release(podRef, true).size();
        }
    }

    /**
     * @return the pod's current holds as one entry, or null when it holds none
     */
    public AddressHold holdOf(String podRef) {
        synchronized (lock) {
            book.expire(clock.instant());
            List<AddressHold> h = describe(book.ofPod(podRef), state);
            return h.isEmpty() ? null : h.get(0);
        }
    }

    @Override
    public List<AddressHold> holds() {
        synchronized (lock) {
            book.expire(clock.instant());
            List<AddressHold> out = new ArrayList<>(describe(book.all(), state));
            Map<String, List<String>[]> bound = new LinkedHashMap<>();
            Set<String> heldSlots = new HashSet<>();
            for (HoldBook.Hold h : book.all()) {
                heldSlots.add(h.pool() + " " + LedgerState.slot(h.podRef(), h.ifname()));
            }
            Map<String, String> nodes = new LinkedHashMap<>();
            for (PodPlacement p : state.snapshot.boundPods()) {
                nodes.put(p.podRef(), p.node());
            }
            state.unrecordedByPool().forEach((pool, slots) -> {
                for (String slot : slots) {
                    if (heldSlots.contains(pool + " " + slot)) {
                        continue;
                    }
                    @SuppressWarnings("unchecked")
                    List<String>[] lists = bound.computeIfAbsent(LedgerState.podOf(slot),
                            k -> new List[]{new ArrayList<>(), new ArrayList<>()});
                    lists[0].add(pool);
                    lists[1].add(slot.substring(slot.lastIndexOf(' ') + 1));
                }
            });
            bound.forEach((pod, lists) -> out.add(new AddressHold(pod, "", nodes.get(pod), HoldOrigin.BOUND, null,
                    null, false, lists[0], lists[1])));
            out.sort(Comparator.comparing(AddressHold::podRef));
            return out;
        }
    }

    /** One entry per pod and hold time, in pod order; persisted when the snapshot shows the hold on the pod. */
    private static List<AddressHold> describe(List<HoldBook.Hold> holds, LedgerState s) {
        Set<String> shown = new HashSet<>();
        for (PersistedHold p : s.snapshot.heldPods()) {
            shown.add(HoldBook.persistedKey(p.podRef(), p.since()));
        }
        Map<String, List<HoldBook.Hold>> byKey = new LinkedHashMap<>();
        for (HoldBook.Hold h : holds) {
            byKey.computeIfAbsent(h.persistedKey(), k -> new ArrayList<>()).add(h);
        }
        List<AddressHold> out = new ArrayList<>();
        for (List<HoldBook.Hold> l : byKey.values()) {
            HoldBook.Hold first = l.get(0);
            out.add(new AddressHold(first.podRef(), first.uid(), first.node(), first.origin(), first.since(),
                    first.until(), first.adopted() || shown.contains(first.persistedKey()),
                    l.stream().map(HoldBook.Hold::pool).toList(), l.stream().map(HoldBook.Hold::ifname).toList()));
        }
        out.sort(Comparator.comparing(AddressHold::podRef));
        return out;
    }

    /**
     * @param reservationTimeout the copy's default hold lifetime
     * @return a ledger over the same snapshot holding the same holds, for a caller that holds more without touching
     *         this one ({@code /explain} planning gang after gang)
     */
    public IpPoolLedger copy(Duration reservationTimeout) {
        IpPoolLedger c = new IpPoolLedger(clock, reservationTimeout, whereaboutsNamespace);
        synchronized (lock) {
            c.state = state;
            c.adoption = adoption;
            for (HoldBook.Hold h : book.all()) {
                c.book.add(h);
            }
        }
        return c;
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
}
