package dev.railyard.scheduler.explain;

import dev.railyard.api.volcano.PodGroup;
import dev.railyard.scheduler.cluster.ClusterView;
import dev.railyard.scheduler.cluster.PodView;
import dev.railyard.scheduler.cluster.WatchedKind;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReference;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds the PodGroup {@code railyard explain job NS/NAME} means when NAME is a Volcano Job, and the names to suggest
 * when nothing matches. Reads the view only; stateless.
 */
final class PodGroupLookup {
    private PodGroupLookup() {
    }

    /** @return {@code " (PodGroups in NS: a, b, ...)"}, at most ten names, for a not-found message */
    static String namesIn(ClusterView view, String ns) {
        List<String> names = new ArrayList<>();
        for (PodGroup g : view.podGroups().values()) {
            if (g.namespace().equals(ns)) {
                names.add(g.name());
            }
        }
        for (PodGroup g : view.coschedulingGroups().values()) {
            if (g.namespace().equals(ns) && !names.contains(g.name())) {
                names.add(g.name());
            }
        }
        return names.isEmpty() ? " (no PodGroups in namespace " + ns + ")"
                : " (PodGroups in " + ns + ": " + String.join(", ", names.subList(0, Math.min(10, names.size())))
                + (names.size() > 10 ? ", ..." : "") + ")";
    }

    /** @return the PodGroup owned by the Volcano Job {@code ns/name}, or named by its pods, or null */
    static PodGroup ofVolcanoJob(ClusterView view, String ns, String name) {
        for (GenericKubernetesResource r : view.objects().of(WatchedKind.POD_GROUP)) {
            if (r.getMetadata() == null || !ns.equals(r.getMetadata().getNamespace())) {
                continue;
            }
            for (OwnerReference o : r.getMetadata().getOwnerReferences() == null ? List.<OwnerReference>of()
                    : r.getMetadata().getOwnerReferences()) {
                if ("Job".equals(o.getKind()) && name.equals(o.getName())
                        && o.getApiVersion() != null && o.getApiVersion().startsWith("batch.volcano.sh/")) {
                    PodGroup pg = view.podGroup(ns + "/" + r.getMetadata().getName());
                    if (pg != null) {
                        return pg;
                    }
                }
            }
        }
        for (PodView pod : view.pods().values()) {
            if (pod.namespace().equals(ns) && name.equals(pod.annotations().get(PodView.JOB_NAME_ANNOTATION))) {
                PodGroup pg = view.podGroupOf(pod);
                if (pg != null) {
                    return pg;
                }
            }
        }
        return null;
    }

    /** @return the name of the Job that owns the PodGroup (owner reference of kind Job), or null */
    static String volcanoJobOwner(ClusterView view, PodGroup pg) {
        for (GenericKubernetesResource r : view.objects().of(WatchedKind.POD_GROUP)) {
            if (r.getMetadata() != null && pg.name().equals(r.getMetadata().getName())
                    && pg.namespace().equals(r.getMetadata().getNamespace())
                    && r.getMetadata().getOwnerReferences() != null) {
                for (OwnerReference o : r.getMetadata().getOwnerReferences()) {
                    if ("Job".equals(o.getKind())) {
                        return o.getName();
                    }
                }
            }
        }
        return null;
    }
}
