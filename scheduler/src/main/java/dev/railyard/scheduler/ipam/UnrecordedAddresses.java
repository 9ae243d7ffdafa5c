package dev.railyard.scheduler.ipam;

import dev.railyard.api.whereabouts.IPPool;
import dev.railyard.api.whereabouts.NodeSliceAllocation;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.pcollections.HashTreePMap;
import org.pcollections.PMap;

/**
 * One {@link LedgerState}'s bound pods whose address whereabouts has not recorded yet, by pool: they count as taken
 * until the pool lists them (docs/adr/0005). Filled lazily and from several threads (each value is a pure function
 * of the state), reusing what the state's predecessors found while the inputs are the same objects
 * ({@link CarriedCounts}): a node's slice pool from that node's pods, a whole pool from the pods that draw from it.
 */
final class UnrecordedAddresses {
    private final LedgerState s;
    private volatile Map<String, Set<String>> all;
    private final Map<String, Set<String>> onNode = new ConcurrentHashMap<>();
    private final Map<String, Set<String>> inPool = new ConcurrentHashMap<>();
    private volatile Map<String, List<PodPlacement>> boundByNode;
    private volatile CarriedCounts.Drawers drawers;

    UnrecordedAddresses(LedgerState s) {
        this.s = s;
    }

    /**
     * The snapshot's bound pods whose address whereabouts has not recorded yet: IPPool name →
     * {@link LedgerState#slot} of each pod and interface that will draw one from it. A pod counts as recorded in a
     * pool when the pool lists an allocation for its podref on that interface (or without an interface name, as older
     * whereabouts writes): whereabouts hands that address back rather than a second one. Networks that fail to
     * resolve, or are not whereabouts, are left out (their checks report them). Computed once per snapshot.
     */
    Map<String, Set<String>> byPool() {
        Map<String, Set<String>> u = all;
        if (u != null) {
            return u;
        }
        Map<String, Set<String>> out = new HashMap<>();
        for (PodPlacement p : s.snapshot.boundPods()) {
            for (NetworkSelection sel : p.request().selections()) {
                NetworkResolution res = s.resolve(sel);
                if (res.failure() != null || res.ipam() == null) {
                    continue;
                }
                for (int i = 0; i < res.ipam().ranges().size(); i++) {
                    RecordingPool rp = recordingPool(res, i, p.node());
                    if (rp != null && !LedgerState.recorded(rp.pool(), p.podRef(), sel.podInterface())) {
                        out.computeIfAbsent(rp.name(), k -> new HashSet<>())
                                .add(LedgerState.slot(p.podRef(), sel.podInterface()));
                    }
                }
            }
        }
        u = Map.copyOf(out);
        all = u;
        return u;
    }

    /**
     * The {@link #byPool} entry of one pool. For a node's slice pool ({@code node} not null) it is made from the pods
     * bound to that node alone, once per snapshot and pool, so a check on one node after an address change does not
     * look at every bound pod of the cluster (its pool's name holds the node's, so no pod of another node draws from
     * it); and it is the last snapshot's while the node's slices, pool objects and pods are the same. For a whole pool
     * ({@code node} null) it is made from the pods that draw from that pool alone, and is the last snapshot's while
     * those pods and the pool's objects are the same; where some bound pod also uses a node-slice network, from the
     * whole map. A node pool named like a whole pool (whereabouts would share the object) is answered from the whole
     * map too, so the answer does not depend on which was asked first.
     *
     * @param node the node of a node-slice view, or null for a whole pool
     */
    Set<String> of(String pool, String node) {
        Map<String, Set<String>> known = all;
        if (known != null) {
            return known.getOrDefault(pool, Set.of());
        }
        if (node == null) {
            CarriedCounts.Drawers d = drawers();
            return d.anySlice() ? byPool().getOrDefault(pool, Set.of())
                    : inPool.computeIfAbsent(pool, p -> unrecordedInPool(p, d));
        }
        Set<String> onThisNode = onNode(pool, node);
        if (!wholePoolNames().contains(pool)) {
            return onThisNode;
        }
        // a whole pool of the same name (whereabouts would share the object): its pods draw from it too, so the
        // whole map, which counts both, answers (a misconfiguration; the walk is not worth avoiding)
        return byPool().getOrDefault(pool, Set.of());
    }

    /**
     * @return the pool names of every whole-pool (not node-slice) whereabouts network the snapshot's
     *         NetworkAttachmentDefinitions define, from the definitions alone (a handful), made once per snapshot
     */
    private Set<String> wholePoolNames() {
        Set<String> w = wholePools;
        if (w == null) {
            Set<String> out = new HashSet<>();
            for (String nad : s.nadKeys()) {
                String ns = nad.substring(0, nad.indexOf('/'));
                for (NetworkSelection sel : PodNetworksRequest.ofAnnotation(ns, nad).selections()) {
                    NetworkResolution res = s.resolve(sel);
                    if (res.failure() == null && res.ipam() != null && !res.ipam().nodeSliceMode()) {
                        for (IpamRange r : res.ipam().ranges()) {
                            out.add(PoolNames.ipPool(res.ipam().networkName(), null, r.canonical()));
                        }
                    }
                }
            }
            w = Set.copyOf(out);
            wholePools = w;
        }
        return w;
    }

    private volatile Set<String> wholePools;

    /** The unrecorded addresses of a node's slice pool from that node's pods ({@link #of}). */
    private Set<String> onNode(String pool, String node) {
        return onNode.computeIfAbsent(pool + "\n" + node, k -> {
            List<PodPlacement> pods = boundByNode().getOrDefault(node, List.of());
            List<IPPool> sources = s.poolObjects(pool);
            CarriedCounts.Unrecorded before = s.nodeCounts().unrecorded(k);
            if (before != null && LedgerState.sameInstances(before.sources(), sources) && before.pods().equals(pods)
                    && sameSlices(before.slices(), node)) {
                return before.slots();
            }
            Set<String> out = new HashSet<>();
            Map<String, String> slices = new HashMap<>();
            for (PodPlacement p : pods) {
                for (NetworkSelection sel : p.request().selections()) {
                    NetworkResolution res = s.resolve(sel);
                    if (res.failure() != null || res.ipam() == null || !res.ipam().nodeSliceMode()) {
                        continue;
                    }
                    slices.put(res.ipam().nodeSlicePoolName(), sliceOf(res.ipam().nodeSlicePoolName(), node));
                    for (int i = 0; i < res.ipam().ranges().size(); i++) {
                        RecordingPool rp = recordingPool(res, i, node);
                        if (rp != null && rp.name().equals(pool)
                                && !LedgerState.recorded(rp.pool(), p.podRef(), sel.podInterface())) {
                            out.add(LedgerState.slot(p.podRef(), sel.podInterface()));
                        }
                    }
                }
            }
            Set<String> slots = Set.copyOf(out);
            s.nodeCounts().unrecorded(k, new CarriedCounts.Unrecorded(Collections.unmodifiableMap(slices), pods,
                    sources, slots));
            return slots;
        });
    }

    /**
     * The bound pods that draw from each whole (not node-slice) pool, from their networks alone: the last snapshot's
     * while the bound pods are the same instances (an address change rewrites an IPPool, not the pods), or the last
     * snapshot's updated by the snapshot's {@link PodChanges} when they lead from its pods to these (a pod's start or
     * end then costs the pools it draws from), so that the pools a change did not touch keep their unrecorded
     * addresses without a walk over every pod.
     */
    private CarriedCounts.Drawers drawers() {
        CarriedCounts.Drawers d = drawers;
        if (d != null) {
            return d;
        }
        List<PodPlacement> pods = s.snapshot.boundPods();
        CarriedCounts.Drawers before = s.nodeCounts().drawers();
        if (before != null && LedgerState.sameInstances(before.pods(), pods)) {
            d = before;
        } else {
            d = before == null || before.anySlice() ? null : updated(before, pods, s.snapshot.podChanges());
            if (d == null) {
                d = walked(pods);
            }
            s.nodeCounts().drawers(d);
        }
        drawers = d;
        return d;
    }

    /** Every bound pod's drawers, by whole pool; stops at the first pod of a node-slice network. */
    private CarriedCounts.Drawers walked(List<PodPlacement> pods) {
        // pool → group key → pod → drawers, collected in mutable maps and frozen once
        Map<String, Map<String, Map<String, List<CarriedCounts.Drawer>>>> byPool = new HashMap<>();
        Map<String, CarriedCounts.ChangedDrawer> firsts = new HashMap<>();
        for (PodPlacement p : pods) {
            List<CarriedCounts.ChangedDrawer> drawn = drawersOf(p);
            if (drawn == null) {
                // whole pools are then read from the whole map: no groups needed, the walk stops here
                return new CarriedCounts.Drawers(pods, Map.of(), true);
            }
            for (CarriedCounts.ChangedDrawer c : drawn) {
                firsts.putIfAbsent(c.groupKey(), c);
                byPool.computeIfAbsent(poolOf(c), k -> new LinkedHashMap<>())
                        .computeIfAbsent(c.groupKey(), k -> new HashMap<>())
                        .computeIfAbsent(c.drawer().podRef(), k -> new ArrayList<>()).add(c.drawer());
            }
        }
        Map<String, List<CarriedCounts.DrawerGroup>> groups = new HashMap<>();
        byPool.forEach((pool, g) -> {
            List<CarriedCounts.DrawerGroup> list = new ArrayList<>();
            g.forEach((key, byPod) -> {
                Map<String, List<CarriedCounts.Drawer>> frozen = new HashMap<>();
                byPod.forEach((pod, l) -> frozen.put(pod, List.copyOf(l)));
                CarriedCounts.ChangedDrawer first = firsts.get(key);
                list.add(new CarriedCounts.DrawerGroup(first.res(), first.index(), HashTreePMap.from(frozen)));
            });
            groups.put(pool, List.copyOf(list));
        });
        return new CarriedCounts.Drawers(pods, Map.copyOf(groups), false);
    }

    /**
     * {@code before} with the changed pods' drawers dropped and their new ones added, or null when {@code changes}
     * does not lead from {@code before}'s pods or a changed pod uses a node-slice network. Each group touched shares
     * every other pod's entry with the group before; the pools not touched are shared whole.
     */
    private CarriedCounts.Drawers updated(CarriedCounts.Drawers before, List<PodPlacement> pods,
                                          PodChanges changes) {
        if (changes == null || changes.boundPodsBefore() != before.pods()) {
            return null;
        }
        Map<String, Map<String, List<CarriedCounts.ChangedDrawer>>> changed = new HashMap<>();
        for (String changedKey : changes.boundChanged()) {
            PodPlacement then = changes.boundBefore().get(changedKey);
            PodPlacement now = changes.boundAfter().get(changedKey);
            // drawers are keyed by podref, as the walk keys them (the state's key may differ: an empty namespace)
            String key = then != null ? then.podRef() : now.podRef();
            List<CarriedCounts.ChangedDrawer> old = then == null ? List.of() : drawersOf(then);
            List<CarriedCounts.ChangedDrawer> fresh = now == null ? List.of() : drawersOf(now);
            if (old == null || fresh == null || now != null && !now.podRef().equals(key)) {
                return null;
            }
            for (CarriedCounts.ChangedDrawer c : old) {
                changed.computeIfAbsent(poolOf(c), k -> new HashMap<>()).putIfAbsent(key, new ArrayList<>());
            }
            for (CarriedCounts.ChangedDrawer c : fresh) {
                changed.computeIfAbsent(poolOf(c), k -> new HashMap<>()).computeIfAbsent(key, k -> new ArrayList<>())
                        .add(c);
            }
        }
        Map<String, List<CarriedCounts.DrawerGroup>> byPool = new HashMap<>(before.byPool());
        Map<String, Map<String, List<CarriedCounts.ChangedDrawer>>> frozen = new HashMap<>();
        changed.forEach((pool, byPod) -> {
            Map<String, CarriedCounts.DrawerGroup> groups = new LinkedHashMap<>();
            for (CarriedCounts.DrawerGroup g : before.byPool().getOrDefault(pool, List.of())) {
                groups.put(g.key(), new CarriedCounts.DrawerGroup(g.res(), g.index(),
                        g.byPod().minusAll(byPod.keySet())));
            }
            Map<String, List<CarriedCounts.ChangedDrawer>> now = new HashMap<>();
            byPod.forEach((pod, drawn) -> {
                now.put(pod, List.copyOf(drawn));
                Map<String, List<CarriedCounts.Drawer>> perGroup = new LinkedHashMap<>();
                for (CarriedCounts.ChangedDrawer c : drawn) {
                    groups.putIfAbsent(c.groupKey(), new CarriedCounts.DrawerGroup(c.res(), c.index(),
                            HashTreePMap.empty()));
                    perGroup.computeIfAbsent(c.groupKey(), k -> new ArrayList<>()).add(c.drawer());
                }
                perGroup.forEach((key, l) -> groups.computeIfPresent(key, (k, g) -> new CarriedCounts.DrawerGroup(
                        g.res(), g.index(), g.byPod().plus(pod, List.copyOf(l)))));
            });
            frozen.put(pool, Map.copyOf(now));
            groups.values().removeIf(g -> g.byPod().isEmpty());
            if (groups.isEmpty()) {
                byPool.remove(pool);
            } else {
                byPool.put(pool, List.copyOf(groups.values()));
            }
        });
        return new CarriedCounts.Drawers(pods, Map.copyOf(byPool), false, before.pods(), Map.copyOf(frozen));
    }

    /** @return the whole pool a drawer draws from (whereabouts' IPPool name of its network and range) */
    private static String poolOf(CarriedCounts.ChangedDrawer c) {
        return PoolNames.ipPool(c.res().ipam().networkName(), null, c.res().ipam().ranges().get(c.index()).canonical());
    }

    /**
     * @return the pod's interfaces that draw from whole pools, with the network range of each (networks that fail to
     *         resolve, or are not whereabouts, are left out), or null when one of its networks uses node slices
     */
    private List<CarriedCounts.ChangedDrawer> drawersOf(PodPlacement p) {
        List<CarriedCounts.ChangedDrawer> out = new ArrayList<>();
        for (NetworkSelection sel : p.request().selections()) {
            NetworkResolution res = s.resolve(sel);
            if (res.failure() != null || res.ipam() == null) {
                continue;
            }
            if (res.ipam().nodeSliceMode()) {
                return null;
            }
            for (int i = 0; i < res.ipam().ranges().size(); i++) {
                out.add(new CarriedCounts.ChangedDrawer(res, i, new CarriedCounts.Drawer(p.podRef(),
                        sel.podInterface())));
            }
        }
        return out;
    }

    /**
     * One whole pool's {@link #byPool} entry, from the pods that draw from it: the last snapshot's while those pods
     * and the pool's objects are the same, or the last snapshot's with the changed pods' slots found again when the
     * drawers were updated from those it was made with ({@link CarriedCounts.Drawers#changed}), so an address change
     * costs the changed pool alone and a pod's start or end its own drawers.
     */
    private Set<String> unrecordedInPool(String pool, CarriedCounts.Drawers d) {
        List<CarriedCounts.DrawerGroup> groups = d.byPool().get(pool);
        if (groups == null) {
            return Set.of();
        }
        String key = pool + "\n";
        List<IPPool> sources = s.poolObjects(pool);
        CarriedCounts.Unrecorded before = s.nodeCounts().unrecorded(key);
        if (before != null && LedgerState.sameInstances(before.sources(), sources)) {
            if (before.pods() == d.pods()) {
                return before.slots();
            }
            if (d.fromPods() != null && before.pods() == d.fromPods()) {
                return remember(key, d, sources, updatedSlots(before.slots(), d.changed().getOrDefault(pool,
                        Map.of())));
            }
        }
        Set<String> out = new HashSet<>();
        for (CarriedCounts.DrawerGroup g : groups) {
            RangeView v = s.view(g.res(), g.index(), null);
            if (v.failure() != null || v.memberPools().isEmpty()) {
                continue;
            }
            for (List<CarriedCounts.Drawer> drawn : g.byPod().values()) {
                for (CarriedCounts.Drawer dr : drawn) {
                    if (!LedgerState.recorded(v.pool(), dr.podRef(), dr.ifname())) {
                        out.add(LedgerState.slot(dr.podRef(), dr.ifname()));
                    }
                }
            }
        }
        return remember(key, d, sources, out);
    }

    /** @return {@code slots} without the changed pods' and with those of their new drawers not recorded */
    private Set<String> updatedSlots(Set<String> slots, Map<String, List<CarriedCounts.ChangedDrawer>> changed) {
        if (changed.isEmpty()) {
            return slots;
        }
        Set<String> out = new HashSet<>();
        for (String slot : slots) {
            if (!changed.containsKey(LedgerState.podOf(slot))) {
                out.add(slot);
            }
        }
        for (List<CarriedCounts.ChangedDrawer> drawn : changed.values()) {
            for (CarriedCounts.ChangedDrawer c : drawn) {
                RangeView v = s.view(c.res(), c.index(), null);
                if (v.failure() == null && !v.memberPools().isEmpty()
                        && !LedgerState.recorded(v.pool(), c.drawer().podRef(), c.drawer().ifname())) {
                    out.add(LedgerState.slot(c.drawer().podRef(), c.drawer().ifname()));
                }
            }
        }
        return out;
    }

    private Set<String> remember(String key, CarriedCounts.Drawers d, List<IPPool> sources, Set<String> found) {
        Set<String> slots = Set.copyOf(found);
        s.nodeCounts().unrecorded(key, new CarriedCounts.Unrecorded(Map.of(), d.pods(), sources, slots));
        return slots;
    }

    /** @return the node's slice in the NodeSlicePool of this name, or null (no pool, no slice) */
    private String sliceOf(String nodeSlicePoolName, String node) {
        NodeSliceAllocation a = s.sliceIndex(nodeSlicePoolName).get(node);
        return a == null ? null : a.sliceRange();
    }

    /** @return true while each NodeSlicePool gives the node the slice it gave when {@code slices} was recorded */
    private boolean sameSlices(Map<String, String> slices, String node) {
        for (Map.Entry<String, String> e : slices.entrySet()) {
            if (!Objects.equals(e.getValue(), sliceOf(e.getKey(), node))) {
                return false;
            }
        }
        return true;
    }

    /**
     * @return the snapshot's bound pods by node, made once per snapshot: the last snapshot's while the bound pods are
     *         the same instances, or updated by the snapshot's {@link PodChanges} when they lead from its pods
     */
    private Map<String, List<PodPlacement>> boundByNode() {
        Map<String, List<PodPlacement>> b = boundByNode;
        if (b != null) {
            return b;
        }
        List<PodPlacement> pods = s.snapshot.boundPods();
        CarriedCounts.BoundByNode before = s.nodeCounts().boundByNode();
        PodChanges changes = s.snapshot.podChanges();
        PMap<String, List<PodPlacement>> byNode;
        if (before != null && LedgerState.sameInstances(before.pods(), pods)) {
            byNode = before.byNode();
        } else if (before != null && changes != null && changes.boundPodsBefore() == before.pods()) {
            byNode = before.byNode();
            for (String key : changes.boundChanged()) {
                byNode = moved(byNode, changes.boundBefore().get(key), changes.boundAfter().get(key));
            }
        } else {
            Map<String, List<PodPlacement>> out = new HashMap<>();
            for (PodPlacement p : pods) {
                if (p.node() != null) {
                    out.computeIfAbsent(p.node(), k -> new ArrayList<>()).add(p);
                }
            }
            out.replaceAll((node, l) -> List.copyOf(l));
            byNode = HashTreePMap.from(out);
        }
        if (before == null || before.byNode() != byNode || before.pods() != pods) {
            s.nodeCounts().boundByNode(new CarriedCounts.BoundByNode(pods, byNode));
        }
        boundByNode = byNode;
        return byNode;
    }

    /** @return {@code byNode} with {@code then} taken off its node's list and {@code now} added to its node's */
    private static PMap<String, List<PodPlacement>> moved(PMap<String, List<PodPlacement>> byNode, PodPlacement then,
                                                          PodPlacement now) {
        PMap<String, List<PodPlacement>> out = byNode;
        if (then != null && then.node() != null) {
            List<PodPlacement> l = new ArrayList<>(out.getOrDefault(then.node(), List.of()));
            l.remove(then);
            out = l.isEmpty() ? out.minus(then.node()) : out.plus(then.node(), List.copyOf(l));
        }
        if (now != null && now.node() != null) {
            List<PodPlacement> l = new ArrayList<>(out.getOrDefault(now.node(), List.of()));
            l.add(now);
            out = out.plus(now.node(), List.copyOf(l));
        }
        return out;
    }

    /** The pool a pod's address of one range is recorded in: its name, and the pool (null: not created yet). */
    private record RecordingPool(String name, DecodedPool pool) {
    }

    /**
     * The first member pool of {@link LedgerState#view view(res, index, node)} and its pool, or null where that view
     * fails, without counting: under node slices the view of every node with a bound pod would be made, each counting
     * its pool, on every snapshot (a fifth of a second at 20,000 nodes); here only the node's slice and pool are
     * looked up, under the same conditions {@code sliceView} and {@code counted} fail on.
     */
    private RecordingPool recordingPool(NetworkResolution res, int index, String node) {
        IpamConfig ipam = res.ipam();
        if (!ipam.nodeSliceMode() || node == null) {
            RangeView v = s.view(res, index, node);
            return v.failure() != null || v.memberPools().isEmpty() ? null
                    : new RecordingPool(v.memberPools().get(0), v.pool());
        }
        NodeSliceAllocation slice = s.sliceIndex(ipam.nodeSlicePoolName()).get(node);
        if (slice == null) {
            return null;
        }
        CarriedCounts.SliceAddresses addresses = s.carried().slice(ipam.ranges().get(index), slice.sliceRange());
        if (addresses.cidr() == null || addresses.usable().emptyReason() != null) {
            return null;
        }
        String poolName = PoolNames.ipPool(ipam.networkName(), node, slice.sliceRange());
        DecodedPool pool = s.pool(poolName).pool();
        return pool != null && pool.error() != null ? null : new RecordingPool(poolName, pool);
    }
}
