package dev.railyard.scheduler.protocol;

import dev.railyard.scheduler.engine.NodeScore;
import dev.railyard.scheduler.engine.NodeVerdict;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Counts the adapters' decisions by outcome: Prometheus {@code railyard_decisions_total{protocol,verb,outcome}}.
 * One count per node verdict (Filter), per node score (Score) or per gang/pod answer. Outcomes include
 * {@code neutral} for answers given without knowledge, so a dashboard shows how often Railyard did not judge.
 * Thread-safe.
 */
public final class DecisionMetrics {
    /** Meter name (Prometheus adds {@code _total}). */
    public static final String NAME = "railyard.decisions";

    private final MeterRegistry registry;
    private final String protocol;
    private final ConcurrentMap<String, Counter> counters = new ConcurrentHashMap<>();

    /**
     * @param registry where to register the counters
     * @param protocol {@code volcano} or {@code kube}
     */
    public DecisionMetrics(MeterRegistry registry, String protocol) {
        this.registry = registry;
        this.protocol = protocol;
    }

    /** Adds {@code n} decisions of one outcome for one verb. */
    public void record(String verb, String outcome, int n) {
        if (n <= 0) {
            return;
        }
        counters.computeIfAbsent(verb + '\0' + outcome, k -> Counter.builder(NAME)
                .description("Placement decisions answered, by protocol, verb and outcome")
                .tag("protocol", protocol).tag("verb", verb).tag("outcome", outcome)
                .register(registry)).increment(n);
    }

    /**
     * Counts filter verdicts by outcome: {@code pass}, {@code neutral}, {@code unschedulable}, {@code unresolvable}
     * (UnschedulableAndUnresolvable) and {@code error}.
     */
    public void recordVerdicts(String verb, java.util.List<NodeVerdict> verdicts) {
        int pass = 0, neutral = 0, unsched = 0, unres = 0, error = 0;
        for (NodeVerdict v : verdicts) {
            if (v.neutral()) {
                neutral++;
            } else {
                switch (v.code()) {
                    case SUCCESS -> pass++;
                    case UNSCHEDULABLE -> unsched++;
                    case UNSCHEDULABLE_AND_UNRESOLVABLE -> unres++;
                    case ERROR -> error++;
                }
            }
        }
        record(verb, "pass", pass);
        record(verb, "neutral", neutral);
        record(verb, "unschedulable", unsched);
        record(verb, "unresolvable", unres);
        record(verb, "error", error);
    }

    /** Counts scores: {@code scored} or {@code neutral}. */
    public void recordScores(String verb, java.util.List<NodeScore> scores) {
        int neutral = 0;
        for (NodeScore s : scores) {
            if (s.neutral()) {
                neutral++;
            }
        }
        record(verb, "scored", scores.size() - neutral);
        record(verb, "neutral", neutral);
    }
}
