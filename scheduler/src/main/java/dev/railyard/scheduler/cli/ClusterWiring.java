package dev.railyard.scheduler.cli;

import dev.railyard.scheduler.access.ApiServerAccess;
import dev.railyard.scheduler.access.ExplainAccess;
import dev.railyard.scheduler.cluster.ApiServerPing;
import dev.railyard.scheduler.cluster.ClusterCache;
import dev.railyard.scheduler.cluster.ClusterState;
import dev.railyard.scheduler.cluster.ClusterView;
import dev.railyard.scheduler.cluster.PodView;
import dev.railyard.scheduler.engine.PlacementEngine;
import dev.railyard.scheduler.explain.Explainer;
import dev.railyard.scheduler.hints.delivery.BindingHintWebhook;
import dev.railyard.scheduler.hints.delivery.BindingWriter;
import dev.railyard.scheduler.hints.delivery.HintBackfill;
import dev.railyard.scheduler.hints.delivery.HintSource;
import dev.railyard.scheduler.ipam.IpPoolLedger;
import dev.railyard.scheduler.protocol.PlacementDecisions;
import dev.railyard.scheduler.protocol.PodRef;
import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.kube.Binder;
import dev.railyard.scheduler.server.ReadinessProbe;
import dev.railyard.scheduler.service.EnginePlacementDecisions;
import dev.railyard.scheduler.service.ExplainEndpoint;
import dev.railyard.scheduler.service.HintSweep;
import dev.railyard.scheduler.service.LeaderElection;
import dev.railyard.scheduler.service.PodHoldWriter;
import dev.railyard.scheduler.service.SchedulingEvents;
import dev.railyard.topology.InputException;
import dev.railyard.topology.fabric.FabricFile;
import dev.railyard.topology.fabric.FabricModel;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What {@code railyard serve} runs against a live cluster: the Kubernetes client, the informer cache, the IP pool
 * ledger, the engine behind the protocol port, the bind path (Binding with hints, backfill) and readiness
 * (informers synced).
 *
 * @param client     the API client
 * @param cache      informers and snapshots
 * @param ledger     the IP pool ledger the cluster state feeds
 * @param decisions  the protocol port answered by the engine
 * @param binder     kube-scheduler bind verb: creates the Binding with hint annotations
 * @param backfill   patches hints onto pods bound without them
 * @param webhook    the pods/binding admission webhook that adds hints to Bindings
 * @param sweep      hands pods bound without hints to the backfill (Volcano binds without a bind verb)
 * @param events     Events on pods Railyard refused
 * @param election   leader election, or null when off
 * @param readiness  ready once the informers have synced, while no watch has been broken and the API server has
 *                   answered within the bound ({@code --max-watch-outage})
 * @param ping       asks the API server whether it answers
 */
record ClusterWiring(KubernetesClient client, ClusterCache cache, IpPoolLedger ledger, PlacementDecisions decisions,
                     Binder binder,
                     HintBackfill backfill, BindingHintWebhook webhook, HintSweep sweep, SchedulingEvents events,
                     ReadinessProbe readiness, LeaderElection election, ApiServerPing ping) implements AutoCloseable {

    /**
     * Leader-election settings.
     *
     * @param namespace   Lease namespace
     * @param leaseName   Lease name
     * @param identity    this replica's identity (pod name)
     * @param leaderLabel label key for label routing, or null for readiness routing
     * @param timing      lease, renew and retry durations
     * @param onLost      run on a new thread when this replica led and lost the Lease (serve exits)
     */
    record Leadership(String namespace, String leaseName, String identity, String leaderLabel,
                      LeaderElection.Timing timing, Runnable onLost) {
    }

    /**
     * Connects and starts the informers (does not wait for them to sync: until then answers are neutral).
     *
     * @throws InputException when the kubeconfig or the fabric file cannot be read, or there is no API server
     *                        configuration at all (no kubeconfig, not in a pod)
     */
    static ClusterWiring start(Path kubeconfig, Path fabricFile, int neutralScore, MeterRegistry registry,
                               FreshnessOptions.Bounds bounds, Leadership leadership) {
        KubernetesClient client = connect(kubeconfig);
        KubernetesClient quick = quickClient(client);
        ApiServerPing ping = new ApiServerPing(quick, Clock.systemUTC(), PING_PERIOD, registry).start();
        Duration maxWatchOutage = bounds.maxWatchOutage();
        FabricModel fabric = fabricFile == null ? null : FabricFile.read(fabricFile);
        IpPoolLedger ledger = new IpPoolLedger(Clock.systemUTC());
        ClusterState state = new ClusterState(fabric, ledger, ledger::update, Clock.systemUTC());
        ClusterCache cache = new ClusterCache(client, registry, Clock.systemUTC(), Duration.ZERO,
                Duration.ofSeconds(30), state);
        cache.start();
        Supplier<ClusterView> views = () -> cache.synced() ? cache.snapshot() : null;
        EnginePlacementDecisions decisions = new EnginePlacementDecisions(views, ledger, new PlacementEngine(),
                neutralScore, registry);
        // the gangs a scheduler is placing get their plan for each new view before their next call
        cache.afterEachView(decisions::prepare);
        SchedulingEvents events = new SchedulingEvents(client, registry, Duration.ofMinutes(1));
        decisions.recordEventsWith(events);
        // Volcano's holds are written on the pods (docs/adr/0011-address-holds.md) with the quick client
        decisions.reserveWith(bounds.reservations(), new PodHoldWriter(quick, registry));
        HintSource hints = HintSource.of(decisions, cache::synced);
        HintBackfill backfill = new HintBackfill(client, hints, HintBackfill.Settings.DEFAULT, registry);
        // kube-scheduler binds within milliseconds of a pod's creation: give the informer up to 1 s (the
        // recommended extender httpTimeout is 2 s) so the Binding carries the hints instead of a later backfill
        BindingWriter binder = new BindingWriter(client, HintSource.awaitingPod(hints, ref -> podCached(cache, ref),
                BIND_POD_WAIT), backfill);
        LeaderElection election = leadership == null ? null : new LeaderElection(client, leadership.namespace(),
                leadership.leaseName(), leadership.identity(), leadership.leaderLabel(), leadership.timing(),
                leadership.onLost(), registry);
        ReadinessProbe readiness = () -> {
            if (!cache.synced()) {
                return Optional.of("cluster cache has not synced: waiting for " + cache.notSynced().stream()
                        .map(k -> k.kind()).collect(java.util.stream.Collectors.joining(", ")));
            }
            // stale state: a watch broken, or the API server silent, for longer than the bound (docs/serve.md)
            Optional<String> stale = cache.staleness(maxWatchOutage).or(() -> ping.staleness(maxWatchOutage));
            if (stale.isPresent()) {
                return stale;
            }
            cache.snapshot(); // the first view is made here, not in the first scheduler call after a (re)start
            if (election != null && election.routesByReadiness()) {
                return election.standbyReason();
            }
            return Optional.empty();
        };
        BindingHintWebhook webhook = new BindingHintWebhook(hints, backfill, BindingHintWebhook.DEFAULT_BUDGET, registry);
        HintSweep sweep = new HintSweep(views, backfill, Duration.ofSeconds(2), Duration.ofMinutes(10),
                election == null ? () -> true : election::leading);
        return new ClusterWiring(client, cache, ledger, decisions, binder, backfill, webhook, sweep, events,
                readiness, election, ping);
    }

    /** How often the API server is asked whether it answers ({@link ApiServerPing}). */
    static final Duration PING_PERIOD = Duration.ofSeconds(1);

    /**
     * A client for the ping and the hold writes: same server and credentials, requests time out within the ping
     * period, no retries (the callers bound their own waits).
     */
    private static KubernetesClient quickClient(KubernetesClient client) {
        Config c = new ConfigBuilder(client.getConfiguration()).withRequestTimeout((int) PING_PERIOD.toMillis())
                .withConnectionTimeout((int) PING_PERIOD.toMillis()).withRequestRetryBackoffLimit(0).build();
        return new KubernetesClientBuilder().withConfig(c).build();
    }

    /** Longest wait of the bind verb for the pod to reach Railyard's cache. */
    static final Duration BIND_POD_WAIT = Duration.ofSeconds(1);

    /** @return true when the cache holds the pod (same UID when given), or has not synced (nothing to wait for) */
    static boolean podCached(ClusterCache cache, PodRef ref) {
        if (!cache.synced()) {
            return true;
        }
        PodView p = cache.snapshot().pod(ref.namespace() + "/" + ref.name());
        return p != null && (ref.uid().isEmpty() || ref.uid().equals(p.uid()));
    }

    private static KubernetesClient connect(Path kubeconfig) {
        String hint = "give --kubeconfig FILE, or run with --no-cluster to try the protocols without a cluster";
        Config config = kubeconfig == null ? ApiServerConfigSource.autoConfigure(hint)
                : ApiServerConfigSource.fromKubeconfig(kubeconfig);
        String from = kubeconfig == null ? ApiServerConfigSource.require(hint) : "kubeconfig " + kubeconfig;
        LoggerFactory.getLogger(ClusterWiring.class).info("watching the Kubernetes API server {} ({})",
                config.getMasterUrl(), from);
        try {
            return new KubernetesClientBuilder().withConfig(config).build();
        } catch (RuntimeException e) {
            throw new InputException("the Kubernetes client cannot be set up from " + from + ": " + e.getMessage(), e);
        }
    }

    /**
     * Routes beside the two protocols: {@code /explain}, behind a bearer token checked by a TokenReview and RBAC checked by a SubjectAccessReview
     * ({@link ExplainAccess}).
     */
    Map<String, VerbHandler> serviceRoutes() {
        return Map.of(ExplainEndpoint.PATH, new ExplainAccess(new ExplainEndpoint(
                () -> cache.synced() ? cache.snapshot() : null, ledger::snapshot, new Explainer()),
                new ApiServerAccess(client)));
    }

    /** The pods/binding admission webhook's routes ({@code /admission/pods-binding}). */
    Map<String, VerbHandler> webhookRoutes() {
        return webhook.routes();
    }

    @Override
    public void close() {
        if (election != null) {
            election.close();
        }
        ping.close();
        sweep.close();
        events.close();
        backfill.close();
        cache.close();
        client.close();
    }
}
