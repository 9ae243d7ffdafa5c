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

    static PoolVerdict evaluate(LedgerState s, HoldBook book, List<PoolDemand> demands, Set<String> exceptPods,
                                boolean holdsNeedNode) {
        Map<String, Entry> entries = new LinkedHashMap<>();
        Map<String, Long> need = new HashMap<>();
        for (PoolDemand d : demands) {
            PodNetworksRequest request = d.request();
            if (!request.valid()) {
                NetworkVerdict nv = new NetworkVerdict("(annotation)", null, null, PoolReason.ANNOTATION_INVALID,
                        "pod in namespace " + request.podNamespace() + ": " + request.error(), List.of(), List.of());
                return new PoolVerdict(PoolReason.ANNOTATION_INVALID, nv.message(), List.of(nv));
            }
            for (NetworkSelection sel : request.selections()) {
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
                for (String n : res.notes()) {
                    if (!e.notes.contains(n)) {
                        e.notes.add(n);
                    }
                }
                if (res.ipam() == null) {
                    continue;
                }
                if (perNode && d.node() == null && holdsNeedNode) {
                    e.failure = PoolReason.NODE_SLICE_MISSING;
                    e.message = "network " + res.key() + " uses whereabouts node slices: a hold needs the node";
                    continue;
                }
                for (int i = 0; i < res.ipam().ranges().size(); i++) {
                    RangeView view = s.view(res, i, d.node());
                    if (view.failure() != null) {
                        e.failure = view.failure();
                        e.message = view.failureMessage();
                        break;
                    }
                    e.views.putIfAbsent(view.id(), view);
                    need.merge(view.id(), (long) d.pods(), Long::sum);
                    for (String n : view.notes()) {
                        if (!e.notes.contains(n)) {
                            e.notes.add(n);
                        }
                    }
                }
            }
        }
        List<NetworkVerdict> verdicts = new ArrayList<>();
        PoolReason first = PoolReason.OK;
        List<String> refusals = new ArrayList<>();
        List<String> admitted = new ArrayList<>();
        for (Entry e : entries.values()) {
            String head = "network " + e.network + " (" + e.interfaceName + ")";
            if (e.failure != null) {
                String msg = head + ": " + e.message;
                verdicts.add(new NetworkVerdict(e.network, e.interfaceName, e.master, e.failure, msg, List.of(),
                        e.notes));
                refusals.add(msg);
                if (first == PoolReason.OK) {
                    first = e.failure;
                }
                continue;
            }
            List<PoolStatus> statuses = new ArrayList<>();
            List<String> shortOf = new ArrayList<>();
            for (RangeView v : e.views.values()) {
                long inFlight = book.inFlight(s, v.memberPools(), exceptPods);
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
            String msg;
            PoolReason reason;
            if (!shortOf.isEmpty()) {
                reason = PoolReason.POOL_EXHAUSTED;
                msg = head + ": " + String.join("; ", shortOf);
                refusals.add(msg);
                if (first == PoolReason.OK) {
                    first = reason;
                }
            } else {
                reason = PoolReason.OK;
                msg = statuses.isEmpty() ? head + ": not counted (" + String.join("; ", e.notes) + ")"
                        : head + ": " + String.join("; ", statuses.stream().map(PoolStatus::describe).toList());
                admitted.add(msg);
            }
            verdicts.add(new NetworkVerdict(e.network, e.interfaceName, e.master, reason, msg, statuses, e.notes));
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
}
