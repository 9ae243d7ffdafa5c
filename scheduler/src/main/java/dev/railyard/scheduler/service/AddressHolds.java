package dev.railyard.scheduler.service;

import dev.railyard.scheduler.input.LogText;
import dev.railyard.scheduler.input.RateLimitedLog;
import dev.railyard.scheduler.ipam.AddressHold;
import dev.railyard.scheduler.ipam.HoldAdoption;
import dev.railyard.scheduler.ipam.HoldAnnotation;
import dev.railyard.scheduler.ipam.HoldOrigin;
import dev.railyard.scheduler.ipam.HoldRequest;
import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.ipam.PodNetworksRequest;
import dev.railyard.scheduler.ipam.PodPlacement;
import dev.railyard.scheduler.ipam.PoolVerdict;
import dev.railyard.scheduler.protocol.AllocationVerdict;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One reservation model for both schedulers (docs/adr/0011-address-holds.md), in the spirit of kube-scheduler's
 * assume cache: every hold is taken in the {@link IpPoolLedger} atomically with the check, names the pod (UID), the
 * node, the pools and interfaces, who took it and until when, and ends on release, when the pool records the
 * address, when the pod goes, or at its expiry.
 *
 * <ul>
 *   <li><b>Volcano {@code allocateFunc}</b> ({@link #allocate}): hold, then write it on the pod
 *       ({@link HoldWriter}) before accepting; a hold that cannot be written within the budget is dropped and the
 *       allocation vetoed (fail closed: a restart would not know it). {@code deallocateFunc} ({@link #deallocate})
 *       releases and removes it.</li>
 *   <li><b>kube-scheduler {@code filter}</b> ({@link #assume}): a short hold for a pod whose filter passed, so the
 *       next pod's filter (kube-scheduler runs them back to back while binding asynchronously) sees the address
 *       taken. Not written anywhere: {@code bind} is the check that counts.</li>
 *   <li><b>kube-scheduler {@code bind}</b> ({@link #bind}): hold before the Binding is created; the annotation goes
 *       on the Binding, so it lands on the pod in the same write as {@code spec.nodeName}. Released when the
 *       Binding fails ({@link #bindFailed}); kept while its outcome is unknown, since a Binding sent counts as held
 *       until the cache shows the pod bound (then the bound pod counts itself).</li>
 * </ul>
 * Counts: {@code railyard_address_holds} (gauge, addresses held), {@code railyard_hold_refusals_total{verb,why}}
 * ({@code why}: {@code pool} the pool cannot serve the pod, {@code write} the hold could not be written); a hold
 * that could not be written is also logged, at most once every 10 s ({@link RateLimitedLog}: a caller can repeat
 * an allocateFunc at will). Thread-safe.
 */
public final class AddressHolds {
    private static final Logger LOG = LoggerFactory.getLogger(AddressHolds.class);
    private static final RateLimitedLog WRITE_FAILURES = RateLimitedLog.of(LOG);

    /**
     * Hold lifetimes.
     *
     * @param filter   a hold taken by kube {@code filter}: long enough for kube-scheduler's bind to follow
     * @param bind     a hold taken by kube {@code bind}: the Binding, then whereabouts' CNI ADD (two minutes)
     * @param allocate a hold taken by Volcano {@code allocateFunc}: the session's commit, the bind, the CNI ADD
     */
    public record Settings(Duration filter, Duration bind, Duration allocate) {
        /** 30 s, 5 min, 5 min. */
        public static final Settings DEFAULTS = new Settings(Duration.ofSeconds(30), HoldAdoption.DEFAULTS.bind(),
                HoldAdoption.DEFAULTS.allocate());

        public Settings {
            for (Duration d : new Duration[]{filter, bind, allocate}) {
                if (d == null || d.isNegative() || d.isZero()) {
                    throw new IllegalArgumentException("hold lifetimes must be positive");
                }
            }
        }
    }

    /**
     * The answer to {@link #bind}.
     *
     * @param refusal    why the pool cannot serve the pod (nothing held), or null when held or nothing to hold
     * @param since      when the hold was taken, or null when none was needed
     * @param annotation the hold's annotation value to put on the Binding, or null
     */
    public record BindHold(PoolVerdict refusal, Instant since, String annotation) {
        /** @return true when the bind may go ahead */
        public boolean admitted() {
            return refusal == null;
        }
    }

    private final IpPoolLedger ledger;
    private final HoldWriter writer;
    private final Settings settings;
    private final MeterRegistry registry;

    public AddressHolds(IpPoolLedger ledger, HoldWriter writer, Settings settings, MeterRegistry registry) {
        this.ledger = Objects.requireNonNull(ledger, "ledger");
        this.writer = Objects.requireNonNull(writer, "writer");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.registry = registry;
        // a hold read back from a pod is adopted for no longer than this service gives a hold of its origin
        ledger.adoptWithin(new HoldAdoption(settings.bind(), settings.allocate()));
        // once per registry: the service makes its holds again when serve applies its settings (same ledger), and
        // a second registration only logged a warning at every start
        if (registry.find("railyard_address_holds").gauge() == null) {
            Gauge.builder("railyard_address_holds", ledger, IpPoolLedger::heldAddresses)
                    .description("Addresses Railyard holds for pods placed and not recorded by whereabouts yet")
                    .register(registry);
        }
    }

    /** @return the ledger the holds are kept in */
    public IpPoolLedger ledger() {
        return ledger;
    }

    private void refused(String verb, String why) {
        registry.counter("railyard_hold_refusals_total", "verb", verb, "why", why).increment();
    }

    /**
     * Volcano {@code allocateFunc}: holds the pod's addresses on the node and writes the hold on the pod.
     *
     * @param budget longest wait for the API server
     * @return accept, or a veto naming the pool or the failed write
     */
    public AllocationVerdict allocate(String namespace, String name, String uid, PodNetworksRequest networks,
                                      String node, Duration budget) {
        String ref = namespace + "/" + name;
        PoolVerdict v = ledger.hold(List.of(new HoldRequest(new PodPlacement(name, networks, node), uid,
                HoldOrigin.ALLOCATE, settings.allocate())));
        if (!v.admitted()) {
            refused("allocateFunc", "pool");
            return AllocationVerdict.veto(v.message());
        }
        AddressHold held = ledger.holdOf(ref);
        if (held == null) {
            return AllocationVerdict.accept(); // no whereabouts network: nothing held
        }
        String value = HoldAnnotation.write(new HoldAnnotation.Value(uid, node, HoldOrigin.ALLOCATE, held.since(),
                held.until()));
        try {
            writer.write(namespace, name, uid, value, budget);
            return AllocationVerdict.accept();
        } catch (HoldWriter.WriteException e) {
            ledger.releaseIfSince(ref, held.since());
            // a write that ran out of time may still land: take it off again (only while it has this value), so a
            // vetoed allocation leaves nothing behind for a restarted replica to adopt (it would fail safe, holding
            // an address until the hold expired, but half-written all the same)
            writer.clear(namespace, name, value);
            refused("allocateFunc", "write");
            WRITE_FAILURES.warn("allocateFunc", "allocateFunc {} on {} vetoed: the address hold could not be written "
                    + "on the pod: {}", ref, node, e.getMessage());
            return AllocationVerdict.veto("railyard could not record the address hold on pod " + ref + " ("
                    + e.getMessage() + "): vetoed, so that a restarted or new leader replica cannot give the "
                    + "address to another pod");
        }
    }

    /**
     * Volcano {@code deallocateFunc}: releases the hold its {@code allocateFunc} took for the pod and removes the one
     * written on it, when the call names that hold: the pod's UID and the node it was held on. Anything else (a
     * hold kube-scheduler's filter or bind took, another UID, another node, no UID) is left alone and said in the
     * log: the main port is protected only by a NetworkPolicy, and a forged call must not free an address another
     * pod is about to be bound with (a hold left alone expires on its own).
     */
    public void deallocate(String namespace, String name, String uid, String node) {
        String ref = namespace + "/" + name;
        AddressHold held = ledger.holdOf(ref);
        if (held == null) {
            return;
        }
        if (held.origin() != HoldOrigin.ALLOCATE || uid == null || uid.isEmpty() || !uid.equals(held.uid())
                || !java.util.Objects.equals(held.node(), node)) {
            WRITE_FAILURES.warn("deallocateFunc", "deallocateFunc for {} on {} (UID {}) left its hold alone: the "
                    + "hold is {}'s, for UID {} on {}", LogText.escape(ref), LogText.escape(node),
                    LogText.escape(String.valueOf(uid)), held.origin(), held.uid(), held.node());
            return;
        }
        ledger.release(ref);
        writer.clear(namespace, name, HoldAnnotation.write(new HoldAnnotation.Value(held.uid(), held.node(),
                HoldOrigin.ALLOCATE, held.since(), held.until())));
    }

    /**
     * kube {@code filter} passed the pod: a short hold so that the next filter sees the address taken. Networks with
     * whereabouts node slices are left to {@code bind} (their pool depends on the node chosen).
     *
     * @return null when held (or nothing to hold), else the refusal: the pool has no address left for the pod
     */
    public PoolVerdict assume(String namespace, String name, String uid, PodNetworksRequest networks) {
        if (networks.selections().isEmpty() || !ledger.sameOnEveryNode(networks)) {
            return null;
        }
        AddressHold mine = ledger.holdOf(namespace + "/" + name);
        if (mine != null && mine.origin() != HoldOrigin.FILTER) {
            return null; // a bind or allocate hold is already the pod's: keep it
        }
        PoolVerdict v = ledger.hold(List.of(new HoldRequest(new PodPlacement(name, networks, null), uid,
                HoldOrigin.FILTER, settings.filter())));
        if (!v.admitted()) {
            refused("filter", "pool");
            return v;
        }
        return null;
    }

    /**
     * kube {@code bind}: holds the pod's addresses on the node before the Binding is created.
     *
     * @return the hold, or the refusal (nothing held)
     */
    public BindHold bind(String namespace, String name, String uid, PodNetworksRequest networks, String node) {
        if (networks.selections().isEmpty()) {
            return new BindHold(null, null, null);
        }
        String ref = namespace + "/" + name;
        PoolVerdict v = ledger.hold(List.of(new HoldRequest(new PodPlacement(name, networks, node), uid,
                HoldOrigin.BIND, settings.bind())));
        if (!v.admitted()) {
            refused("bind", "pool");
            return new BindHold(v, null, null);
        }
        AddressHold held = ledger.holdOf(ref);
        if (held == null) {
            return new BindHold(null, null, null);
        }
        return new BindHold(null, held.since(), HoldAnnotation.write(new HoldAnnotation.Value(uid, node,
                HoldOrigin.BIND, held.since(), held.until())));
    }

    /** The Binding of a hold taken at {@code since} failed: the hold goes (unless the pod was held again since). */
    public void bindFailed(String namespace, String name, Instant since) {
        if (since != null) {
            ledger.releaseIfSince(namespace + "/" + name, since);
        }
    }
}
