package dev.railyard.scheduler.cluster;

import dev.railyard.api.volcano.PodGroup;
import org.pcollections.HashTreePMap;
import org.pcollections.HashTreePSet;
import org.pcollections.PMap;
import org.pcollections.PSet;

import java.util.Map;

/**
 * The gang-member index: PodGroup {@code namespace/name} → keys of the pods naming it, one index per convention
 * (Volcano's {@code scheduling.k8s.io/group-name} annotation; the coscheduling {@code scheduling.x-k8s.io/pod-group}
 * label on pods without Volcano's annotation, as {@link ClusterView#members} defines membership). Maintained on pod
 * events in O(log n); {@link #snapshot()} is O(1) (persistent maps). Not thread-safe: the state's lock guards it.
 */
final class Gangs {
    private PMap<String, PSet<String>> volcano = HashTreePMap.empty();
    private PMap<String, PSet<String>> coscheduling = HashTreePMap.empty();

    /**
     * Immutable members indexes.
     *
     * @param volcano      Volcano PodGroup key → member pod keys
     * @param coscheduling coscheduling PodGroup key → member pod keys
     */
    record Index(PMap<String, PSet<String>> volcano, PMap<String, PSet<String>> coscheduling) {
        static final Index EMPTY = new Index(HashTreePMap.empty(), HashTreePMap.empty());

        /** @return the index of a convention */
        Map<String, PSet<String>> byGroup(PodGroup.Convention convention) {
            return convention == PodGroup.Convention.COSCHEDULING ? coscheduling : volcano;
        }
    }

    void add(PodView p) {
        String v = p.podGroupName();
        if (v != null) {
            volcano = plus(volcano, p.namespace() + "/" + v, p.key());
            return;
        }
        String c = p.coschedulingGroupName();
        if (c != null) {
            coscheduling = plus(coscheduling, p.namespace() + "/" + c, p.key());
        }
    }

    void remove(PodView p) {
        String v = p.podGroupName();
        if (v != null) {
            volcano = minus(volcano, p.namespace() + "/" + v, p.key());
            return;
        }
        String c = p.coschedulingGroupName();
        if (c != null) {
            coscheduling = minus(coscheduling, p.namespace() + "/" + c, p.key());
        }
    }

    Index snapshot() {
        return new Index(volcano, coscheduling);
    }

    private static PMap<String, PSet<String>> plus(PMap<String, PSet<String>> m, String group, String pod) {
        PSet<String> s = m.get(group);
        return m.plus(group, (s == null ? HashTreePSet.<String>empty() : s).plus(pod));
    }

    private static PMap<String, PSet<String>> minus(PMap<String, PSet<String>> m, String group, String pod) {
        PSet<String> s = m.get(group);
        if (s == null) {
            return m;
        }
        PSet<String> less = s.minus(pod);
        return less.isEmpty() ? m.minus(group) : m.plus(group, less);
    }
}
