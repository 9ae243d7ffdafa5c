package dev.railyard.scheduler.ipam;

import dev.railyard.api.whereabouts.IPAllocation;
import dev.railyard.api.whereabouts.IPPool;
import inet.ipaddr.IPAddress;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One {@link IPPool} with its {@code spec.allocations} decoded to addresses, as whereabouts reads it
 * ({@code toIPReservationList} in {@code pkg/storage/kubernetes/ipam.go}): each key is a decimal offset parsed as a
 * signed 64-bit integer and added to the IP part of {@code spec.range} <em>as written</em>.
 *
 * <p>Problems are split in two. {@link #error()}: the pool cannot be read (unparsable {@code spec.range}, a key that is
 * not a non-negative decimal number); whereabouts would silently drop such an entry on its next write, so Railyard
 * refuses pods on the pool instead of guessing. {@link #inconsistencies()}: the pool reads but is suspicious (one
 * podref and interface holding several addresses, an offset outside the range); the addresses still count as used.
 */
final class DecodedPool {
    private static final Pattern GO_INT64 = Pattern.compile("[+-]?[0-9]+");
    private static final BigInteger MAX_UINT32 = BigInteger.valueOf(0xFFFF_FFFFL);

    /**
     * One decoded allocation.
     *
     * @param offset  the key
     * @param address the address, or null when the offset leaves the address family (whereabouts gets no address)
     * @param podref  owner {@code ns/name}, empty when missing
     * @param ifname  owner interface, empty when missing
     * @param id      container ID, empty when missing
     * @param text    the address as whereabouts and reservations write it ({@link AddressText#format}), or null
     */
    record Allocation(String offset, IPAddress address, String podref, String ifname, String id, String text) {
        Allocation(String offset, IPAddress address, String podref, String ifname, String id) {
            this(offset, address, podref, ifname, id, address == null ? null : AddressText.format(address));
        }

        String describe() {
            return (address == null ? "offset " + offset : text) + " ("
                    + (podref.isEmpty() ? "no podref" : podref) + (ifname.isEmpty() ? "" : " " + ifname) + ")";
        }
    }

    private final String namespace;
    private final String name;
    private final String range;
    private final List<Allocation> allocations;
    private final String error;
    private final List<String> inconsistencies;
    private final Map<String, List<Allocation>> byPodref;

    private DecodedPool(String namespace, String name, String range, List<Allocation> allocations, String error,
                        List<String> inconsistencies) {
        this.namespace = namespace;
        this.name = name;
        this.range = range;
        this.allocations = List.copyOf(allocations);
        this.error = error;
        this.inconsistencies = List.copyOf(inconsistencies);
        Map<String, List<Allocation>> index = new HashMap<>();
        for (Allocation a : this.allocations) {
            index.computeIfAbsent(a.podref(), k -> new ArrayList<>()).add(a);
        }
        this.byPodref = index;
    }

    static DecodedPool decode(IPPool pool) {
        return decode(pool, null);
    }

    /**
     * @param previous the pool decoded from an earlier version of the same object, or null: an allocation it decoded
     *                 under the same range, with the same offset and owner, is taken from it rather than worked out
     *                 again (whereabouts rewrites the whole pool to add or free one address)
     * @return what {@link #decode(IPPool)} returns
     */
    static DecodedPool decode(IPPool pool, DecodedPool previous) {
        String ns = pool.getMetadata() == null ? "" : pool.getMetadata().getNamespace();
        String name = pool.getMetadata() == null ? "" : pool.getMetadata().getName();
        String range = pool.getSpec() == null ? null : pool.getSpec().range();
        String where = "IPPool " + ns + "/" + name;
        AddressText.Cidr cidr = range == null ? null : AddressText.parseCidr(range);
        if (cidr == null) {
            return new DecodedPool(ns, name, range, List.of(), where + ": spec.range '" + range
                    + "' is not a CIDR (whereabouts fails every allocation on this pool)", List.of());
        }
        List<Allocation> out = new ArrayList<>();
        List<String> inconsistent = new ArrayList<>();
        Map<String, Allocation> before = previous == null || previous.error != null
                || !range.equals(previous.range) ? Map.of() : previous.byOffset();
        for (Map.Entry<String, IPAllocation> e : pool.getSpec().allocations().entrySet()) {
            String key = e.getKey();
            IPAllocation a = e.getValue();
            String podref = a == null || a.podref() == null ? "" : a.podref();
            String ifname = a == null || a.ifname() == null ? "" : a.ifname();
            String id = a == null || a.id() == null ? "" : a.id();
            Allocation decoded = key == null ? null : before.get(key);
            if (decoded == null || !decoded.podref().equals(podref) || !decoded.ifname().equals(ifname)
                    || !decoded.id().equals(id)) {
                if (key == null || !GO_INT64.matcher(key).matches()) {
                    return new DecodedPool(ns, name, range, List.of(), where + ": allocation key '" + key
                            + "' is not a decimal offset (whereabouts ignores the entry and drops it on its next "
                            + "write)", List.of());
                }
                BigInteger offset = new BigInteger(key);
                if (offset.bitLength() > 63 || offset.signum() < 0) {
                    return new DecodedPool(ns, name, range, List.of(), where + ": allocation key '" + key
                            + "' is " + (offset.signum() < 0 ? "negative" : "beyond a signed 64-bit offset")
                            + " (whereabouts cannot decode it)", List.of());
                }
                IPAddress address = null;
                // IPAddOffset: an IPv4 offset >= MaxUint32 yields no address (pkg/iphelpers/iphelpers.go)
                if (!(cidr.ipv4() && offset.compareTo(MAX_UINT32) >= 0)) {
                    address = AddressText.add(cidr.written(), offset);
                }
                decoded = new Allocation(key, address, podref, ifname, id);
            }
            if (decoded.address() == null || !cidr.contains(decoded.address())) {
                inconsistent.add("allocation " + key + " lies outside " + range);
            }
            if (decoded.podref().isEmpty()) {
                inconsistent.add("allocation " + key + " has no podref");
            }
            out.add(decoded);
        }
        Map<String, List<Allocation>> byOwner = new LinkedHashMap<>();
        for (Allocation a : out) {
            if (!a.podref().isEmpty()) {
                byOwner.computeIfAbsent(a.podref() + "\u0000" + a.ifname(), k -> new ArrayList<>()).add(a);
            }
        }
        for (List<Allocation> same : byOwner.values()) {
            if (same.size() > 1) {
                inconsistent.add("podref " + same.get(0).podref()
                        + (same.get(0).ifname().isEmpty() ? "" : " " + same.get(0).ifname()) + " holds "
                        + same.size() + " addresses (" + String.join(", ", same.stream()
                        .map(x -> x.address() == null ? "offset " + x.offset() : AddressText.format(x.address()))
                        .toList()) + "): one is stale, all count as used");
            }
        }
        return new DecodedPool(ns, name, range, out, null, inconsistent);
    }

    /** @return the allocations by offset, made on first use */
    private Map<String, Allocation> byOffset() {
        Map<String, Allocation> m = byOffset;
        if (m == null) {
            m = new HashMap<>();
            for (Allocation a : allocations) {
                m.put(a.offset(), a);
            }
            byOffset = m;
        }
        return m;
    }

    private volatile Map<String, Allocation> byOffset;

    String namespace() {
        return namespace;
    }

    String name() {
        return name;
    }

    /** @return {@code spec.range} as written */
    String range() {
        return range;
    }

    List<Allocation> allocations() {
        return allocations;
    }

    /** @return why the pool cannot be read, or null */
    String error() {
        return error;
    }

    List<String> inconsistencies() {
        return inconsistencies;
    }

    /** @return the allocations held by this podref, in key order */
    List<Allocation> allocationsOf(String podref) {
        return byPodref.getOrDefault(podref, List.of());
    }

    /** @return the allocations whose podref names no live pod, described ({@code 10.3.8.152 (pcrf/pcrf-sm-0)}) */
    List<String> stale(Set<String> livePods) {
        return stale(livePods, null);
    }

    /**
     * {@link #stale(Set)}, taking the last answer over when {@code changes} leads from the live pods it was made from
     * to these and none of the pods that came or went holds an allocation here (a pod's start or end then costs a
     * lookup per pod changed, not a walk over the allocations).
     *
     * @param changes the pods changed since the last snapshot, or null
     */
    List<String> stale(Set<String> livePods, PodChanges changes) {
        Stale memo = lastStale;
        if (memo != null && memo.livePods() == livePods) {
            return memo.stale();
        }
        if (memo != null && changes != null && memo.livePods() == changes.livePodsBefore()
                && noneHoldsHere(changes.liveChanged())) {
            lastStale = new Stale(livePods, memo.stale());
            return memo.stale();
        }
        List<String> out = new ArrayList<>();
        for (Allocation a : allocations) {
            if (!a.podref().isEmpty() && !livePods.contains(a.podref())) {
                out.add(a.describe());
            }
        }
        List<String> stale = List.copyOf(out);
        lastStale = new Stale(livePods, stale);
        return stale;
    }

    /** @return true when no pod of {@code podrefs} holds an allocation here (one lookup each) */
    private boolean noneHoldsHere(Set<String> podrefs) {
        for (String p : podrefs) {
            if (byPodref.containsKey(p)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The last {@link #stale} answer and the set it was made from: snapshots share their live pods' set (immutable)
     * while no pod comes or goes, so the pools an address change did not touch are not walked again.
     */
    private record Stale(Set<String> livePods, List<String> stale) {
    }

    private volatile Stale lastStale;
}
