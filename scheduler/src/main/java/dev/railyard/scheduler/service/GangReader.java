package dev.railyard.scheduler.service;

import dev.railyard.api.volcano.PodGroup;
import dev.railyard.scheduler.cluster.ClusterView;
import dev.railyard.scheduler.cluster.PodView;
import dev.railyard.scheduler.cluster.WatchedKind;
import dev.railyard.scheduler.engine.BoundMember;
import dev.railyard.scheduler.engine.GangSession;
import dev.railyard.scheduler.engine.PlacementPolicy;
import dev.railyard.scheduler.input.RateLimitedLog;
import dev.railyard.scheduler.protocol.GangRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Reads a gang from the cluster state's view for {@link EnginePlacementDecisions} and {@link BindHints}: its members
 * from the PodGroup index in rank order, its bound members (docs/adr/0005), once per view; and says once per gang or
 * pod what it could not read. Thread-safe.
 */
final class GangReader {
    private static final Logger LOG = LoggerFactory.getLogger(GangReader.class);

    /** The "no PodGroup" lines, one per PodGroup kind every 10 s: the gang names come from the caller. */
    private final RateLimitedLog noGroupLines;

    GangReader() {
        this(RateLimitedLog.of(LOG));
    }

    /** @param noGroupLines where {@link #announceNoPodGroup} writes, keyed by PodGroup kind */
    GangReader(RateLimitedLog noGroupLines) {
        this.noGroupLines = noGroupLines;
    }

    /** Pods already logged as bound without a usable hint (pod key → node), so the log says it once. */
    private final com.github.benmanes.caffeine.cache.Cache<String, String> announcedUnhinted = forThirtyMinutes(10_000);

    /** Gangs already logged as named by their pods but without a PodGroup (gang key), so the log says it once. */
    private final com.github.benmanes.caffeine.cache.Cache<String, Boolean> announcedNoGroup = forThirtyMinutes(10_000);

    /** A Caffeine cache whose entries expire 30 min after they are written, holding at most {@code maximumSize}. */
    private static <K, V> com.github.benmanes.caffeine.cache.Cache<K, V> forThirtyMinutes(long maximumSize) {
        return com.github.benmanes.caffeine.cache.Caffeine.newBuilder()
                .expireAfterWrite(java.time.Duration.ofMinutes(30)).maximumSize(maximumSize).build();
    }

    /** Gangs read from one view, by PodGroup key and convention: a predicate storm reads each gang once per view. */
    private record Gangs(ClusterView view, ConcurrentMap<String, GangSession.Gang> byKey) {
    }

    private volatile Gangs gangs;

    GangSession.Gang gangOf(ClusterView view, PodGroup group) {
        Gangs g = gangs;
        if (g == null || g.view() != view) {
            g = new Gangs(view, new ConcurrentHashMap<>());
            gangs = g;
        }
        return g.byKey().computeIfAbsent(group.convention() + " " + group.namespace() + "/" + group.name(),
                k -> readGang(view, group));
    }

    /** The gang as the cluster state shows it: members from the PodGroup index, in rank order. */
    private GangSession.Gang readGang(ClusterView view, PodGroup group) {
        String gangKey = group.namespace() + "/" + group.name();
        List<PodView> members = view.members(group);
        List<GangSession.Member> out = new ArrayList<>(members.size());
        PodView firstToPlace = null;
        for (PodView m : members) {
            out.add(new GangSession.Member(m.key(), m.name(), m.node(), view.request(m)));
            if (firstToPlace == null && (m.node() == null || m.node().isEmpty())) {
                firstToPlace = m;
            }
        }
        PlacementPolicy planPolicy = PlacementPolicy.resolve(null, group,
                firstToPlace == null ? Map.of() : firstToPlace.annotations(), view.snapshot().fabric());
        return new GangSession.Gang(gangKey, group.namespace(), group.name(), planPolicy, out,
                () -> boundMembers(view, gangKey, members, null), name -> {
                    PodView now = view.pod(group.namespace() + "/" + name);
                    return now == null ? null : now.node();
                });
    }

    /**
     * Logs once per gang (per half hour) that a pod names a gang whose PodGroup Railyard does not have, so its pods
     * are judged one by one: the PodGroup's CRD is not installed (the cache switched that kind off), or no such
     * PodGroup exists. The gang's name comes from the pod in the request, so a caller can name a new one each time:
     * the lines are also rate-limited, one per PodGroup kind every 10 s ({@link RateLimitedLog}), and a gang counts
     * as told only once its line was written, so a real gang held back by a flood of made-up ones is told at a
     * later call.
     */
    void announceNoPodGroup(ClusterView view, GangRef ref) {
        boolean coscheduling = ref.convention() == GangRef.Convention.COSCHEDULING;
        WatchedKind kind = coscheduling ? WatchedKind.COSCHEDULING_POD_GROUP : WatchedKind.POD_GROUP;
        String key = ref.toString();
        if (announcedNoGroup.getIfPresent(key) != null) {
            return;
        }
        String named = coscheduling ? "label " + GangRef.COSCHEDULING_LABEL : "annotation "
                + GangRef.VOLCANO_GROUP_ANNOTATION;
        String why = view.objects().disabled().contains(kind) ? kind + " is not installed"
                : "there is no " + kind + " " + key;
        if (noGroupLines.info(kind, "gang {} (pod {}): {}, so its pods are judged one by one, without a gang plan",
                key, named, why)) {
            announcedNoGroup.put(key, Boolean.TRUE);
        }
    }

    /**
     * @return the gang's bound members ({@link ClusterView#boundMembers}); each one counted by node only is logged
     * once per pod and node
     */
    List<BoundMember> boundMembers(ClusterView view, String gangKey, List<PodView> members, String except) {
        List<BoundMember> out = view.boundMembers(gangKey, members, except);
        for (BoundMember b : out) {
            if (!b.hinted() && !b.node().equals(announcedUnhinted.asMap().put(b.key(), b.node()))) {
                PodView m = view.pod(b.key());
                LOG.info("gang {}: member {} is bound to {} {}: counted by its node only (its rails and rank are "
                        + "unknown)", gangKey, b.key(), b.node(), m == null ? "without a usable hint"
                        : view.unusableHint(m));
            }
        }
        return out;
    }

}
