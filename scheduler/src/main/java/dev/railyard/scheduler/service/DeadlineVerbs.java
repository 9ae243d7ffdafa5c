package dev.railyard.scheduler.service;

import dev.railyard.scheduler.input.RateLimitedLog;
import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.WireFormatException;
import dev.railyard.scheduler.protocol.WireReply;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Answers every deciding verb within a deadline below the scheduler's extender timeout, whatever the cluster state
 * or the API server do (docs/serve.md, "Deadlines, and which way each verb fails"): the verb runs on its own
 * (virtual) thread; when it has not answered by the deadline, the caller gets the verb's fallback answer instead,
 * computed from the same request by the same protocol adapter over {@link DeadlineFallbacks}:
 * fail open where a no would wedge scheduling (Filter, Score, gang admission and readiness: pass, neutral score,
 * abstain, ready), fail closed where a wrong yes can lose data (Volcano {@code allocateFunc} vetoes, kube
 * {@code bind} answers an error, which the scheduler retries). The verb itself runs on; whatever it holds ends by its
 * own rules (a Binding that lands later is counted by the cluster, a hold by its expiry).
 *
 * <p>A verb that answers on the server's I/O thread ({@link VerbHandler.Threading#IO_THREAD}: Volcano predicate and
 * prioritize, kube filter and prioritize) cannot be waited for there, since the wait would block the loop; its path
 * makes no API server call and waits for nothing but short in-memory locks (docs/adr/0017-netty-transport.md,
 * "Verbs on the event loop"). It runs where it is called, with no fallback; an answer that took longer than the
 * deadline is counted in {@code railyard_deadline_late_answers_total{protocol,verb}} and logged. {@code serve
 * --decide-on-io-threads=false} moves these verbs back to threads of their own, fallbacks included.
 *
 * <p>Counted in {@code railyard_deadline_answers_total{protocol,verb}}, logged at warn at most once per verb (and
 * for fallbacks and late answers apart) every 10 s, the next line counting the others ({@link RateLimitedLog}).
 * Thread-safe.
 */
public final class DeadlineVerbs {
    private static final Logger LOG = LoggerFactory.getLogger(DeadlineVerbs.class);

    private final MeterRegistry registry;
    private final ExecutorService calls = Executors.newVirtualThreadPerTaskExecutor();
    private final RateLimitedLog warnings;

    public DeadlineVerbs(MeterRegistry registry) {
        this(registry, RateLimitedLog.of(LOG));
    }

    /** @param warnings where the overrun lines go, keyed by kind, protocol and verb */
    DeadlineVerbs(MeterRegistry registry, RateLimitedLog warnings) {
        this.registry = registry;
        this.warnings = warnings;
    }

    /**
     * Wraps the verbs named in {@code deciding}; the others are returned as they are.
     *
     * @param protocol  {@code volcano} or {@code kube}
     * @param verbs     verb name to handler
     * @param fallbacks verb name to the handler that answers when the verb overruns
     * @param deciding  the verbs to bound
     * @param deadline  the bound, positive
     * @return a new map in the same order
     */
    public Map<String, VerbHandler> gate(String protocol, Map<String, VerbHandler> verbs,
                                         Map<String, VerbHandler> fallbacks, Set<String> deciding,
                                         Duration deadline) {
        if (deadline.isNegative() || deadline.isZero()) {
            throw new IllegalArgumentException("a deadline must be positive");
        }
        Map<String, VerbHandler> out = new LinkedHashMap<>();
        verbs.forEach((verb, h) -> out.put(verb, deciding.contains(verb) && fallbacks.containsKey(verb)
                ? bounded(protocol, verb, h, fallbacks.get(verb), deadline) : h));
        return out;
    }

    private VerbHandler bounded(String protocol, String verb, VerbHandler delegate, VerbHandler fallback,
                                Duration deadline) {
        if (delegate.threading() == VerbHandler.Threading.IO_THREAD) {
            return timed(protocol, verb, delegate, deadline);
        }
        Counter overruns = Counter.builder("railyard_deadline_answers")
                .description("Deciding verbs answered by their fallback because they overran the deadline")
                .tag("protocol", protocol).tag("verb", verb).register(registry);
        long nanos = deadline.toNanos();
        String key = "fallback " + protocol + " " + verb;
        return new VerbHandler() {
            @Override
            public WireReply handle(byte[] body) throws WireFormatException {
                Future<WireReply> f = calls.submit(() -> delegate.handle(body));
                try {
                    return f.get(nanos, TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    overruns.increment();
                    warnings.warn(key, "{} {} gave no answer within {} ms: answered with its fallback ({})",
                            protocol, verb, deadline.toMillis(), DeadlineFallbacks.describe(verb));
                    return fallback.handle(body);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return fallback.handle(body);
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof WireFormatException w) {
                        throw w;
                    }
                    if (cause instanceof RuntimeException r) {
                        throw r;
                    }
                    if (cause instanceof Error err) {
                        throw err;
                    }
                    throw new IllegalStateException(cause);
                }
            }

            @Override
            public boolean readsBody() {
                return delegate.readsBody();
            }

            @Override
            public BodyBudget bodyBudget() {
                return delegate.bodyBudget();
            }
        };
    }

    /** A non-blocking verb, run on the caller's thread; late answers are counted and logged, not replaced. */
    private VerbHandler timed(String protocol, String verb, VerbHandler delegate, Duration deadline) {
        Counter late = Counter.builder("railyard_deadline_late_answers")
                .description("Deciding verbs answered on the I/O thread later than the deadline (no fallback there)")
                .tag("protocol", protocol).tag("verb", verb).register(registry);
        long nanos = deadline.toNanos();
        String key = "late " + protocol + " " + verb;
        return new VerbHandler() {
            @Override
            public WireReply handle(byte[] body) throws WireFormatException {
                long start = System.nanoTime();
                WireReply reply = delegate.handle(body);
                long took = System.nanoTime() - start;
                if (took > nanos) {
                    late.increment();
                    warnings.warn(key, "{} {} answered in {} ms, past its {} ms deadline (it runs on the I/O thread, "
                            + "without a fallback)", protocol, verb, took / 1_000_000, deadline.toMillis());
                }
                return reply;
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
                return Threading.IO_THREAD;
            }
        };
    }
}
