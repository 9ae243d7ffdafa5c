package dev.railyard.scheduler.cli;

import dev.railyard.scheduler.access.ClientCertificateRequired;
import dev.railyard.scheduler.certificates.ServingCertificate;
import dev.railyard.scheduler.certificates.WebhookCertificateRotation;
import dev.railyard.scheduler.certificates.WebhookCertificateSecret;
import dev.railyard.scheduler.protocol.NeutralPlacementDecisions;
import dev.railyard.scheduler.protocol.PlacementDecisions;
import dev.railyard.scheduler.protocol.PodJson;
import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.WireFormatException;
import dev.railyard.scheduler.protocol.WireReply;
import dev.railyard.scheduler.protocol.kube.Binder;
import dev.railyard.scheduler.protocol.kube.KubeExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoReplyDialect;
import dev.railyard.scheduler.protocol.volcano.VolcanoSettings;
import dev.railyard.scheduler.service.ExplainEndpoint;
import dev.railyard.scheduler.service.LeaderElection;
import dev.railyard.scheduler.service.LeaderOnlyVerbs;
import dev.railyard.scheduler.server.ConnectionTimeouts;
import dev.railyard.scheduler.server.ExtenderServer;
import dev.railyard.scheduler.server.ReadinessProbe;
import dev.railyard.scheduler.server.ReloadableKeyManager;
import dev.railyard.scheduler.server.RequestBodyBudget;
import dev.railyard.scheduler.server.ServerSettings;
import dev.railyard.scheduler.server.TlsSettings;
import dev.railyard.topology.InputException;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code railyard serve}: runs the extender service for Volcano ({@code /volcano/<verb>}) and kube-scheduler
 * ({@code /kube/<verb>}) until SIGTERM/SIGINT. Flags win over the {@code --config} file (see
 * {@link ServeConfig} and docs/serve.md).
 *
 * <p>Decisions come from the placement engine over a live cluster cache ({@link ClusterWiring}); {@code /readyz}
 * is ready once the informers have synced. With {@code --no-cluster}, decisions come from
 * {@link NeutralPlacementDecisions}: every node passes with the neutral score, the log and the
 * {@code railyard_decisions_total{outcome="neutral"}} metric say so, and kube-scheduler binds are refused with a
 * clear reason because this instance has no Kubernetes client.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Run the scheduler extender HTTP service (Volcano under /volcano/, kube-scheduler under /kube/).",
                "Flags override the --config file. Stops cleanly on SIGTERM."})
final class ServeCommand implements Callable<Integer> {
    static final int DEFAULT_PORT = 8888;
    private static final Set<String> LEVELS = Set.of("error", "warn", "info", "debug", "trace");

    @Option(names = "--config", paramLabel = "FILE", description = "YAML config file (docs/serve.md).")
    Path config;

    @Option(names = "--address", paramLabel = "ADDR",
            description = "Bind address of every port (default: 127.0.0.1; the chart gives the pod IP).")
    String address;

    @Option(names = "--port", paramLabel = "PORT", description = "Listen port (default: " + DEFAULT_PORT + "; 0 picks a free one).")
    Integer port;

    @Option(names = "--max-request-size", paramLabel = "SIZE",
            description = "Largest request body, bytes or a Kubernetes quantity like 64Mi (default: 64Mi; webhook, /explain: 1Mi at most); larger gets 413.")
    String maxRequestSize;

    @Option(names = "--request-bytes-in-flight", paramLabel = "SIZE", description = "Request-body bytes the schedulers' verbs "
            + "hold at once (default: a quarter of the heap; webhook, /explain: a sixteenth each, 1-16Mi); a request that cannot get its share within 0.5s gets 429.")
    String requestBytesInFlight;

    @Option(names = "--request-read-timeout", paramLabel = "DURATION", converter = AgentCommand.DurationConverter.class,
            description = "Close a connection whose request has not fully arrived this long after its first byte "
                    + "(100ms to 24h; default: 15s).")
    Duration requestReadTimeout;

    @Option(names = "--idle-timeout", paramLabel = "DURATION", converter = AgentCommand.DurationConverter.class,
            description = "Close a keep-alive connection idle this long between requests (100ms to 24h; default: "
                    + "120s, longer than Go clients' 90s).")
    Duration idleTimeout;

    @Option(names = "--max-idle-connections", paramLabel = "N",
            description = "Idle keep-alive connections kept at most (default: 200).")
    Integer maxIdleConnections;

    @picocli.CommandLine.Mixin
    ServeTlsOptions tlsOptions = new ServeTlsOptions();

    @Option(names = "--neutral-score", paramLabel = "0..100",
            description = "Score for a node Railyard cannot judge (default: 50).")
    Integer neutralScore;

    @Option(names = "--volcano-score-weight", paramLabel = "W",
            description = "Volcano nodeScore = score (0..100) x W; Volcano adds it unnormalised (default: 1.0).")
    Double volcanoScoreWeight;

    @Option(names = "--volcano-reply-dialect", paramLabel = "VERSION",
            description = "Volcano release whose predicate reply shape to use: v1.6, v1.8 or v1.10 (default: v1.10, for v1.10 and later).")
    String volcanoReplyDialect;

    @Option(names = "--log-level", paramLabel = "LEVEL", description = "error, warn, info, debug or trace (default: info).")
    String logLevel;

    @Option(names = "--no-cluster",
            description = "Run without a Kubernetes API server: every answer is neutral (for trying the protocols).")
    boolean noCluster;

    @Option(names = "--kubeconfig", paramLabel = "FILE",
            description = "Kubeconfig to use (default: as kubectl finds it: $KUBECONFIG, ~/.kube/config, or in-cluster).")
    Path kubeconfig;

    @Option(names = "--leader-elect", description = "Elect one leader among replicas with a Lease (default: off).")
    boolean leaderElect;

    @Option(names = "--leader-elect-lease-name", paramLabel = "NAME", description = "Lease name (default: railyard).")
    String leaseName = "railyard";

    @Option(names = "--leader-elect-lease-namespace", paramLabel = "NS",
            description = "Lease namespace (default: $POD_NAMESPACE, else default).")
    String leaseNamespace;

    @Option(names = "--leader-elect-lease-duration", paramLabel = "DURATION",
            converter = AgentCommand.DurationConverter.class,
            description = "How long a standby waits after the leader's last renewal before taking over (whole "
                    + "seconds; default: 15s).")
    Duration leaseDuration;

    @Option(names = "--leader-elect-renew-deadline", paramLabel = "DURATION",
            converter = AgentCommand.DurationConverter.class,
            description = "How long the leader tries to renew before it gives up leadership and exits (default: 10s).")
    Duration renewDeadline;

    @Option(names = "--leader-elect-retry-period", paramLabel = "DURATION",
            converter = AgentCommand.DurationConverter.class,
            description = "Time between attempts to acquire or renew the Lease (default: 2s).")
    Duration retryPeriod;

    @Option(names = "--leader-label", paramLabel = "KEY",
            description = "Route by label: the leader labels its pod KEY=true and every synced replica is ready. "
                    + "Without it only the leader reports ready.")
    String leaderLabel;

    @Option(names = "--webhook-port", paramLabel = "PORT",
            description = "Serve the pods/binding admission webhook (/admission/pods-binding) on its own HTTPS port "
                    + "(needs --webhook-tls-cert and --webhook-tls-key, or --webhook-self-signed). Without it the webhook "
                    + "route is on the main port, which then needs TLS for the API server to call it.")
    Integer webhookPort;

    @Option(names = "--webhook-tls-cert", paramLabel = "FILE", description = "PEM certificate chain for the webhook port.")
    Path webhookTlsCert;

    @Option(names = "--webhook-tls-key", paramLabel = "FILE", description = "PEM PKCS#8 private key for the webhook port.")
    Path webhookTlsKey;

    @Option(names = "--webhook-self-signed",
            description = "Make the webhook port's certificate: a self-signed CA and serving certificate (ECDSA P-256, "
                    + "1 year) kept in --webhook-secret, the CA written into --webhook-configuration's caBundle, "
                    + "renewed when less than a third of its lifetime is left. Needs --webhook-port, --webhook-secret, "
                    + "--webhook-configuration and --webhook-service; not with --webhook-tls-cert/--webhook-tls-key.")
    boolean webhookSelfSigned;

    @Option(names = "--webhook-secret", paramLabel = "NAME",
            description = "Secret holding the self-signed certificate (tls.crt, tls.key, ca.crt), in the namespace of "
                    + "--leader-elect-lease-namespace (default: $POD_NAMESPACE, else default); it must exist, empty is fine.")
    String webhookSecret;

    @Option(names = "--webhook-configuration", paramLabel = "NAME",
            description = "MutatingWebhookConfiguration whose webhooks get the self-signed CA as clientConfig.caBundle.")
    String webhookConfiguration;

    @Option(names = "--webhook-service", paramLabel = "NAME",
            description = "Service the API server calls the webhook through: the certificate is for "
                    + "NAME.NAMESPACE.svc, NAME.NAMESPACE.svc.cluster.local and NAME.")
    String webhookService;

    @picocli.CommandLine.Mixin
    FreshnessOptions freshness = new FreshnessOptions();

    @Option(names = "--fabric", paramLabel = "FILE",
            description = "Static fabric file (see the README, section Placement); default: Volcano HyperNodes, else node labels.")
    Path fabricFile;

    /** Default bind address: loopback, so a bare {@code serve} is reachable from this host only. */
    static final String DEFAULT_ADDRESS = "127.0.0.1";

    /**
     * Everything {@code serve} runs with, flags and file merged and validated.
     *
     * @param secure the secure listener, or null when kube-scheduler verbs stay on the main port
     */
    record Resolved(ServerSettings server, ServeTlsOptions.Secure secure, int neutralScore, VolcanoSettings volcano,
                    String logLevel, LeaderElection.Timing leaderTiming) {
    }

    @Override
    public Integer call() throws Exception {
        checkWebhookFlags();
        // before resolve(): it names every cluster-only flag given with --no-cluster at once (resolve() alone stops
        // at the first, --leader-elect)
        checkNoClusterFlags();
        Resolved r = resolve();
        FreshnessOptions.Bounds bounds = freshness.resolve();
        ServeLogging.configureLogging(r.logLevel());
        Logger log = LoggerFactory.getLogger(ServeCommand.class);

        PrometheusMeterRegistry registry = meterRegistry();

        ClusterWiring wiring = noCluster ? null : ClusterWiring.start(kubeconfig, fabricFile, r.neutralScore(), registry,
                bounds, leaderElect ? new ClusterWiring.Leadership(leaseNamespace(), leaseName,
                        identity(), leaderLabel, r.leaderTiming(), () -> {
                            log.error("leadership lost: exiting so that a restart rebuilds plans and reservations "
                                    + "from the cluster (exit code 1)");
                            System.exit(1);
                        }) : null);
        PlacementDecisions decisions = wiring != null ? wiring.decisions()
                : new NeutralPlacementDecisions(r.neutralScore(), "started with --no-cluster");
        Binder binder = wiring != null ? wiring.binder() : Binder.unwired();
        ReadinessProbe readiness = wiring != null ? wiring.readiness() : ReadinessProbe.always();
        Map<String, VerbHandler> routes = new LinkedHashMap<>();
        Map<String, VerbHandler> secureRoutes = new LinkedHashMap<>();
        mountVerbs(r, freshness, bounds, wiring, decisions, binder, registry, routes, secureRoutes);
        ServeListeners listeners = new ServeListeners();
        WebhookCertificateRotation rotation = null;
        if (wiring != null && webhookPort == null) {
            routes.putAll(wiring.webhookRoutes());
        } else if (wiring != null) {
            rotation = startWebhookPort(wiring, r, listeners, registry);
        }
        int securePort = 0;
        if (r.secure() != null) {
            securePort = listeners.start("secure port", ServeListeners.beside(r.server(), r.secure().port(),
                    r.secure().tls(), r.secure().clientCa()), secureRoutes, null, registry).port();
        }
        int mainPort = listeners.start("main port", r.server(), routes, readiness, registry).port();
        CountDownLatch stopped = stopOnShutdown(log, listeners, rotation, wiring);
        ServeListeners.logWhoMayCall(log, r, mainPort, securePort, noCluster ? "" : " and " + ExplainEndpoint.PATH);
        if (noCluster) {
            log.warn("--no-cluster: no Kubernetes API server, so every answer is neutral (all nodes pass with score "
                    + "{}, gang admission abstains, gangs are ready) and kube-scheduler binds are refused", r.neutralScore());
        }
        stopped.await();
        return 0;
    }

    /**
     * Mounts the Volcano verbs on the main port, and the kube-scheduler verbs and {@code /explain} where they may be
     * called (docs/adr/0010-authenticated-callers.md): the secure port, or a loopback main port, else nowhere.
     */
    static void mountVerbs(Resolved r, ClusterWiring wiring, PlacementDecisions decisions, Binder binder,
                           PrometheusMeterRegistry registry, Map<String, VerbHandler> routes,
                           Map<String, VerbHandler> secureRoutes) {
        mountVerbs(r, null, null, wiring, decisions, binder, registry, routes, secureRoutes);
    }

    /** As above, the deciding verbs bounded by {@code freshness}'s deadlines when there is a cluster. */
    static void mountVerbs(Resolved r, FreshnessOptions freshness, FreshnessOptions.Bounds bounds,
                           ClusterWiring wiring, PlacementDecisions decisions, Binder binder,
                           PrometheusMeterRegistry registry, Map<String, VerbHandler> routes,
                           Map<String, VerbHandler> secureRoutes) {
        Map<String, VerbHandler> volcanoVerbs = new VolcanoExtender(decisions, r.volcano(), registry).verbs();
        Map<String, VerbHandler> kubeVerbs = new KubeExtender(decisions, binder, r.neutralScore(), registry).verbs();
        if (wiring != null && freshness != null) { // deadlines below the schedulers' timeouts (FreshnessOptions)
            volcanoVerbs = freshness.gateVolcano(volcanoVerbs, bounds, r.neutralScore(), r.volcano(), registry);
            kubeVerbs = freshness.gateKube(kubeVerbs, bounds, r.neutralScore(), binder, registry);
        }
        if (wiring != null && wiring.election() != null) {
            // a standby answers 503 to the deciding verbs: only the leader has the plans (LeaderOnlyVerbs)
            LeaderOnlyVerbs gate = new LeaderOnlyVerbs(wiring.election()::standbyReason, registry);
            volcanoVerbs = gate.gate("volcano", volcanoVerbs, LeaderOnlyVerbs.VOLCANO);
            kubeVerbs = gate.gate("kube", kubeVerbs, LeaderOnlyVerbs.KUBE);
        }
        routes.putAll(ExtenderServer.mount(VolcanoExtender.PREFIX, volcanoVerbs));
        // who may call (docs/adr/0010-authenticated-callers.md): the kube-scheduler verbs (bind included) and /explain
        // go to the secure port; without one they are served on a loopback main port only
        if (r.secure() != null) {
            secureRoutes.putAll(ExtenderServer.mount(KubeExtender.PREFIX, ClientCertificateRequired.wrap("kube", kubeVerbs)));
        } else if (loopback(r)) {
            routes.putAll(ExtenderServer.mount(KubeExtender.PREFIX, kubeVerbs));
        }
        if (r.secure() != null || loopback(r)) {
            (r.secure() != null ? secureRoutes : routes).putAll(wiring != null ? wiring.serviceRoutes()
                    : Map.of(ExplainEndpoint.PATH, VerbHandler.constant(WireReply.text(404, NO_CLUSTER_EXPLAIN))));
        }
    }

    /** @return the metrics registry, with the JVM's memory, GC, thread and processor meters bound */
    private static PrometheusMeterRegistry meterRegistry() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        return registry;
    }

    /** Serves the admission webhook on its own HTTPS port; @return the self-signed certificate's rotation, or null */
    private WebhookCertificateRotation startWebhookPort(ClusterWiring wiring, Resolved r, ServeListeners listeners,
                                                        PrometheusMeterRegistry registry) throws Exception {
        WebhookCertificateRotation rotation = null;
        TlsSettings webhookTls;
        if (webhookSelfSigned) {
            ReloadableKeyManager keys = selfSignedKeys(wiring);
            rotation = new WebhookCertificateRotation(certificateSecret(wiring), keys)
                    .start(WebhookCertificateRotation.CHECK_INTERVAL);
            webhookTls = new TlsSettings.InMemory(keys);
        } else if (webhookTlsCert == null || webhookTlsKey == null) {
            throw new InputException("--webhook-port needs --webhook-tls-cert and --webhook-tls-key (or "
                    + "--webhook-self-signed): the API server only calls admission webhooks over HTTPS");
        } else {
            webhookTls = new TlsSettings.Pem(webhookTlsCert, webhookTlsKey);
        }
        listeners.start("webhook port", ServeListeners.beside(r.server(), webhookPort, webhookTls, null),
                wiring.webhookRoutes(), null, registry); // null: no /healthz, /readyz, /metrics there
        return rotation;
    }

    /** @return a latch released once the shutdown hook has closed the listeners, the rotation and the wiring */
    private static CountDownLatch stopOnShutdown(Logger log, ServeListeners listeners,
                                                 WebhookCertificateRotation rotation, ClusterWiring wiring) {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            log.info("stopping: finishing in-flight requests for up to 1 s");
            listeners.close();
            if (rotation != null) {
                rotation.close();
            }
            if (wiring != null) {
                wiring.close();
            }
            stopped.countDown();
        }, "railyard-shutdown"));
        return stopped;
    }

    static final String NO_CLUSTER_EXPLAIN = "/explain needs a cluster (serve without --no-cluster)";

    static boolean loopback(Resolved r) {
        return r.server().address().getAddress().isLoopbackAddress();
    }

    /**
     * {@code --no-cluster} runs without a Kubernetes client, so the flags that only act through one (the fabric,
     * the kubeconfig, leader election, the admission webhook) would be silently ignored: refuse them instead.
     *
     * @throws InputException naming the flags at fault
     */
    void checkNoClusterFlags() {
        if (!noCluster) {
            return;
        }
        List<String> given = new ArrayList<>();
        addIf(given, fabricFile != null, "--fabric");
        addIf(given, kubeconfig != null, "--kubeconfig");
        addIf(given, leaderElect, "--leader-elect");
        addIf(given, leaseNamespace != null, "--leader-elect-lease-namespace");
        addIf(given, leaderLabel != null, "--leader-label");
        addIf(given, webhookPort != null, "--webhook-port");
        addIf(given, webhookTlsCert != null, "--webhook-tls-cert");
        addIf(given, webhookTlsKey != null, "--webhook-tls-key");
        addIf(given, webhookSelfSigned, "--webhook-self-signed");
        addIf(given, freshness.kubeDeadline != null, "--kube-deadline");
        addIf(given, freshness.volcanoDeadline != null, "--volcano-deadline");
        addIf(given, freshness.maxWatchOutage != null, "--max-watch-outage");
        addIf(given, freshness.schedulerNames != null, "--scheduler-names");
        if (given.isEmpty()) {
            return;
        }
        throw new InputException(String.join(", ", given) + (given.size() == 1 ? " has" : " have")
                + " no effect with --no-cluster (every answer is neutral); drop "
                + (given.size() == 1 ? "one of them" : "them or --no-cluster"));
    }

    private static void addIf(List<String> list, boolean condition, String flag) {
        if (condition) {
            list.add(flag);
        }
    }

    /** @return {@code host:port}, IPv6 in brackets, without {@link InetSocketAddress#toString()}'s leading slash */
    static String hostPort(InetSocketAddress address) {
        String host = address.getAddress() != null ? address.getAddress().getHostAddress() : address.getHostString();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + address.getPort();
    }

    /**
     * The self-signed webhook flags go together: {@code --webhook-self-signed} needs the port, Secret,
     * configuration and Service names and excludes PEM files; the names mean nothing without it.
     *
     * @throws InputException naming the flags at fault
     */
    void checkWebhookFlags() {
        if (webhookSelfSigned) {
            if (webhookTlsCert != null || webhookTlsKey != null) {
                throw new InputException("--webhook-self-signed and --webhook-tls-cert/--webhook-tls-key exclude each "
                        + "other: give either PEM files or --webhook-self-signed");
            }
            List<String> missing = new ArrayList<>();
            if (webhookPort == null) {
                missing.add("--webhook-port");
            }
            if (webhookSecret == null || webhookSecret.isBlank()) {
                missing.add("--webhook-secret");
            }
            if (webhookConfiguration == null || webhookConfiguration.isBlank()) {
                missing.add("--webhook-configuration");
            }
            if (webhookService == null || webhookService.isBlank()) {
                missing.add("--webhook-service");
            }
            if (!missing.isEmpty()) {
                throw new InputException("--webhook-self-signed needs " + String.join(", ", missing));
            }
        } else if (webhookSecret != null || webhookConfiguration != null || webhookService != null) {
            throw new InputException("--webhook-secret, --webhook-configuration and --webhook-service only apply with "
                    + "--webhook-self-signed");
        }
    }

    private WebhookCertificateSecret certificateSecret(ClusterWiring wiring) {
        return WebhookCertificateSecret.of(wiring.client(), leaseNamespace(), webhookSecret, webhookConfiguration,
                webhookService, Clock.systemUTC());
    }

    /** Reads or makes the self-signed certificate and publishes its CA; one-line InputException when it cannot. */
    private ReloadableKeyManager selfSignedKeys(ClusterWiring wiring) {
        ServingCertificate cert;
        try {
            cert = certificateSecret(wiring).ensure();
        } catch (WebhookCertificateSecret.CertificateStoreException e) {
            throw new InputException("webhook certificate: " + e.getMessage());
        }
        try {
            return new ReloadableKeyManager(cert.key(), new X509Certificate[]{cert.certificate()});
        } catch (GeneralSecurityException e) {
            throw new InputException("webhook certificate from Secret " + leaseNamespace() + "/" + webhookSecret
                    + " cannot be served: " + e.getMessage());
        }
    }

    private String leaseNamespace() {
        if (leaseNamespace != null) {
            return leaseNamespace;
        }
        String env = System.getenv("POD_NAMESPACE");
        return env == null || env.isBlank() ? "default" : env;
    }

    private static String identity() {
        String env = System.getenv("POD_NAME");
        if (env != null && !env.isBlank()) {
            return env;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "railyard-" + ProcessHandle.current().pid();
        }
    }

    /** Merges flags over the config file and validates everything; bad values are one-line InputExceptions. */
    Resolved resolve() {
        ServeConfig file = config == null ? ServeConfig.EMPTY : ServeConfig.read(config);
        String where = config == null ? "" : " (flag or " + config + ")";

        String addr = first(address, file.server().address(), DEFAULT_ADDRESS);
        int p = first(port, file.server().port(), DEFAULT_PORT);
        if (p < 0 || p > 65535) {
            throw new InputException("port must be 0..65535, got " + p + where("--port", "server.port"));
        }
        InetAddress inet;
        try {
            inet = InetAddress.getByName(addr);
        } catch (UnknownHostException e) {
            throw new InputException("bind address \"" + addr + "\" does not resolve" + where);
        }
        long limit = parseSize(first(maxRequestSize, file.server().maxRequestSize(), "64Mi"), where);

        TlsSettings tls = tlsOptions.mainTls(file.server().tls(), where);
        ServeTlsOptions.Secure secure = tlsOptions.secure(file.server().secure(), where);
        ConnectionTimeouts connections;
        Duration read = first(requestReadTimeout, duration(file.server().requestReadTimeout(),
                "server.requestReadTimeout", where), ConnectionTimeouts.DEFAULTS.requestRead());
        Duration idle = first(idleTimeout, duration(file.server().idleTimeout(), "server.idleTimeout", where),
                ConnectionTimeouts.DEFAULTS.idle());
        int maxIdle = first(maxIdleConnections, file.server().maxIdleConnections(),
                ConnectionTimeouts.DEFAULTS.maxIdleConnections());
        try {
            connections = new ConnectionTimeouts(read, idle, maxIdle);
        } catch (IllegalArgumentException e) {
            throw new InputException(e.getMessage() + where);
        }
        RequestBodyBudget budget = requestBytesInFlight == null ? RequestBodyBudget.fromHeap()
                : new RequestBodyBudget(Math.max(parseSize(requestBytesInFlight, "request bytes in flight", ""), 1024),
                        RequestBodyBudget.DEFAULT_WAIT);
        ServerSettings server = new ServerSettings(new InetSocketAddress(inet, p), limit, tls, connections, null, budget);

        int neutral = first(neutralScore, file.placement().neutralScore(), 50);
        if (neutral < 0 || neutral > 100) {
            throw new InputException("neutral score must be 0..100, got " + neutral
                    + where("--neutral-score", "placement.neutralScore"));
        }
        double weight = first(volcanoScoreWeight, file.volcano().scoreWeight(), 1.0);
        if (!Double.isFinite(weight) || weight < 0) {
            throw new InputException("Volcano score weight must be a finite number >= 0, got " + weight
                    + where("--volcano-score-weight", "volcano.scoreWeight"));
        }
        VolcanoReplyDialect dialect;
        try {
            dialect = VolcanoReplyDialect.parse(first(volcanoReplyDialect, file.volcano().replyDialect(), "v1.10"));
        } catch (IllegalArgumentException e) {
            throw new InputException(e.getMessage() + where);
        }
        String level = first(logLevel, file.logging().level(), "info").toLowerCase(Locale.ROOT);
        if (!LEVELS.contains(level)) {
            throw new InputException("log level must be one of error, warn, info, debug, trace; got \"" + level + "\""
                    + where("--log-level", "logging.level"));
        }
        List<String> leaderOnly = new ArrayList<>();
        addIf(leaderOnly, leaseDuration != null, "--leader-elect-lease-duration");
        addIf(leaderOnly, renewDeadline != null, "--leader-elect-renew-deadline");
        addIf(leaderOnly, retryPeriod != null, "--leader-elect-retry-period");
        addIf(leaderOnly, leaderLabel != null, "--leader-label");
        if (!leaderElect && !leaderOnly.isEmpty()) {
            throw new InputException(String.join(", ", leaderOnly) + " only apply with --leader-elect");
        }
        checkNoClusterFlags();
        LeaderElection.Timing timing;
        try {
            timing = new LeaderElection.Timing(first(leaseDuration, null, LeaderElection.Timing.DEFAULTS.leaseDuration()),
                    first(renewDeadline, null, LeaderElection.Timing.DEFAULTS.renewDeadline()),
                    first(retryPeriod, null, LeaderElection.Timing.DEFAULTS.retryPeriod()));
        } catch (IllegalArgumentException e) {
            throw new InputException(e.getMessage() + " (--leader-elect-lease-duration, --leader-elect-renew-deadline, "
                    + "--leader-elect-retry-period)");
        }
        return new Resolved(server, secure, neutral, new VolcanoSettings(weight, dialect, neutral), level, timing);
    }

    /** @return {@code " (FLAG or KEY in FILE)"} with a config file, else empty (a flag's message names its value) */
    private String where(String flag, String key) {
        return config == null ? "" : " (" + flag + " or " + key + " in " + config + ")";
    }

    /** A duration from the config file ({@code 15s}, {@code 2m}, {@code PT15S}), or null when the key is absent. */
    private static Duration duration(String text, String key, String where) {
        if (text == null) {
            return null;
        }
        try {
            return new AgentCommand.DurationConverter().convert(text);
        } catch (picocli.CommandLine.TypeConversionException e) {
            throw new InputException(key + ": " + e.getMessage() + where);
        }
    }

    /** Parses a byte size: a plain number or a Kubernetes quantity ({@code 64Mi}, {@code 100M}). */
    static long parseSize(String text, String where) {
        return parseSize(text, "max request size", where);
    }

    static long parseSize(String text, String what, String where) {
        BigDecimal v;
        try {
            v = PodJson.parseQuantity(text.trim(), "config", what);
        } catch (WireFormatException e) {
            throw new InputException(what + " \"" + text + "\" is not a byte count or quantity like 64Mi" + where);
        }
        if (v.signum() <= 0 || v.compareTo(BigDecimal.valueOf(ServerSettings.MAX_CONFIGURABLE_BYTES)) > 0) {
            throw new InputException(what + " must be 1 byte to 2Gi, got " + text + where);
        }
        return v.setScale(0, java.math.RoundingMode.CEILING).longValueExact();
    }

    private static <T> T first(T flag, T file, T dflt) {
        return flag != null ? flag : file != null ? file : dflt;
    }
}
