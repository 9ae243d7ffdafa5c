package dev.railyard.scheduler.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;

/**
 * What the cluster state keeps of an object: Pods become {@link PodView}s, Nodes {@link NodeFields}, NodeTopologies
 * {@link TopologyFields}; the small kinds (PodGroups, HyperNodes, networks and pools) are kept in generic form
 * without {@code metadata.managedFields} and {@code metadata.resourceVersion}, so an update that changes neither
 * content nor anything Railyard reads compares equal to the object held.
 */
final class Compact {
    private Compact() {
    }

    /**
     * @param withStatus false to leave {@code status} out too (PodGroups and HyperNodes: Railyard reads their spec and
     *                   metadata only, and Volcano rewrites a PodGroup's status whenever one of its pods changes)
     * @return a shallow copy without {@code managedFields} and {@code resourceVersion} (the fields are shared)
     */
    static GenericKubernetesResource strip(GenericKubernetesResource r, boolean withStatus) {
        GenericKubernetesResource out = new GenericKubernetesResource();
        out.setApiVersion(r.getApiVersion());
        out.setKind(r.getKind());
        ObjectMeta m = r.getMetadata();
        if (m != null) {
            out.setMetadata(new ObjectMetaBuilder(m).withManagedFields((java.util.List<
                    io.fabric8.kubernetes.api.model.ManagedFieldsEntry>) null).withResourceVersion(null).build());
        }
        r.getAdditionalProperties().forEach((k, v) -> {
            if (withStatus || !"status".equals(k)) {
                out.setAdditionalProperty(k, v);
            }
        });
        return out;
    }

    /**
     * @return the pod's record
     * @throws IllegalArgumentException as {@link PodView#of}
     */
    static PodView pod(GenericKubernetesResource r) {
        return PodView.of(r);
    }
}
