package dev.railyard.scheduler.cluster;

import dev.railyard.scheduler.ipam.PodPlacement;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The bound pods' address records by pod key, kept in key order in two flat lists, so that the list handed to the
 * pool ledger with every snapshot is one array copy (a few microseconds at 77,000 pods) rather than a walk of a tree
 * map, and a pod's start or end costs a binary search and a shift. Not thread-safe: the state's lock guards it.
 */
final class SortedPlacements {
    private final ArrayList<String> keys = new ArrayList<>();
    private final ArrayList<PodPlacement> values = new ArrayList<>();
    private List<PodPlacement> published;

    /** @return the record of the pod with this key, or null */
    PodPlacement get(String key) {
        int i = Collections.binarySearch(keys, key);
        return i >= 0 ? values.get(i) : null;
    }

    /** Sets the pod's record (the list handed out next is a new one). */
    void put(String key, PodPlacement p) {
        int i = Collections.binarySearch(keys, key);
        if (i >= 0) {
            values.set(i, p);
        } else {
            keys.add(-i - 1, key);
            values.add(-i - 1, p);
        }
        published = null;
    }

    /** @return the record removed, or null when the pod had none */
    PodPlacement remove(String key) {
        int i = Collections.binarySearch(keys, key);
        if (i < 0) {
            return null;
        }
        keys.remove(i);
        published = null;
        return values.remove(i);
    }

    /** @return every record in key order; the same immutable list until a record is put or removed */
    List<PodPlacement> list() {
        if (published == null) {
            published = List.copyOf(values);
        }
        return published;
    }
}
