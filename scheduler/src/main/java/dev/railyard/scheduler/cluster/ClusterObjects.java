package dev.railyard.scheduler.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An immutable snapshot of every watched object, taken once per request (the scheduling framework's "cycle works on
 * one snapshot"). Objects are fabric8's generic form, so a CRD's schema drift upstream never breaks the cache; the
 * converters into engine and ledger records read the fields they need and report what they cannot read.
 *
 * @param takenAt  when the snapshot was taken
 * @param version  a counter that changes whenever any informer saw an event (equal versions mean equal contents)
 * @param objects  objects per watched kind; a kind whose CRD is not installed maps to an empty list
 * @param disabled kinds whose CRD is not installed (their features are off)
 * @param synced   true when every started informer has completed its first list
 */
public record ClusterObjects(Instant takenAt, long version, Map<WatchedKind, List<GenericKubernetesResource>> objects,
                             Set<WatchedKind> disabled, boolean synced) {
    public ClusterObjects {
        objects = Map.copyOf(objects);
        disabled = Set.copyOf(disabled);
    }

    /** @return the objects of one kind, empty when none or not installed */
    public List<GenericKubernetesResource> of(WatchedKind kind) {
        return objects.getOrDefault(kind, List.of());
    }

    /** @return {@code namespace/name} of an object, or its name when cluster-scoped */
    public static String key(HasMetadata object) {
        String ns = object.getMetadata().getNamespace();
        return ns == null || ns.isEmpty() ? object.getMetadata().getName() : ns + "/" + object.getMetadata().getName();
    }
}
