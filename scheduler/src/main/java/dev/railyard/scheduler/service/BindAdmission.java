package dev.railyard.scheduler.service;

import dev.railyard.scheduler.cluster.ClusterView;
import dev.railyard.scheduler.cluster.PodView;
import dev.railyard.scheduler.input.RateLimitedLog;
import dev.railyard.scheduler.ipam.PodNetworksRequest;
import dev.railyard.scheduler.protocol.AllocationVerdict;
import dev.railyard.scheduler.protocol.BindDecision;
import dev.railyard.scheduler.protocol.ExtenderPod;
import dev.railyard.scheduler.protocol.GangRef;
import dev.railyard.scheduler.engine.NodeVerdict;
import dev.railyard.scheduler.protocol.PodRef;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * Bind only what is being scheduled (issue 16): kube-scheduler's {@code bind} and Volcano's {@code allocateFunc} act
 * only on a pod that exists in Railyard's cache, has the UID the request names, is not bound yet, names a scheduler
 * Railyard serves ({@code spec.schedulerName} in the configured list), and that Railyard judges feasible on that node
 * with the reservations it holds; then the pod's addresses are held ({@link AddressHolds}). Anything else is refused
 * with one line naming the pod and the reason, logged (escaped; a caller can repeat a refused request at will, so at
 * most one line per verb and reason label every 10 s, {@link RateLimitedLog}), and counted in
 * {@code railyard_refused_binds_total{verb,why}}.
 *
 * <p>kube-scheduler binds within milliseconds of a pod's creation, often before the pod informer has delivered it,
 * so the pod is awaited up to {@code podWait} (polled every 20 ms). Thread-safe.
 */
public final class BindAdmission {
    /** What the chart's schedulers are called: kube-scheduler's default profile and Volcano. */
    public static final Set<String> DEFAULT_SCHEDULERS = Set.of("default-scheduler", "volcano");
    private static final long POLL_MILLIS = 20;

    private final Supplier<ClusterView> views;
    private final BiFunction<ExtenderPod, List<String>, List<NodeVerdict>> filter;
    private final BiFunction<PodRef, String, Map<String, String>> hints;
    private final AddressHolds holds;
    private final Set<String> schedulers;
    private final Duration podWait;
    private final MeterRegistry registry;
    private final RateLimitedLog refusals;

    /**
     * @param views      the cluster state's view, null while not synced
     * @param filter     Railyard's Filter (with the holds, a pod's own excepted)
     * @param hints      the placement hints for the pod on the node
     * @param holds      where the addresses are held
     * @param schedulers the {@code spec.schedulerName}s Railyard serves
     * @param podWait    longest wait for a pod the cache has not seen yet
     * @param registry   where refusals are counted
     */
    public BindAdmission(Supplier<ClusterView> views, BiFunction<ExtenderPod, List<String>, List<NodeVerdict>> filter,
                         BiFunction<PodRef, String, Map<String, String>> hints, AddressHolds holds,
                         Set<String> schedulers, Duration podWait, MeterRegistry registry) {
        this.views = Objects.requireNonNull(views, "views");
        this.filter = Objects.requireNonNull(filter, "filter");
        this.hints = Objects.requireNonNull(hints, "hints");
        this.holds = Objects.requireNonNull(holds, "holds");
        this.schedulers = Set.copyOf(schedulers);
        this.podWait = podWait;
        this.registry = registry;
        // obtained here, not in a static field: serve reads DEFAULT_SCHEDULERS while parsing its flags, and a logger
        // created then would fix slf4j-simple's settings before --log-level is applied (ServeLogging)
        this.refusals = RateLimitedLog.of(LoggerFactory.getLogger(BindAdmission.class));
    }

    /** @return the scheduler names served */
    public Set<String> schedulers() {
        return schedulers;
    }

    /** A pod found and checked, or the refusal. */
    private record Checked(PodView pod, BindDecision refusal) {
    }

    /** kube-scheduler {@code bind}: the checks, then the hold; the hints and the hold's annotation when admitted. */
    public BindDecision admitBind(PodRef ref, String node) {
        Checked c = check("bind", ref, node, podWait);
        if (c.refusal() != null) {
            return c.refusal();
        }
        PodView pod = c.pod();
        AddressHolds.BindHold held = holds.bind(ref.namespace(), ref.name(), pod.uid(), networks(pod), node);
        if (!held.admitted()) {
            return refuse("bind", ref, node, "pool", "the address pools cannot serve it: "
                    + held.refusal().message());
        }
        Map<String, String> out = new LinkedHashMap<>(hints.apply(new PodRef(ref.namespace(), ref.name(), pod.uid()),
                node));
        if (held.annotation() != null) {
            out.put(dev.railyard.scheduler.ipam.HoldAnnotation.KEY, held.annotation());
        }
        return BindDecision.admit(out, held.since());
    }

    /**
     * Volcano {@code allocateFunc}: the checks, then the hold written on the pod within {@code budget}.
     *
     * @return accept, or a veto with the reason
     */
    public AllocationVerdict admitAllocate(PodRef ref, String node, Duration budget) {
        long start = System.nanoTime();
        Checked c = check("allocateFunc", ref, node, Duration.ZERO);
        if (c.refusal() != null) {
            return AllocationVerdict.veto(c.refusal().reason());
        }
        PodView pod = c.pod();
        PodNetworksRequest networks = networks(pod);
        if (networks.selections().isEmpty()) {
            return AllocationVerdict.accept();
        }
        Duration left = budget.minusNanos(System.nanoTime() - start);
        AllocationVerdict v = holds.allocate(ref.namespace(), ref.name(), pod.uid(), networks, node,
                left.isNegative() ? Duration.ofMillis(1) : left);
        if (!v.accepted()) {
            count("allocateFunc", v.reason().startsWith("railyard could not record") ? "write" : "pool");
        }
        return v;
    }

    private static PodNetworksRequest networks(PodView pod) {
        return PodNetworksRequest.of(pod.namespace(), pod.annotations());
    }

    private Checked check(String verb, PodRef ref, String node, Duration wait) {
        ClusterView view = views.get();
        if (view == null) {
            return new Checked(null, refuse(verb, ref, node, "cache_cold", "Railyard's cluster cache has not synced "
                    + "yet, so it cannot check the pod's address pools; the scheduler retries"));
        }
        PodView pod = view.pod(ref.namespace() + "/" + ref.name());
        long deadline = System.nanoTime() + wait.toNanos();
        while ((pod == null || !ref.uid().isEmpty() && !ref.uid().equals(pod.uid()))
                && System.nanoTime() < deadline) {
            sleep();
            view = views.get();
            pod = view == null ? null : view.pod(ref.namespace() + "/" + ref.name());
        }
        if (pod == null) {
            return new Checked(null, refuse(verb, ref, node, "unknown_pod", "no such pod in Railyard's cache"
                    + (wait.isZero() ? "" : " (waited " + wait.toMillis() + " ms)")));
        }
        if (ref.uid().isEmpty()) {
            return new Checked(null, refuse(verb, ref, node, "uid_mismatch", "the request names no pod UID"));
        }
        if (!ref.uid().equals(pod.uid())) {
            return new Checked(null, refuse(verb, ref, node, "uid_mismatch", "the pod's UID is " + pod.uid()
                    + ", not " + ref.uid() + " (deleted and created again?)"));
        }
        if (pod.node() != null) {
            return new Checked(null, refuse(verb, ref, node, "already_bound", "the pod is already bound to "
                    + pod.node()));
        }
        if (pod.finished() || pod.terminating()) {
            return new Checked(null, refuse(verb, ref, node, "already_bound", "the pod is "
                    + (pod.terminating() ? "being deleted" : "finished (" + pod.phase() + ")")));
        }
        String scheduler = pod.schedulerName().isEmpty() ? "default-scheduler" : pod.schedulerName();
        if (!schedulers.contains(scheduler)) {
            return new Checked(null, refuse(verb, ref, node, "other_scheduler", "its schedulerName is " + scheduler
                    + ", not one Railyard serves (" + String.join(", ", schedulers.stream().sorted().toList())
                    + ")"));
        }
        ExtenderPod asked = new ExtenderPod(new PodRef(ref.namespace(), ref.name(), pod.uid()), pod.labels(),
                pod.annotations(), scheduler, null, GangRef.of(ref.namespace(), pod.labels(), pod.annotations()), null);
        NodeVerdict v = filter.apply(asked, List.of(node)).get(0);
        if (!v.feasible()) {
            return new Checked(null, refuse(verb, ref, node, "infeasible", "Railyard judges node " + node
                    + " infeasible: " + v.describe()));
        }
        return new Checked(pod, null);
    }

    private BindDecision refuse(String verb, PodRef ref, String node, String why, String detail) {
        count(verb, why);
        String line = "railyard " + verb + " of " + ref + " to " + node + " refused: " + detail;
        refusals.info(verb + " " + why, "{}", escape(line));
        return BindDecision.refuse(why, line);
    }

    /** @return the line with control characters written as {@code \\uXXXX}, so a pod name cannot forge a log line */
    static String escape(String line) {
        StringBuilder b = new StringBuilder(line.length());
        line.codePoints().forEach(c -> {
            if (Character.isISOControl(c)) {
                b.append(String.format("\\u%04x", c));
            } else {
                b.appendCodePoint(c);
            }
        });
        return b.toString();
    }

    private void count(String verb, String why) {
        registry.counter("railyard_refused_binds_total", "verb", verb, "why", why).increment();
    }

    private static void sleep() {
        try {
            Thread.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
