package dev.railyard.scheduler.ipam;

import java.time.Duration;

/**
 * One pod to hold addresses for ({@link AddressPools#hold}).
 *
 * @param placement the pod, its networks and the node it goes to (null node only for networks without node slices)
 * @param uid       the pod's {@code metadata.uid}, empty when unknown (a plan being explained)
 * @param origin    the scheduler moment taking the hold
 * @param ttl       how long the hold lives at most; positive
 */
public record HoldRequest(PodPlacement placement, String uid, HoldOrigin origin, Duration ttl) {
    public HoldRequest {
        if (placement == null || origin == null || ttl == null || ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("a hold request needs a placement, an origin and a positive ttl");
        }
        uid = uid == null ? "" : uid;
    }

    /** @return {@code namespace/name} */
    public String podRef() {
        return placement.podRef();
    }
}
