package dev.railyard.scheduler.protocol;

import java.util.Objects;

/**
 * A pod named by namespace, name and UID: what kube-scheduler's bind verb carries (ExtenderBindingArgs
 * {@code PodNamespace}, {@code PodName}, {@code PodUID}).
 *
 * @param namespace pod namespace, never null
 * @param name      pod name, never null
 * @param uid       pod UID; empty when the request did not carry one
 */
public record PodRef(String namespace, String name, String uid) {
    public PodRef {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
        uid = uid == null ? "" : uid;
    }

    /**
     * {@code namespace/name}, the way kubectl and the schedulers' logs name a pod; control characters escaped
     * ({@link dev.railyard.scheduler.input.LogText}), which changes nothing for a name Kubernetes admits.
     */
    @Override
    public String toString() {
        return dev.railyard.scheduler.input.LogText.escape(namespace + "/" + name);
    }
}
