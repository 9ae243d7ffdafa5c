package dev.railyard.scheduler.ipam;

import java.time.Instant;

/**
 * A hold read back from the cluster: the {@code railyard.dev/address-hold} annotation ({@link HoldAnnotation}) of a
 * pod that is not bound yet. A restarted replica, or a new leader, adopts it as it stands (it was promised, so it is
 * not checked against the pool again) until {@code until}, until the annotation goes, or until the pod is bound
 * (the bound pod then counts itself, docs/adr/0005).
 *
 * @param placement the pod, its networks (from its own multus annotation) and the node the hold names
 * @param uid       the pod's UID, which the annotation names
 * @param origin    the moment that took it
 * @param since     when it was taken
 * @param until     when it expires
 */
public record PersistedHold(PodPlacement placement, String uid, HoldOrigin origin, Instant since, Instant until) {
    public PersistedHold {
        if (placement == null || uid == null || origin == null || since == null || until == null) {
            throw new IllegalArgumentException("a persisted hold needs every field");
        }
    }

    /** @return {@code namespace/name} */
    public String podRef() {
        return placement.podRef();
    }
}
