package dev.railyard.scheduler.service;

import dev.railyard.api.volcano.PodGroup;
import dev.railyard.scheduler.cluster.ClusterView;
import dev.railyard.scheduler.cluster.PodView;
import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.GangJob;
import dev.railyard.scheduler.protocol.PodRef;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The Events {@link EnginePlacementDecisions} writes while it answers the schedulers, each said once where it belongs:
 * <ul>
 *   <li>{@code RailyardUnschedulable} on a pod no node could take, once per scheduling attempt with the attempt's
 *       true counts ({@link SchedulingAttempts});</li>
 *   <li>{@code RailyardUnschedulable} on every task of a gang Volcano may not enqueue (jobEnqueueable: the whole gang
 *       has no plan), once per enqueue decision (a gang refused there is never predicated in that session); only
 *       tasks the cluster shows as pending members of the job's PodGroup, never pods a caller names at will;</li>
 *   <li>{@code RailyardUnknownAnnotation} on a pod or PodGroup carrying {@code railyard.dev/} keys Railyard does not
 *       know ({@link AnnotationKeyWarnings}).</li>
 * </ul>
 * Thread-safe.
 */
public final class DecisionEvents implements AutoCloseable {
    /** How often ended attempts are looked for. */
    static final Duration TICK = Duration.ofMillis(100);

    private final EventSink sink;
    private final SchedulingAttempts attempts;
    private final AnnotationKeyWarnings keys;

    /**
     * @param sink     where Events go
     * @param attempts the attempts; ended by the caller ({@link SchedulingAttempts#flushDue}) or by its own timer
     */
    DecisionEvents(EventSink sink, SchedulingAttempts attempts) {
        this.sink = sink;
        this.attempts = attempts;
        this.keys = new AnnotationKeyWarnings(sink);
    }

    /**
     * @param sink    where Events go
     * @param waiting whether a pod ({@code namespace/name}) still waits for a node
     * @return Events with attempts ended every 100 ms ({@link #TICK}) on a daemon thread, with the default quiet
     *         period and longest attempt ({@link SchedulingAttempts#QUIET}, {@link SchedulingAttempts#LONGEST})
     */
    static DecisionEvents started(EventSink sink, Predicate<String> waiting) {
        SchedulingAttempts a = new SchedulingAttempts(sink, Clock.systemUTC(), SchedulingAttempts.QUIET,
                SchedulingAttempts.LONGEST, SchedulingAttempts.MAX_OPEN);
        a.start(TICK, waiting);
        return new DecisionEvents(sink, a);
    }

    /** @return true when the view shows the pod ({@code namespace/name}) and it has no node; false for no view */
    static boolean waiting(ClusterView view, String podKey) {
        PodView p = view == null ? null : view.pod(podKey);
        return p != null && (p.node() == null || p.node().isEmpty());
    }

    /**
     * A scheduler asked about the pod, of the gang (null: none): warns of unknown annotation keys, once each.
     *
     * @param annotations the pod's annotations as the cluster shows them
     */
    void asked(PodRef pod, Map<String, String> annotations, PodGroup group) {
        keys.pod(pod, annotations);
        if (group != null) {
            keys.podGroup(group);
        }
    }

    /** One Filter call's answers for the pod. */
    void filtered(PodRef pod, List<NodeVerdict> verdicts) {
        attempts.filtered(pod, verdicts);
    }

    /** Volcano allocated the pod to a node in its session. */
    void placed(String podKey) {
        attempts.placed(podKey);
    }

    /** Volcano undid the allocation. */
    void unplaced(String podKey) {
        attempts.unplaced(podKey);
    }

    /**
     * The whole gang may not be enqueued: says so on each of {@code tasks} (the job's tasks the cluster shows as
     * pending members of its PodGroup).
     */
    void gangRefused(GangJob job, List<ExtenderPod> tasks, String summary) {
        for (ExtenderPod task : tasks) {
            sink.podUnschedulable(task.ref().namespace(), task.ref().name(), task.ref().uid(), "gang "
                    + job.namespace() + "/" + job.podGroupName() + " cannot be placed as a whole: " + summary);
        }
    }

    /** @return the attempts (tests end them by hand) */
    SchedulingAttempts attempts() {
        return attempts;
    }

    @Override
    public void close() {
        attempts.close();
    }
}
