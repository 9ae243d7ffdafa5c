package dev.railyard.scheduler.ipam;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The ledger's verdict for a set of demands over one snapshot and the holds: per network (and node, for node-slice
 * networks), every range's pool counted, refused when any pool has fewer free addresses than the demands need.
 */
final class LedgerEvaluation {
    private LedgerEvaluation() {
    }

    // ---- evaluation --------------------------------------------------------------------------------------------

    /** One network (and node, for node-slice networks) being checked, with the ranges it draws from. */
    private static final class Entry {
        final String network;
        final String interfaceName;
        String master;
        PoolReason failure;
        String message;
        final List<String> notes = new ArrayList<>();
        final Map<String, RangeView> views = new LinkedHashMap<>();

        Entry(String network, String interfaceName) {
            this.network = network;
            this.interfaceName = interfaceName;
        }
    }

    /** The networks a set of demands draws from, each with its ranges, and the addresses each range must give. */
    private record Collected(Map<String, Entry> entries, Map<String, Long> need) {
    }

    /**
     * @param s             the ledger's state (IPPools, networks, ranges)
     * @param book          the holds and in-flight binds
     * @param demands       what is asked: per pod (or group of pods), its networks and node
     * @param exceptPods    pods whose own holds are not counted against them
     * @param holdsNeedNode true when a node-slice network must name the node (a hold is being taken)
     * @return the verdict: refused with the first failure's reason when a network cannot be resolved or a pool is
     *         short, otherwise OK with each pool's count
     */
    static PoolVerdict evaluate(LedgerState s, HoldBook book, List<PoolDemand> demands, Set<String> exceptPods,
                                boolean holdsNeedNode) {
        for (PoolDemand d : demands) {
            PodNetworksRequest request = d.request();
            if (!request.valid()) {
                NetworkVerdict nv = new NetworkVerdict("(annotation)", null, null, PoolReason.ANNOTATION_INVALID,
                        "pod in namespace " + request.podNamespace() + ": " + request.error(), List.of(), List.of());
                return new PoolVerdict(PoolReason.ANNOTATION_INVALID, nv.message(), List.of(nv));
            }
        }
        Collected c = collect(s, demands, holdsNeedNode);
        return verdict(s, book, c, exceptPods);
    }

    /** Resolves every demand's networks to entries and ranges, adding up what each range must give. */
    private static Collected collect(LedgerState s, List<PoolDemand> demands, boolean holdsNeedNode) {
        Map<String, Entry> entries = new LinkedHashMap<>();
        Map<String, Long> need = new HashMap<>();
        for (PoolDemand d : demands) {
            for (NetworkSelection sel : d.request().selections()) {
                NetworkResolution res = s.resolve(sel);
                boolean perNode = res.ipam() != null && res.ipam().nodeSliceMode();
                String entryKey = res.key() + (perNode ? "@" + d.node() : "");
                Entry e = entries.computeIfAbsent(entryKey, k -> new Entry(res.key(), sel.podInterface()));
                e.master = res.master();
                if (e.failure != null) {
                    continue;
                }
                if (res.failure() != null) {
                    e.failure = res.failure();
                    e.message = res.message();
                    continue;
                }
                addNotes(e, res.notes());
                if (res.ipam() == null) {
                    continue;
                }
                if (perNode && d.node() == null && holdsNeedNode) {
                    e.failure = PoolReason.NODE_SLICE_MISSING;
                    e.message = "network " + res.key() + " uses whereabouts node slices: a hold needs the node";
                    continue;
                }
                addRanges(s, e, res, d, need);
            }
        }
        return new Collected(entries, need);
    }

    private static void addRanges(LedgerState s, Entry e, NetworkResolution res, PoolDemand d, Map<String, Long> need) {
        for (int i = 0; i < res.ipam().ranges().size(); i++) {
            RangeView view = s.view(res, i, d.node());
            if (view.failure() != null) {
                e.failure = view.failure();
                e.message = view.failureMessage();
                return;
            }
            e.views.putIfAbsent(view.id(), view);
            need.merge(view.id(), (long) d.pods(), Long::sum);
            addNotes(e, view.notes());
        }
    }

    private static void addNotes(Entry e, List<String> notes) {
        for (String n : notes) {
            if (!e.notes.contains(n)) {
                e.notes.add(n);
            }
        }
    }

    /** Counts every entry's pools against the holds and joins the entries' messages into the verdict. */
    private static PoolVerdict verdict(LedgerState s, HoldBook book, Collected c, Set<String> exceptPods) {
        List<NetworkVerdict> verdicts = new ArrayList<>();
        PoolReason first = PoolReason.OK;
        List<String> refusals = new ArrayList<>();
        List<String> admitted = new ArrayList<>();
        for (Entry e : c.entries().values()) {
            NetworkVerdict v = counted(s, book, e, c.need(), exceptPods);
            verdicts.add(v);
            if (v.reason() == PoolReason.OK) {
                admitted.add(v.message());
            } else {
                refusals.add(v.message());
                if (first == PoolReason.OK) {
                    first = v.reason();
                }
            }
        }
        String message;
        if (first != PoolReason.OK) {
            message = String.join("; ", refusals);
        } else if (admitted.isEmpty()) {
            message = "no secondary networks";
        } else {
            message = String.join("; ", admitted);
        }
        return new PoolVerdict(first, message, verdicts);
    }

    /** One entry's verdict: its failure, or each of its pools counted (short of addresses when any is). */
    private static NetworkVerdict counted(LedgerState s, HoldBook book, Entry e, Map<String, Long> need,
                                          Set<String> exceptPods) {
        String head = "network " + e.network + " (" + e.interfaceName + ")";
        if (e.failure != null) {
            return new NetworkVerdict(e.network, e.interfaceName, e.master, e.failure, head + ": " + e.message,
                    List.of(), e.notes);
        }
        List<PoolStatus> statuses = new ArrayList<>();
        List<String> shortOf = new ArrayList<>();
        for (RangeView v : e.views.values()) {
            long inFlight = book.inFlight(s, v, exceptPods);
            long base = v.freeBeforeHolds();
            long free = base == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(0, base - inFlight);
            PoolStatus ps = new PoolStatus(v.poolName(), v.poolNamespace(), v.node(), v.range(), v.span(),
                    v.usable(), v.allocated(), v.reservedElsewhere(), inFlight, free,
                    need.getOrDefault(v.id(), 0L), v.stale(), v.inconsistencies());
            statuses.add(ps);
            if (!ps.enough()) {
                shortOf.add(ps.describe());
            }
        }
        if (!shortOf.isEmpty()) {
            return new NetworkVerdict(e.network, e.interfaceName, e.master, PoolReason.POOL_EXHAUSTED,
                    head + ": " + String.join("; ", shortOf), statuses, e.notes);
        }
        String msg = statuses.isEmpty() ? head + ": not counted (" + String.join("; ", e.notes) + ")"
                : head + ": " + String.join("; ", statuses.stream().map(PoolStatus::describe).toList());
        return new NetworkVerdict(e.network, e.interfaceName, e.master, PoolReason.OK, msg, statuses, e.notes);
    }
}
