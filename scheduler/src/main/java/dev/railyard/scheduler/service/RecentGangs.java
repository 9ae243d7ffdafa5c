package dev.railyard.scheduler.service;

import dev.railyard.api.volcano.PodGroup;
import dev.railyard.scheduler.cluster.ClusterView;

import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;

/**
 * The gangs a scheduler asked about lately (a Filter, predicate or Score for one of their pods), so a new cluster
 * view can be prepared for them before their next call ({@link EnginePlacementDecisions#prepare}). Thread-safe.
 *
 * <p>A gang counts as asked about for {@link #FRESH_NANOS} (30 s; vc-scheduler opens a session every second and asks
 * again about every gang it is still placing). At most {@link #MAX} gangs are kept: once full, a gang not kept is
 * not added until older ones age out. Only PodGroups found in the cluster view are recorded, so a caller naming
 * made-up gangs adds nothing. A call records at most once a second per gang: the predicate storm's 16 workers read
 * one map entry and write nothing.
 */
final class RecentGangs {
    /** How long a gang counts as asked about after its last call. */
    static final long FRESH_NANOS = 30_000_000_000L;
    /** How many gangs are kept, at most. */
    static final int MAX = 256;
    private static final long REWRITE_NANOS = 1_000_000_000L;

    /** A PodGroup by convention, namespace and name: the map's key, made without building a string per call. */
    record Id(PodGroup.Convention convention, String namespace, String name) {
    }

    /** One gang asked about: its PodGroup's identity and when it was last asked. */
    record Asked(Id id, long atNanos) {
        /** @return which API its PodGroup came from */
        PodGroup.Convention convention() {
            return id.convention();
        }

        /** @return its PodGroup's {@code namespace/name} */
        String key() {
            return id.namespace() + "/" + id.name();
        }

        /** @return the PodGroup in {@code view}, or null when it is gone */
        PodGroup in(ClusterView view) {
            return convention() == PodGroup.Convention.COSCHEDULING ? view.coschedulingGroup(key())
                    : view.podGroup(key());
        }
    }

    private final ConcurrentMap<Id, Asked> asked = new ConcurrentHashMap<>();
    private final LongSupplier nanos;

    RecentGangs() {
        this(System::nanoTime);
    }

    /** @param nanos a monotonic clock in nanoseconds (tests pass their own) */
    RecentGangs(LongSupplier nanos) {
        this.nanos = nanos;
    }

    /** A call for a pod of {@code group}, a PodGroup of the cluster view. */
    void asked(PodGroup group) {
        Id id = new Id(group.convention(), group.namespace(), group.name());
        long now = nanos.getAsLong();
        Asked last = asked.get(id);
        if (last != null && now - last.atNanos() < REWRITE_NANOS) {
            return;
        }
        if (last == null && asked.size() >= MAX) {
            forgetStale(now);
            if (asked.size() >= MAX) {
                return;
            }
        }
        asked.put(id, new Asked(id, now));
    }

    /**
     * @param max how many to return, at most
     * @return the gangs asked about in the last {@link #FRESH_NANOS}, most recent first; older ones are forgotten
     */
    List<Asked> recent(int max) {
        long now = nanos.getAsLong();
        forgetStale(now);
        return asked.values().stream().sorted(Comparator.comparingLong(Asked::atNanos).reversed()).limit(max)
                .toList();
    }

    /** Forgets a gang (its PodGroup is gone, or none of its pods is left to place). */
    void forget(Asked a) {
        asked.remove(a.id(), a);
    }

    private void forgetStale(long now) {
        asked.values().removeIf(a -> now - a.atNanos() >= FRESH_NANOS);
    }
}
