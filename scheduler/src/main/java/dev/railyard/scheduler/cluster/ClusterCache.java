package dev.railyard.scheduler.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Shared informers over every {@link WatchedKind}, feeding their events into a {@link ClusterState}, and the state's
 * immutable snapshots.
 *
 * <p>The informers keep only a stub of each object ({@link KeysOnlyItemStore}), which hands each object to the state as
 * it is stored; the state keeps compact records and
 * makes a snapshot in O(records changed since the last one), the same instance while nothing changed
 * (docs/adr/0008). A custom resource whose CRD is missing is checked again every
 * {@code crdRecheck}; it is logged once when it goes missing and once when it appears, and exported as the gauge
 * {@code railyard_cache_feature_enabled{kind,feature}} (1 on, 0 off). Once every kind has synced, the next view is
 * made in the background soon after events arrive ({@link ViewRefresher}: 20 ms after the first event of a burst, at
 * most one view per 100 ms), so a scheduler's first call after a change does not pay for it.
 *
 * <p>Thread-safe. {@link #close()} stops every informer.
 */
public final class ClusterCache implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterCache.class);
    /**
     * Objects per page of an informer's list ({@code limit}/{@code continue}): each page is decoded, stored and
     * dropped before the next, so the heap at start holds one page, not a whole list decoded into maps. At 5,000
     * nodes (19,274 pods, a 113 MB list) an unpaged start needed more than a 768 MiB heap and died with
     * OutOfMemoryError there, while pages of 5,000 reached ready in 512 MiB at the same wall time; pages of 500
     * took a third longer, the API server serving the pages more slowly (docs/performance.md, "Start-up").
     */
    static final long LIST_PAGE = 5_000;

    private final KubernetesClient client;
    /** The Pod informer's own client: it keeps of a Pod only what {@link PodView} reads ({@link PodDecoding}). */
    private final KubernetesClient podClient;
    private final Clock clock;
    private final Duration resync;
    private final Map<WatchedKind, SharedIndexInformer<GenericKubernetesResource>> informers = new ConcurrentHashMap<>();
    private final Map<WatchedKind, Boolean> reportedMissing = new ConcurrentHashMap<>();
    private final AtomicLong version = new AtomicLong();
    private final AtomicLong lastEventMillis = new AtomicLong();
    private final ClusterState state;
    /**
     * Kinds whose first list the handler has been told about ({@code onList}, or {@code onNothing} for an empty
     * list): the state is fed by the store before that, so it then holds every listed object.
     */
    private final Set<WatchedKind> delivered = ConcurrentHashMap.newKeySet();
    /** Optional kinds found not installed at their last try (their CRD is missing): nothing to wait for. */
    private final Set<WatchedKind> absent = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService recheck = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "railyard-crd-recheck");
        t.setDaemon(true);
        return t;
    });
    private final Duration crdRecheck;
    /** Kinds whose informer runs but is not watching (its watch broke and is being re-established), since when. */
    private final Map<WatchedKind, java.time.Instant> brokenSince = new ConcurrentHashMap<>();
    /** Kinds whose watch has been seen running at least once. */
    private final Set<WatchedKind> watchedOnce = ConcurrentHashMap.newKeySet();
    /** Set once every kind has been tried: until then {@link #synced()} is false even if the first informers are. */
    private volatile boolean firstPassDone;
    /**
     * Set once every watched kind has synced or is known not to be installed, so {@link #synced()} costs one read per
     * call; cleared when the set of informers changes (a CRD appears, a start fails), which makes the next call
     * check again.
     */
    private volatile boolean allSynced;
    private volatile boolean closed;
    /** Makes the next view soon after events arrive, once every kind has synced (docs/adr/0024). */
    private final ViewRefresher refresher;
    private volatile java.util.function.Consumer<ClusterView> afterEachView;

    /**
     * @param client     a client for the cluster (its namespace setting is ignored: the cache watches all namespaces);
     *                   the informers use two clients of their own with its server and credentials
     *                   ({@link InformerDecoding}; the Pod informer's: {@link PodDecoding}), closed by
     *                   {@link #close()}
     * @param registry   where to register gauges
     * @param clock      time source for snapshot stamps
     * @param resync     informer resync period; {@link Duration#ZERO} for none
     * @param crdRecheck how often to look again for CRDs that were missing
     * @param state      where the informers' events go
     */
    public ClusterCache(KubernetesClient client, MeterRegistry registry, Clock clock, Duration resync,
                        Duration crdRecheck, ClusterState state) {
        this.state = state;
        this.clock = clock;
        this.resync = resync;
        this.crdRecheck = crdRecheck;
        this.refresher = new ViewRefresher(() -> {
            if (synced()) {
                ClusterView view = state.snapshot();
                java.util.function.Consumer<ClusterView> then = afterEachView;
                if (then != null) {
                    then.accept(view);
                }
            }
        }, ViewRefresher.DEFAULT_DELAY, ViewRefresher.DEFAULT_MIN_INTERVAL, registry);
        for (WatchedKind kind : WatchedKind.ALL) {
            Gauge.builder("railyard_cache_feature_enabled", () -> informers.containsKey(kind) ? 1 : 0)
                    .description("1 when the informer for this kind runs, 0 when its CRD is not installed")
                    .tag("kind", kind.kind()).tag("feature", kind.feature())
                    .register(registry);
        }
        Gauge.builder("railyard_watch_broken_seconds", () -> longestOutage().map(o -> o.seconds()).orElse(0.0))
                .description("seconds the longest-broken informer watch has been broken (0 while every watch runs)")
                .register(registry);
        Gauge.builder("railyard_cache_age_seconds",
                        () -> lastEventMillis.get() == 0 ? 0 : (clock.millis() - lastEventMillis.get()) / 1000.0)
                .description("seconds since any informer last saw an event")
                .register(registry);
        // last, so nothing above can fail with these clients open and unreachable for close()
        this.client = InformerDecoding.client(client);
        KubernetesClient pods;
        try {
            pods = PodDecoding.client(client);
        } catch (RuntimeException | Error e) {
            this.client.close();
            throw e;
        }
        this.podClient = pods;
    }

    /**
     * Runs {@code then} on the view refresher's thread after each view it makes (docs/adr/0024, amendment: the
     * scheduler's gangs are prepared for the new view there). What it throws is counted and logged as a failed
     * refresh.
     *
     * @param then what to do with each new view, or null for nothing
     */
    public void afterEachView(java.util.function.Consumer<ClusterView> then) {
        this.afterEachView = then;
    }

    /** @return the informers' own client ({@link InformerDecoding}); for tests */
    KubernetesClient informersClient() {
        return client;
    }

    /** @return the client whose informer watches {@code kind}: Pods have their own ({@link PodDecoding}) */
    KubernetesClient clientFor(WatchedKind kind) {
        return kind.equals(WatchedKind.POD) ? podClient : client;
    }

    /**
     * Starts the informers of every installed kind in the background and schedules the look-out for missing CRDs.
     * Returns at once: an unreachable API server must not keep the service from answering health probes (until the
     * informers have synced, {@link #synced()} is false and the answers are neutral).
     */
    public void start() {
        long period = Math.max(1, crdRecheck.toSeconds());
        recheck.scheduleWithFixedDelay(this::startAvailable, 0, period, TimeUnit.SECONDS);
        watchCheck.scheduleWithFixedDelay(this::checkWatches, 250, 250, TimeUnit.MILLISECONDS);
    }

    private final ScheduledExecutorService watchCheck = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "railyard-watch-check");
        t.setDaemon(true);
        return t;
    });

    /**
     * Notes which started informers are not watching now, and since when (checked every 250 ms). A kind whose first
     * list has not arrived is starting, not broken: readiness already waits for it by name ("has not synced"), and
     * counting its list time as an outage made {@code /readyz} also report a 35 s "broken" watch at 5,000 nodes,
     * after the list, until the watch began (docs/performance.md).
     */
    void checkWatches() {
        java.time.Instant now = clock.instant();
        for (Map.Entry<WatchedKind, SharedIndexInformer<GenericKubernetesResource>> e : informers.entrySet()) {
            SharedIndexInformer<GenericKubernetesResource> i = e.getValue();
            if (i.isWatching()) {
                watchedOnce.add(e.getKey());
            }
            if (i.isRunning() && !i.isWatching() && delivered.contains(e.getKey())) {
                if (brokenSince.putIfAbsent(e.getKey(), now) == null) {
                    // the gap between a kind's first list and its first watch is counted (a watch that never
                    // starts must turn /readyz), but it is no breakage worth a warning
                    if (watchedOnce.contains(e.getKey())) {
                        LOG.warn("watch of {} is broken; the informer is re-establishing it", e.getKey());
                    } else {
                        LOG.debug("watch of {} is starting after its first list", e.getKey());
                    }
                }
            } else if (brokenSince.remove(e.getKey()) != null) {
                LOG.info("watch of {} is running again", e.getKey());
            }
        }
        brokenSince.keySet().retainAll(informers.keySet());
    }

    /**
     * A broken watch.
     *
     * @param kind    the kind whose watch is broken longest
     * @param seconds for how long
     */
    public record Outage(WatchedKind kind, double seconds) {
    }

    /** @return the watch broken longest, or empty while every started informer watches */
    public java.util.Optional<Outage> longestOutage() {
        java.time.Instant now = clock.instant();
        return brokenSince.entrySet().stream().min(Map.Entry.comparingByValue())
                .map(e -> new Outage(e.getKey(), Math.max(0, Duration.between(e.getValue(), now).toMillis()) / 1000.0));
    }

    /**
     * @param bound longest outage that still counts as fresh
     * @return empty while no watch has been broken longer than {@code bound}; else one line saying which and how
     *         long ({@code watch of Pod.core/v1 broken for 12 s (longer than 10 s): decisions would be stale})
     */
    public java.util.Optional<String> staleness(Duration bound) {
        return longestOutage().filter(o -> o.seconds() * 1000 > bound.toMillis()).map(o -> "watch of " + o.kind()
                + " broken for " + Math.round(o.seconds()) + " s (longer than " + bound.toMillis() / 1000.0
                + " s): the cluster state may be stale");
    }

    /**
     * Tries every kind that has no informer yet, all at once: each try waits for its first list (or its failure,
     * about 20 s per kind against an unreachable API server with fabric8's default retries), so trying them one
     * after the other would add those waits up. Returns when every try has ended; only then is
     * {@link #firstPassDone} set, as before.
     */
    private synchronized void startAvailable() {
        List<WatchedKind> pending = WatchedKind.ALL.stream().filter(k -> !informers.containsKey(k)).toList();
        try (ExecutorService tries = Executors.newVirtualThreadPerTaskExecutor()) {
            if (!firstPassDone) {
                tries.execute(this::warmWatchDecoding);
            }
            for (WatchedKind kind : pending) {
                tries.execute(() -> startOne(kind));
            }
        }
        firstPassDone = true;
    }

    /**
     * Decodes one synthetic watch event with the client's serialization, alongside the first lists (the first pass,
     * and so {@link #synced()}, waits for it). fabric8 resolves a watch event's {@code object} to a class by
     * apiVersion and kind through a table each client builds on its first such decode; lists decode to a known class
     * and never build it. Without this the first watch event after a (re)start came 240-320 ms late on a quiet JVM
     * and about 600 ms late in the e2e Railyard (C1 only, two busy cores), so the pods created just after a restart
     * were missing from the view when kube-scheduler's filter asked about them, and a gang's new members were judged
     * without their gang's plan (test-e2e RailyardKubeSchedulerIT, the gang bound across a restart).
     */
    private void warmWatchDecoding() {
        // both clients: the Pod informer's decodes the events that matter most here (new pods), the other's the rest
        for (KubernetesClient c : List.of(podClient, client)) {
            try {
                c.getKubernetesSerialization().unmarshal("{\"type\":\"ADDED\",\"object\":{\"apiVersion\":\"v1\","
                        + "\"kind\":\"Pod\",\"metadata\":{\"name\":\"railyard-warm-up\"}}}",
                        io.fabric8.kubernetes.api.model.WatchEvent.class);
            } catch (RuntimeException e) {
                LOG.debug("watch decoding warm-up failed: {}", failure(e));
            }
        }
    }

    private void startOne(WatchedKind kind) {
        try {
            if (kind.optional() && !client.supports(kind.apiVersion(), kind.kind())) {
                absent.add(kind);
                state.disabled(disabled());
                if (reportedMissing.putIfAbsent(kind, Boolean.TRUE) == null) {
                    LOG.warn("{} is not installed: {} is off until its CRD appears", kind, kind.feature());
                }
                return;
            }
            absent.remove(kind);
            SharedIndexInformer<GenericKubernetesResource> informer = inform(kind);
            if (closed) {
                informers.remove(kind, informer);
                informer.close();
                return;
            }
            if (reportedMissing.remove(kind) != null) {
                LOG.info("{} appeared: {} is on", kind, kind.feature());
            }
        } catch (RuntimeException e) {
            if (!closed) {
                LOG.warn("cannot watch {}: {}; will retry in {}", kind, failure(e), words(crdRecheck));
            }
        }
    }

    /**
     * @return why a watch could not start, from the cause chain: {@code cannot connect (connection refused ...)},
     *         {@code unknown host ...}, {@code TLS handshake failed: ...}, {@code timed out}, or {@code HTTP 403
     *         ...}; never fabric8's bare "An error has occurred."
     */
    static String failure(Throwable e) {
        String network = ClusterListing.networkProblem(e);
        if (network != null) {
            return network;
        }
        int code = e instanceof io.fabric8.kubernetes.client.KubernetesClientException k ? k.getCode() : 0;
        String deepest = null;
        for (Throwable t = e; t != null && t != t.getCause(); t = t.getCause()) {
            String m = t.getMessage();
            if (m != null && !m.isBlank() && !m.startsWith("An error has occurred")) {
                deepest = m;
            }
        }
        String text = deepest != null ? deepest : e.getCause() != null ? e.getCause().getClass().getSimpleName()
                : e.getClass().getSimpleName();
        text = text.replaceAll("\\s+", " ").strip();
        if (text.length() > 200) {
            text = text.substring(0, 200) + "...";
        }
        return (code > 0 ? "HTTP " + code + ": " : "") + text;
    }

    /** @return {@code 30s}, {@code 10m}, {@code 1h}: the largest whole unit */
    private static String words(Duration d) {
        long s = d.toSeconds();
        return s % 3600 == 0 && s > 0 ? s / 3600 + "h" : s % 60 == 0 && s > 0 ? s / 60 + "m" : s + "s";
    }

    private SharedIndexInformer<GenericKubernetesResource> inform(WatchedKind kind) {
        ResourceDefinitionContext ctx = new ResourceDefinitionContext.Builder()
                .withGroup(kind.group()).withVersion(kind.version()).withKind(kind.kind())
                .withPlural(kind.plural()).withNamespaced(kind.namespaced()).build();
        var resources = clientFor(kind).genericKubernetesResources(ctx);
        ResourceEventHandler<GenericKubernetesResource> handler = new ResourceEventHandler<>() {
            @Override
            // the state is fed by the store (KeysOnlyItemStore), synchronously; the handler only counts events
            public void onAdd(GenericKubernetesResource obj) {
                touched();
            }

            @Override
            public void onUpdate(GenericKubernetesResource oldObj, GenericKubernetesResource newObj) {
                touched();
            }

            @Override
            public void onDelete(GenericKubernetesResource obj, boolean deletedFinalStateUnknown) {
                touched();
            }

            @Override
            public void onList(String resourceVersion, boolean initial) {
                delivered.add(kind);
            }

            @Override
            public void onNothing() {
                delivered.add(kind);
            }
        };
        SharedIndexInformer<GenericKubernetesResource> informer = kind.namespaced()
                ? resources.inAnyNamespace().withLimit(LIST_PAGE).runnableInformer(resync.toMillis())
                : resources.withLimit(LIST_PAGE).runnableInformer(resync.toMillis());
        informer.itemStore(new KeysOnlyItemStore(kind, state));
        informer.removeNamespaceIndex();
        informer.addEventHandler(handler);
        // fabric8's own decision (Reflector's default handler: retry once started, unless the watch itself was
        // refused), said in one line here; serve turns fabric8's Reflector logger, which prints a stack trace per
        // failure, off. A failure before the first list is reported by startOne.
        informer.exceptionHandler((started, t) -> {
            boolean retry = started && !(t instanceof WatcherException);
            if (started && !closed) {
                LOG.warn("watch of {} failed: {}; {}", kind, failure(t), retry ? "retrying"
                        : "stopped until restart");
            }
            return retry;
        });
        // in the map before its first list, so a view that shows its objects never calls the kind disabled
        informers.put(kind, informer);
        allSynced = false;
        state.disabled(disabled());
        try {
            informer.run();
        } catch (RuntimeException e) {
            informers.remove(kind, informer);
            delivered.remove(kind);
            allSynced = false;
            state.disabled(disabled());
            informer.close();
            throw e;
        }
        touched();
        return informer;
    }

    private void touched() {
        version.incrementAndGet();
        lastEventMillis.set(clock.millis());
        refresher.changed();
    }

    /**
     * @return true when every watched kind has synced ({@link #notSynced()} is empty): its informer has listed its
     *         objects once and handed all of them to the state (a view made then holds every listed object), or its
     *         CRD is not installed. A kind whose watch could not start keeps this false until a retry lists it.
     */
    public boolean synced() {
        if (allSynced) {
            return true;
        }
        boolean now = notSynced().isEmpty();
        if (now) {
            allSynced = true;
        }
        return now;
    }

    /**
     * @return the watched kinds not synced yet, in {@link WatchedKind#ALL}'s order: those whose informer has not
     *         listed and handed its objects to the state, and those whose watch could not start (an API server that
     *         timed out, a refused request): a kind counts as synced only once listed, or when its CRD is known not
     *         to be installed (found so by a try that ended: before the first pass over the kinds ends, a kind
     *         not yet tried is listed here).
     */
    public List<WatchedKind> notSynced() {
        boolean tried = firstPassDone;
        List<WatchedKind> waiting = new java.util.ArrayList<>();
        for (WatchedKind kind : WatchedKind.ALL) {
            SharedIndexInformer<GenericKubernetesResource> informer = informers.get(kind);
            boolean ok = informer != null ? informer.hasSynced() && delivered.contains(kind)
                    : tried && absent.contains(kind);
            if (!ok) {
                waiting.add(kind);
            }
        }
        return waiting;
    }

    /** @return kinds whose CRD is not installed right now */
    public Set<WatchedKind> disabled() {
        return WatchedKind.ALL.stream().filter(k -> !informers.containsKey(k))
                .collect(java.util.stream.Collectors.toUnmodifiableSet());
    }

    /**
     * @return the state's current view; the same instance as the previous call when nothing changed in between
     */
    public ClusterView snapshot() {
        return state.snapshot();
    }

    /** @return the state the informers feed */
    public ClusterState state() {
        return state;
    }

    @Override
    public void close() {
        closed = true;
        refresher.close();
        recheck.shutdownNow();
        watchCheck.shutdownNow();
        informers.values().forEach(SharedIndexInformer::close);
        informers.clear();
        try {
            client.close();
        } finally {
            podClient.close();
        }
    }
}
