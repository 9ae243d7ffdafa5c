package dev.railyard.scheduler.cli;

import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.kube.Binder;
import dev.railyard.scheduler.protocol.kube.KubeExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoSettings;
import dev.railyard.scheduler.service.AddressHolds;
import dev.railyard.scheduler.service.BindAdmission;
import dev.railyard.scheduler.service.DeadlineFallbacks;
import dev.railyard.scheduler.service.DeadlineVerbs;
import dev.railyard.scheduler.service.LeaderOnlyVerbs;
import dev.railyard.scheduler.service.Reservations;
import dev.railyard.topology.InputException;
import io.micrometer.core.instrument.MeterRegistry;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.Map;

/**
 * {@code serve}'s reservation settings: which schedulers' pods it binds and allocates ({@code --scheduler-names}),
 * and its bounds on time (docs/serve.md, "Deadlines, and which way each verb fails"): how long a deciding
 * verb may take before its fallback answers, and how long the API server may be away before {@code /readyz} turns
 * not ready. The defaults sit below the extender timeouts the repository's configs set: kube-scheduler
 * {@code httpTimeout: 2s} (deploy/config/kube-scheduler-config.yaml; kube-scheduler's own default is 5 s) and Volcano
 * {@code extender.httpTimeout: 500ms} (deploy/config/volcano-scheduler.conf).
 */
final class FreshnessOptions {
    static final Duration DEFAULT_KUBE_DEADLINE = Duration.ofMillis(1500);
    static final Duration DEFAULT_VOLCANO_DEADLINE = Duration.ofMillis(400);
    static final Duration DEFAULT_MAX_WATCH_OUTAGE = Duration.ofSeconds(10);

    @Option(names = "--kube-deadline", paramLabel = "DURATION", converter = AgentCommand.DurationConverter.class,
            description = "Longest time a kube-scheduler verb (filter, prioritize, bind) may take before its fallback "
                    + "answers: filter passes, prioritize neutral, bind refused (the scheduler retries). Keep it "
                    + "below the extender httpTimeout (default: 1500ms).")
    Duration kubeDeadline;

    @Option(names = "--volcano-deadline", paramLabel = "DURATION", converter = AgentCommand.DurationConverter.class,
            description = "Longest time a deciding Volcano verb may take before its fallback answers: predicate "
                    + "passes, prioritize neutral, jobEnqueueable abstains, jobReady ready, allocateFunc vetoes "
                    + "(default: 400ms, below the 500ms extender.httpTimeout of deploy/config).")
    Duration volcanoDeadline;

    @Option(names = "--max-watch-outage", paramLabel = "DURATION", converter = AgentCommand.DurationConverter.class,
            description = "/readyz turns not ready when an informer's watch has been broken, or the API server has "
                    + "not answered, for longer than this (default: 10s); ready again once both heal.")
    Duration maxWatchOutage;

    @Option(names = "--scheduler-names", paramLabel = "NAME", split = ",",
            description = "spec.schedulerName values whose pods bind and allocateFunc act on; any other pod is "
                    + "refused (default: default-scheduler,volcano, the chart's schedulers).")
    java.util.List<String> schedulerNames;

    /**
     * The resolved settings.
     *
     * @param schedulers the scheduler names served, at least one
     */
    record Bounds(Duration kubeDeadline, Duration volcanoDeadline, Duration maxWatchOutage,
                  java.util.Set<String> schedulers) {
        /**
         * @return how serve reserves: default hold lifetimes, these schedulers, 1 s wait for a pod not cached yet,
         *         and for writing Volcano's hold on the pod the Volcano deadline less 100 ms (at least 50 ms), so
         *         that allocateFunc answers itself rather than by its fallback
         */
        Reservations.Settings reservations() {
            Duration budget = volcanoDeadline.minusMillis(100);
            return new Reservations.Settings(AddressHolds.Settings.DEFAULTS, schedulers, Duration.ofSeconds(1),
                    budget.compareTo(Duration.ofMillis(50)) < 0 ? Duration.ofMillis(50) : budget);
        }
    }

    /**
     * @return the bounds, defaults filled in
     * @throws InputException naming the flag whose duration is not positive
     */
    Bounds resolve() {
        return new Bounds(positive("--kube-deadline", kubeDeadline, DEFAULT_KUBE_DEADLINE),
                positive("--volcano-deadline", volcanoDeadline, DEFAULT_VOLCANO_DEADLINE),
                positive("--max-watch-outage", maxWatchOutage, DEFAULT_MAX_WATCH_OUTAGE), schedulers());
    }

    private java.util.Set<String> schedulers() {
        if (schedulerNames == null) {
            return BindAdmission.DEFAULT_SCHEDULERS;
        }
        java.util.Set<String> out = new java.util.LinkedHashSet<>();
        for (String n : schedulerNames) {
            String t = n.strip();
            if (!t.matches("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?")) {
                throw new InputException("--scheduler-names: \"" + t + "\" is not a scheduler name (a DNS subdomain)");
            }
            out.add(t);
        }
        if (out.isEmpty()) {
            throw new InputException("--scheduler-names: give at least one scheduler name");
        }
        return out;
    }

    private static Duration positive(String flag, Duration given, Duration fallback) {
        if (given == null) {
            return fallback;
        }
        if (given.isZero() || given.isNegative()) {
            throw new InputException(flag + " must be positive, got " + given.toMillis() + "ms");
        }
        return given;
    }

    private DeadlineVerbs deadlines;

    private DeadlineVerbs deadlines(MeterRegistry registry) {
        if (deadlines == null) {
            deadlines = new DeadlineVerbs(registry);
        }
        return deadlines;
    }

    @Option(names = "--decide-on-io-threads", paramLabel = "BOOL", arity = "1", defaultValue = "true",
            description = "Answer Volcano predicate/prioritize and kube filter/prioritize on the HTTP server's I/O "
                    + "threads (no thread hand-off; late answers counted, no deadline fallback). false: on threads "
                    + "of their own with deadline fallbacks (default: ${DEFAULT-VALUE})")
    boolean decideOnIoThreads = true;

    /** The verbs as declared, or every one off the I/O threads with {@code --decide-on-io-threads=false}. */
    private Map<String, VerbHandler> threading(Map<String, VerbHandler> verbs) {
        if (decideOnIoThreads) {
            return verbs;
        }
        Map<String, VerbHandler> out = new java.util.LinkedHashMap<>();
        verbs.forEach((verb, h) -> out.put(verb, VerbHandler.offIoThread(h)));
        return out;
    }

    /** Bounds Volcano's deciding verbs ({@link LeaderOnlyVerbs#VOLCANO}) by {@code bounds.volcanoDeadline()}. */
    Map<String, VerbHandler> gateVolcano(Map<String, VerbHandler> verbs, Bounds bounds, int neutralScore,
                                         VolcanoSettings settings, MeterRegistry registry) {
        verbs = threading(verbs);
        Map<String, VerbHandler> fallbacks = new VolcanoExtender(new DeadlineFallbacks(neutralScore,
                bounds.volcanoDeadline()), settings, registry).verbs();
        return deadlines(registry).gate("volcano", verbs, fallbacks, LeaderOnlyVerbs.VOLCANO,
                bounds.volcanoDeadline());
    }

    /** Bounds kube-scheduler's verbs ({@link LeaderOnlyVerbs#KUBE}) by {@code bounds.kubeDeadline()}. */
    Map<String, VerbHandler> gateKube(Map<String, VerbHandler> verbs, Bounds bounds, int neutralScore, Binder binder,
                                      MeterRegistry registry) {
        verbs = threading(verbs);
        Map<String, VerbHandler> fallbacks = new KubeExtender(new DeadlineFallbacks(neutralScore,
                bounds.kubeDeadline()), binder, neutralScore, registry).verbs();
        return deadlines(registry).gate("kube", verbs, fallbacks, LeaderOnlyVerbs.KUBE, bounds.kubeDeadline());
    }
}
