package dev.railyard.scheduler.ipam;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * The ledger's holds, indexed by pool and by pod, with their expiry queue and the releases not yet seen in the
 * cluster. Not thread-safe: the ledger's lock guards it.
 */
final class HoldBook {
    /**
     * One address held for a pod.
     *
     * @param podRef      {@code ns/name}
     * @param uid         the pod's UID, empty when unknown
     * @param pool        IPPool name
     * @param ifname      pod interface the address is for
     * @param node        the node, or null
     * @param origin      who took it
     * @param since       when
     * @param until       expiry
     * @param preexisting the pool's addresses already allocated to this podref when the hold was made
     * @param adopted     read back from the pod's annotation (not taken by this replica): dropped when the cluster
     *                    no longer shows it
     */
    record Hold(String podRef, String uid, String pool, String ifname, String node, HoldOrigin origin, Instant since,
                Instant until, Set<String> preexisting, boolean adopted) {
        /** @return the key of the persisted form of this hold ({@code podRef|since}) */
        String persistedKey() {
            return HoldBook.persistedKey(podRef, since);
        }
    }

    private final Map<String, List<Hold>> byPool = new HashMap<>();
    private final Map<String, List<Hold>> byPod = new HashMap<>();
    private final PriorityQueue<Hold> byExpiry = new PriorityQueue<>(Comparator.comparing(Hold::until));
    /** Holds released here whose annotation the cluster may still show ({@link Hold#persistedKey()} → until). */
    private final Map<String, Instant> released = new HashMap<>();

    /** Earliest expiry in {@link #released}, or null when it is empty (so expiring them is not a scan per call). */
    private Instant nextReleaseExpiry;
    /** Counts {@link #add} and {@link #drop}: equal counts mean the same holds in every pool. */
    private long changes;

    static String persistedKey(String podRef, Instant since) {
        return podRef + "|" + since;
    }

    /** @return how many holds were added or dropped so far; unchanged means {@link #inFlight} answers the same */
    long changes() {
        return changes;
    }

    void add(Hold h) {
        changes++;
        byPool.computeIfAbsent(h.pool(), k -> new ArrayList<>()).add(h);
        byPod.computeIfAbsent(h.podRef(), k -> new ArrayList<>()).add(h);
        byExpiry.add(h);
    }

    void drop(Hold h) {
        changes++;
        remove(byPool, h.pool(), h);
        remove(byPod, h.podRef(), h);
    }

    private static void remove(Map<String, List<Hold>> index, String key, Hold h) {
        List<Hold> l = index.get(key);
        if (l != null) {
            l.removeIf(x -> x == h);
            if (l.isEmpty()) {
                index.remove(key);
            }
        }
    }

    private boolean live(Hold h) {
        List<Hold> l = byPod.get(h.podRef());
        if (l == null) {
            return false;
        }
        for (Hold x : l) {
            if (x == h) {
                return true;
            }
        }
        return false;
    }

    /**
     * Drops every hold of the pod.
     *
     * @param remember true to remember the releases, so the pod's annotation, still in the cluster until the
     *                 caller removes it, is not adopted back
     * @return the holds dropped
     */
    List<Hold> release(String podRef, boolean remember) {
        List<Hold> l = byPod.get(podRef);
        if (l == null) {
            return List.of();
        }
        List<Hold> copy = List.copyOf(l);
        for (Hold h : copy) {
            drop(h);
            if (remember) {
                released.put(h.persistedKey(), h.until());
                if (nextReleaseExpiry == null || h.until().isBefore(nextReleaseExpiry)) {
                    nextReleaseExpiry = h.until();
                }
            }
        }
        return copy;
    }

    /** Drops holds past their expiry. */
    void expire(Instant now) {
        while (!byExpiry.isEmpty() && !byExpiry.peek().until().isAfter(now)) {
            Hold h = byExpiry.poll();
            if (live(h)) {
                drop(h);
            }
        }
        if (nextReleaseExpiry != null && !nextReleaseExpiry.isAfter(now)) {
            released.values().removeIf(until -> !until.isAfter(now));
            nextReleaseExpiry = released.values().stream().min(Comparator.naturalOrder()).orElse(null);
        }
        if (byExpiry.size() > 64 && byExpiry.size() > 4 * size()) {
            // lazily deleted entries pile up when holds end by release or settlement: rebuild the queue
            List<Hold> liveHolds = all();
            byExpiry.clear();
            byExpiry.addAll(liveHolds);
        }
    }

    /** @return true when the pod's persisted hold of this key was released here */
    boolean released(String persistedKey) {
        return released.containsKey(persistedKey);
    }

    /** Forgets releases the cluster no longer shows: their annotation is gone. */
    void forgetReleases(Set<String> persistedKeysShown) {
        released.keySet().removeIf(k -> !persistedKeysShown.contains(k));
    }

    List<Hold> ofPod(String podRef) {
        return byPod.getOrDefault(podRef, List.of());
    }

    Collection<Hold> inPool(String pool) {
        return byPool.getOrDefault(pool, List.of());
    }

    List<Hold> all() {
        List<Hold> out = new ArrayList<>();
        byPod.values().forEach(out::addAll);
        return out;
    }

    int size() {
        int n = 0;
        for (List<Hold> l : byPod.values()) {
            n += l.size();
        }
        return n;
    }

    /**
     * Addresses of the pools promised but not yet recorded: the holds, plus the snapshot's bound pods whereabouts has
     * not given their address yet ({@link LedgerState#unrecorded}), each pod interface counted once when both apply,
     * in each of the view's member pools. Pods in {@code exceptPods} (being judged or held anew) are left out.
     */
    long inFlight(LedgerState s, RangeView view, Set<String> exceptPods) {
        long n = 0;
        List<String> members = view.memberPools();
        for (int i = 0; i < members.size(); i++) {
            String pool = members.get(i);
            Collection<Hold> q = inPool(pool);
            Set<String> bound = s.unrecorded(pool, view.memberNode(i));
            Set<String> held = bound.isEmpty() || q.isEmpty() ? Set.of() : new HashSet<>();
            for (Hold h : q) {
                if (exceptPods.isEmpty() || !exceptPods.contains(h.podRef())) {
                    n++;
                    if (!bound.isEmpty()) {
                        held.add(LedgerState.slot(h.podRef(), h.ifname()));
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
}
