package dev.railyard.scheduler.service;

import dev.railyard.scheduler.input.RateLimitedLog;
import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.WireFormatException;
import dev.railyard.scheduler.protocol.WireReply;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Keeps a standby replica from deciding: the verbs that make a placement decision or change placement state answer
 * {@code 503} on a replica that does not hold the Lease, with one line naming the leader.
 *
 * <p>The Service normally sends nothing to a standby (readiness or label routing, see {@link LeaderElection}); a
 * call still reaches one while endpoints catch up after a leadership change, or when a scheduler is pointed at a pod
 * directly. A standby has no gang plans and none of the session's tentative allocations, and every state it built
 * (IP pool holds from {@code allocateFunc}, plans) would be stale when it later leads, so it must not answer from its
 * own engine. An error, not a neutral answer, because then each scheduler applies the operator's
 * {@code ignorable} choice exactly as it does when Railyard is down (docs/formats/volcano-extender.md §4 per Volcano
 * verb, docs/formats/kube-extender.md §3 for kube-scheduler): with {@code ignorable: true} Volcano's predicate lets
 * the node pass and kube-scheduler skips the extender; with {@code false} predicate rejects the node and filter
 * fails the attempt, which is retried, instead of a placement the operator asked Railyard to vet going through
 * unvetted.
 *
 * <p>The verbs that do not decide keep their answers on a standby, since an error there would do harm:
 * {@code onSessionOpen}/{@code onSessionClose}/{@code jobEnqueued} ({@code {}} at once; an onSessionOpen error
 * makes Volcano skip the extender for the session), {@code preemptable}/{@code reclaimable} (abstain; an error
 * means "no victims in this tier") and {@code queueOverused} (not overused; an error with {@code ignorable: false}
 * marks the queue overused).
 *
 * <p>Refusals are counted in {@code railyard_standby_refusals_total{protocol,verb}} and logged at warn at most
 * once per verb every 10 s, the next line counting the others ({@link RateLimitedLog}). Thread-safe.
 */
public final class LeaderOnlyVerbs {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderOnlyVerbs.class);

    /** Volcano verbs only the leader answers (under {@code /volcano/}). */
    public static final Set<String> VOLCANO = Set.of("predicate", "prioritize", "jobEnqueueable", "jobReady",
            "allocateFunc", "deallocateFunc");
    /** kube-scheduler verbs only the leader answers (under {@code /kube/}). */
    public static final Set<String> KUBE = Set.of("filter", "prioritize", "bind");

    private final Supplier<Optional<String>> standbyReason;
    private final MeterRegistry registry;
    private final RateLimitedLog warnings;

    /**
     * @param standbyReason empty while this replica leads, else why not (e.g. {@link LeaderElection#standbyReason()})
     * @param registry      where refusals are counted
     */
    public LeaderOnlyVerbs(Supplier<Optional<String>> standbyReason, MeterRegistry registry) {
        this(standbyReason, registry, RateLimitedLog.of(LOG));
    }

    /** @param warnings where the refusal lines go, keyed by protocol and verb */
    LeaderOnlyVerbs(Supplier<Optional<String>> standbyReason, MeterRegistry registry, RateLimitedLog warnings) {
        this.standbyReason = standbyReason;
        this.registry = registry;
        this.warnings = warnings;
    }

    /**
     * Wraps the verbs named in {@code leaderOnly}; the others are returned as they are.
     *
     * @param protocol   {@code volcano} or {@code kube}, for the reply line and the metric
     * @param verbs      verb name to handler, as the protocol adapter gives them
     * @param leaderOnly names of the verbs to refuse on a standby
     * @return a new map in the same order
     */
    public Map<String, VerbHandler> gate(String protocol, Map<String, VerbHandler> verbs, Set<String> leaderOnly) {
        Map<String, VerbHandler> out = new LinkedHashMap<>();
        verbs.forEach((verb, h) -> out.put(verb, leaderOnly.contains(verb) ? gated(protocol, verb, h) : h));
        return out;
    }

    private VerbHandler gated(String protocol, String verb, VerbHandler delegate) {
        Counter refusals = Counter.builder("railyard_standby_refusals")
                .description("Extender calls refused with 503 because this replica is not the leader")
                .tag("protocol", protocol).tag("verb", verb).register(registry);
        String key = protocol + " " + verb;
        return new VerbHandler() {
            @Override
            public WireReply handle(byte[] body) throws WireFormatException {
                Optional<String> why = standbyReason.get();
                if (why.isEmpty()) {
                    return delegate.handle(body);
                }
                refusals.increment();
                String line = protocol + " " + verb + ": " + why.get() + "; only the leader decides";
                warnings.warn(key, "refused with 503 (a scheduler reached a standby; check the Service routes to the "
                        + "leader only): {}", line);
                return WireReply.text(503, line);
            }

            @Override
            public boolean readsBody() {
                return delegate.readsBody();
            }

            @Override
            public BodyBudget bodyBudget() {
                return delegate.bodyBudget();
            }

            @Override
            public Threading threading() {
                return delegate.threading(); // the check before it only reads memory
            }
        };
    }
}
