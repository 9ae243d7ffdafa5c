package dev.railyard.scheduler.ipam;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What changed in the pods between two {@link IpamSnapshot}s of one source (the cluster state): lets the ledger
 * update what it worked out from the earlier snapshot's pods instead of walking every pod again, so a pod that comes,
 * goes or is bound costs the pools it draws from, not the cluster (docs/adr/0020, addendum of 2026-12-03 "pod
 * changes"). The ledger uses it only when what it carries was made from exactly {@code livePodsBefore} or
 * {@code boundPodsBefore} (compared by identity); otherwise it counts from the snapshot's lists as before.
 *
 * @param livePodsBefore  the earlier snapshot's {@link IpamSnapshot#livePods()} instance
 * @param boundPodsBefore the earlier snapshot's {@link IpamSnapshot#boundPods()} instance
 * @param liveChanged     {@code <namespace>/<name>} of every pod that came or went since (more is allowed: a key
 *                        listed whose pod did neither costs a lookup)
 * @param boundBefore     pod key → its placement in {@code boundPodsBefore}, for every pod whose placement changed,
 *                        appeared or disappeared since (absent: it had none)
 * @param boundAfter      pod key → its placement in the new snapshot's bound pods, for the same pods (absent: none)
 */
public record PodChanges(Set<String> livePodsBefore, List<PodPlacement> boundPodsBefore, Set<String> liveChanged,
                         Map<String, PodPlacement> boundBefore, Map<String, PodPlacement> boundAfter) {
    public PodChanges {
        if (livePodsBefore == null || boundPodsBefore == null) {
            throw new IllegalArgumentException("a pod change names the snapshot it follows");
        }
        liveChanged = Set.copyOf(liveChanged);
        boundBefore = Map.copyOf(boundBefore);
        boundAfter = Map.copyOf(boundAfter);
    }

    /** @return the keys of the pods whose placement changed, appeared or disappeared */
    public Set<String> boundChanged() {
        java.util.Set<String> keys = new java.util.HashSet<>(boundBefore.keySet());
        keys.addAll(boundAfter.keySet());
        return keys;
    }
}
