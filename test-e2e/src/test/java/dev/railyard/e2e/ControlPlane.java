package dev.railyard.e2e;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A real Kubernetes control plane of local processes on 127.0.0.1, for end-to-end tests: etcd, kube-apiserver,
 * optionally kube-scheduler and Volcano's vc-scheduler and vc-controller-manager, a {@link FakeKubelet} in this JVM
 * and fake GPU nodes ({@link GpuNodes}).
 *
 * <p>Start order: certificates, etcd,
 * kube-apiserver (wait for {@code /readyz}), admin kubeconfig, CRDs (Volcano's from the Go module cache, Railyard's
 * from {@code deploy/crds}, whereabouts / NetworkAttachmentDefinition / MacvlanNetwork from this module's test
 * resources; wait for {@code Established}), fake nodes, fake kubelet, kube-scheduler, vc-scheduler (its
 * {@code volcano-scheduler.conf} is written before it starts; wait for queues {@code root} and {@code default}),
 * vc-controller-manager. A Railyard extender, when configured, must already be listening: vc-scheduler skips an
 * extender whose {@code onSessionOpen} fails (docs/formats/volcano-extender.md §4).
 *
 * <p>Every listener binds 127.0.0.1 on a free port. Logs, generated configs and PID files stay in
 * {@link #runDir()} ({@code target/e2e-logs/<run>/}); {@link #close()} stops the processes in reverse order by
 * their recorded PIDs and deletes only etcd's data and the keys.
 *
 * <p><b>External cluster</b> ({@link #attach}, when system property {@code railyard.e2e.kubeconfig} or environment
 * variable {@code RAILYARD_E2E_KUBECONFIG} names a kubeconfig, e.g. the kind cluster of {@code test-e2e/kind/}):
 * no process is started; the cluster's own kube-scheduler and Volcano (installed by the user) schedule. The
 * suite's CRDs that are missing are created (never Volcano's: its release installs them), the fake GPU nodes are
 * created with kwok's annotation {@code kwok.x-k8s.io/node: fake} so an in-cluster kwok keeps them Ready, and the
 * {@link FakeKubelet} runs as locally. {@link #close()} deletes the nodes and namespaces this run created and waits
 * for the namespaces to be gone, so the next suite starts from the same state. Options that need processes of
 * their own (an extender, a prelude that starts Railyard) cannot run there: {@link Options#localOnlyReason()}.
 */
public final class ControlPlane implements AutoCloseable {

    /** How long SIGTERM is given before SIGKILL. */
    private static final Duration GRACE = Duration.ofSeconds(10);
    /** Upper bound for each readiness wait; a cold kube-apiserver needs 10–20 s on two shared cores. */
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);

    /**
     * What to run.
     *
     * @param gpuNodes names of fake GPU nodes to create (seed capacity, {@link GpuNodes#node})
     * @param kubeScheduler whether to run kube-scheduler
     * @param kubeExtender kube-scheduler's HTTP extender, if any (needs {@code kubeScheduler})
     * @param volcano whether to run vc-scheduler and vc-controller-manager
     * @param volcanoExtender vc-scheduler's {@code extender} plugin, if any (needs {@code volcano})
     * @param prelude run after the CRDs, nodes and fake kubelet exist and before any scheduler starts: cluster
     *        objects the schedulers must see at once, and the extender, which must listen before vc-scheduler starts
     *        (docs/formats/volcano-extender.md §4)
     * @param capacities node name → the capacity (= allocatable) it is created with ({@link ClusterShape}); nodes not
     *        named get the seed's ({@link GpuNodes#capacity()})
     */
    public record Options(List<String> gpuNodes, boolean kubeScheduler, Optional<KubeSchedulerConf.Extender> kubeExtender,
                          boolean volcano, Optional<VolcanoSchedulerConf.Extender> volcanoExtender,
                          Optional<Prelude> prelude, Map<String, Map<String, Quantity>> capacities) {

        /** Options whose nodes all have the seed capacity ({@link GpuNodes#capacity()}). */
        public Options(List<String> gpuNodes, boolean kubeScheduler,
                       Optional<KubeSchedulerConf.Extender> kubeExtender, boolean volcano,
                       Optional<VolcanoSchedulerConf.Extender> volcanoExtender, Optional<Prelude> prelude) {
            this(gpuNodes, kubeScheduler, kubeExtender, volcano, volcanoExtender, prelude, Map.of());
        }

        /**
         * @throws IllegalArgumentException if an extender is given for a scheduler that does not run
         */
        public Options {
            gpuNodes = List.copyOf(gpuNodes);
            capacities = Map.copyOf(capacities);
            if (kubeExtender.isPresent() && !kubeScheduler) {
                throw new IllegalArgumentException("a kube-scheduler extender needs kubeScheduler=true");
            }
            if (volcanoExtender.isPresent() && !volcano) {
                throw new IllegalArgumentException("a Volcano extender needs volcano=true");
            }
        }

        /** kube-scheduler without an extender, over {@code gpuNodes}. */
        public static Options kubeScheduler(List<String> gpuNodes) {
            return new Options(gpuNodes, true, Optional.empty(), false, Optional.empty(), Optional.empty());
        }

        /** kube-scheduler with an HTTP extender that {@code prelude} starts. */
        public static Options kubeScheduler(List<String> gpuNodes, KubeSchedulerConf.Extender extender,
                                            Prelude prelude) {
            return new Options(gpuNodes, true, Optional.of(extender), false, Optional.empty(), Optional.of(prelude));
        }

        /** vc-scheduler and vc-controller-manager, with or without Railyard as extender. */
        public static Options volcano(List<String> gpuNodes, Optional<VolcanoSchedulerConf.Extender> extender) {
            return new Options(gpuNodes, false, Optional.empty(), true, extender, Optional.empty());
        }

        /** vc-scheduler and vc-controller-manager with an {@code extender} plugin that {@code prelude} starts. */
        public static Options volcano(List<String> gpuNodes, VolcanoSchedulerConf.Extender extender, Prelude prelude) {
            return new Options(gpuNodes, false, Optional.empty(), true, Optional.of(extender), Optional.of(prelude));
        }

        /** Only etcd and kube-apiserver (plus CRDs and nodes): for API-level checks. */
        /** These options with the nodes' capacities of a {@link ClusterShape} (others keep the seed's). */
        public Options withCapacities(Map<String, Map<String, Quantity>> nodeCapacities) {
            return new Options(gpuNodes, kubeScheduler, kubeExtender, volcano, volcanoExtender, prelude,
                    nodeCapacities);
        }

        /** @return the capacity node {@code name} is created with */
        public Map<String, Quantity> capacity(String name) {
            return capacities.getOrDefault(name, GpuNodes.capacity());
        }

        public static Options apiOnly(List<String> gpuNodes) {
            return new Options(gpuNodes, false, Optional.empty(), false, Optional.empty(), Optional.empty());
        }

        /**
         * Why these options need a local control plane, or empty when an external cluster can serve them: an
         * extender needs a scheduler configuration written by the suite, a prelude starts processes (Railyard) the
         * suite controls; on an external cluster the schedulers and Railyard are the cluster's own.
         */
        public Optional<String> localOnlyReason() {
            if (kubeExtender.isPresent() || volcanoExtender.isPresent() || prelude.isPresent()) {
                return Optional.of("needs the local control plane: it configures the schedulers' extender and "
                        + "starts Railyard itself, which an external cluster (railyard.e2e.kubeconfig) does not allow");
            }
            return Optional.empty();
        }

        /** Binaries these options need. */
        public List<String> binaries() {
            List<String> b = new ArrayList<>(List.of(E2eBinaries.ETCD, E2eBinaries.KUBE_APISERVER));
            if (kubeScheduler) {
                b.add(E2eBinaries.KUBE_SCHEDULER);
            }
            if (volcano) {
                b.add(E2eBinaries.VC_SCHEDULER);
                b.add(E2eBinaries.VC_CONTROLLER_MANAGER);
            }
            return b;
        }
    }

    /** Work done between "nodes exist" and "schedulers start" (see {@link Options#prelude}). */
    @FunctionalInterface
    public interface Prelude {
        /**
         * @throws IOException if a process cannot be started or an object cannot be created
         */
        void run(ControlPlane controlPlane) throws IOException;
    }

    /** Seconds each bring-up step took, in order, for the report line printed after start. */
    private final List<String> timings = new ArrayList<>();
    private final List<ComponentProcess> processes = new ArrayList<>();
    private final Path runDir;
    private final Path dataDir;
    private final Path pkiDir;
    private ClusterPki pki;
    private Path kubeconfig;
    private URI apiServer;
    private KubernetesClient client;
    private FakeKubelet kubelet;
    private long startedNanos;
    /** True when attached to an external cluster ({@link #attach}): nothing to stop, only what it created to delete. */
    private boolean external;
    private final List<String> createdNodes = new ArrayList<>();
    private final List<String> createdNamespaces = new ArrayList<>();

    private ControlPlane(Path runDir) {
        this.runDir = runDir;
        this.dataDir = runDir.resolve("data");
        this.pkiDir = runDir.resolve("pki");
    }

    /**
     * Starts a control plane as described on the type; on any failure everything already started is stopped
     * before the exception propagates.
     *
     * @param logsRoot parent of the run directory (e.g. {@code target/e2e-logs})
     * @throws IOException if a process cannot be started, a file cannot be written or a readiness wait fails
     */
    public static ControlPlane start(E2eBinaries bin, Options options, Path logsRoot) throws IOException {
        String run = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS"));
        ControlPlane cp = new ControlPlane(logsRoot.resolve(run).toAbsolutePath());
        try {
            cp.bringUp(bin, options);
            return cp;
        } catch (IOException | RuntimeException e) {
            cp.close();
            throw e;
        }
    }

    /**
     * The external cluster's kubeconfig: system property {@code railyard.e2e.kubeconfig}, else environment
     * variable {@code RAILYARD_E2E_KUBECONFIG}; empty when neither is set (local control plane).
     */
    public static Optional<Path> externalKubeconfig() {
        String p = System.getProperty("railyard.e2e.kubeconfig", "");
        if (p.isBlank()) {
            p = System.getenv().getOrDefault("RAILYARD_E2E_KUBECONFIG", "");
        }
        return p.isBlank() ? Optional.empty() : Optional.of(Path.of(p));
    }

    /**
     * Attaches to an existing cluster instead of starting one (see "External cluster" on the type): creates the
     * suite's missing CRDs, the fake GPU nodes (kwok-managed) and the {@link FakeKubelet}; starts no process.
     *
     * @param kubeconfig a kubeconfig whose current context may create CRDs, nodes, namespaces and impersonate
     * @throws IOException if the kubeconfig cannot be read or an object cannot be created
     * @throws IllegalArgumentException if {@code options} need a local control plane
     */
    public static ControlPlane attach(Path kubeconfig, Options options, Path logsRoot) throws IOException {
        options.localOnlyReason().ifPresent(why -> {
            throw new IllegalArgumentException(why);
        });
        if (!Files.isReadable(kubeconfig)) {
            throw new IOException("kubeconfig " + kubeconfig.toAbsolutePath() + " (railyard.e2e.kubeconfig) is not readable");
        }
        String run = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS"));
        ControlPlane cp = new ControlPlane(logsRoot.resolve(run).toAbsolutePath());
        cp.external = true;
        try {
            cp.attachTo(kubeconfig.toAbsolutePath(), options);
            return cp;
        } catch (IOException | RuntimeException e) {
            cp.close();
            throw e;
        }
    }

    /** Whether this is an external cluster ({@link #attach}) rather than local processes. */
    public boolean external() {
        return external;
    }

    private void attachTo(Path externalKubeconfig, Options options) throws IOException {
        Files.createDirectories(runDir);
        startedNanos = System.nanoTime();
        long t = System.nanoTime();
        kubeconfig = externalKubeconfig;
        Config config = Config.fromKubeconfig(kubeconfig.toFile());
        config.setRequestTimeout(30_000);
        client = new KubernetesClientBuilder().withConfig(config).build();
        apiServer = URI.create(client.getMasterUrl().toString());
        int crds = 0;
        for (Path file : ownCrdFiles()) {
            crds += ensureCrds(file).size();
        }
        t = step(crds + " missing CRDs created", t);
        for (int i = 0; i < options.gpuNodes().size(); i++) {
            Node node = GpuNodes.node(options.gpuNodes().get(i), i + 1, options.capacity(options.gpuNodes().get(i)));
            // kwok's in-cluster controller (test-e2e/kind) keeps nodes with this annotation Ready (heartbeats), so
            // the node lifecycle controller does not taint them unreachable; the FakeKubelet plays the pods.
            node.getMetadata().setAnnotations(Map.of("kwok.x-k8s.io/node", "fake"));
            // kwok's node-heartbeat stage (kustomize/stage/node/heartbeat) selects phase Running and Ready=True.
            node.getStatus().setPhase("Running");
            client.nodes().resource(node).create();
            createdNodes.add(node.getMetadata().getName());
            client.nodes().resource(node).updateStatus();
        }
        kubelet = new FakeKubelet(client).start();
        step(options.gpuNodes().size() + " fake GPU nodes + fake kubelet", t);
        String line = "[e2e] attached to " + apiServer + " (" + kubeconfig + ") in "
                + seconds(System.nanoTime() - startedNanos) + " s (" + String.join(", ", timings) + ")";
        System.out.println(line);
        Files.writeString(runDir.resolve("timings.txt"), line + System.lineSeparator(), StandardCharsets.UTF_8);
    }

    private void bringUp(E2eBinaries bin, Options options) throws IOException {
        Files.createDirectories(runDir);
        startedNanos = System.nanoTime();
        long t = System.nanoTime();
        pki = ClusterPki.create(pkiDir);
        t = step("certificates", t);

        int[] ports = LoopbackPorts.pick(4);
        int etcdClient = ports[0];
        int etcdPeer = ports[1];
        int apiPort = ports[2];
        int kubeSchedulerPort = ports[3];
        String etcdUrl = "http://127.0.0.1:" + etcdClient;
        String peerUrl = "http://127.0.0.1:" + etcdPeer;
        ComponentProcess etcd = launch("etcd", List.of(bin.path(E2eBinaries.ETCD).toString(),
                "--name=default", "--data-dir=" + dataDir.resolve("etcd"),
                "--listen-client-urls=" + etcdUrl, "--advertise-client-urls=" + etcdUrl,
                "--listen-peer-urls=" + peerUrl, "--initial-advertise-peer-urls=" + peerUrl,
                "--initial-cluster=default=" + peerUrl, "--unsafe-no-fsync=true", "--log-level=warn"), Map.of());
        HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        awaitHttp(etcd, plain, URI.create(etcdUrl + "/health"), body -> body.contains("\"health\":\"true\""));
        t = step("etcd", t);

        apiServer = URI.create("https://127.0.0.1:" + apiPort);
        ComponentProcess apiserver = launch("kube-apiserver", List.of(bin.path(E2eBinaries.KUBE_APISERVER).toString(),
                "--etcd-servers=" + etcdUrl,
                "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port=" + apiPort,
                "--tls-cert-file=" + pki.servingCert(), "--tls-private-key-file=" + pki.servingKey(),
                "--client-ca-file=" + pki.caCert(),
                "--service-account-issuer=" + apiServer, "--service-account-key-file=" + pki.serviceAccountPub(),
                "--service-account-signing-key-file=" + pki.serviceAccountKey(),
                "--service-cluster-ip-range=10.252.0.0/24",
                "--authorization-mode=RBAC",
                // No kube-controller-manager runs: no "default" ServiceAccount exists in any namespace, and no
                // node-lifecycle controller would lift the node.kubernetes.io/not-ready:NoSchedule taint that
                // TaintNodesByCondition puts on every new Node.
                "--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
                "--enable-priority-and-fairness=false", "--profiling=false",
                "--cert-dir=" + pkiDir.resolve("apiserver")), Map.of());
        HttpClient tls = tlsClient();
        awaitHttp(apiserver, tls, apiServer.resolve("/readyz"), body -> body.strip().equals("ok"));
        t = step("kube-apiserver", t);

        kubeconfig = runDir.resolve("admin.kubeconfig");
        Files.writeString(kubeconfig, kubeconfigYaml(), StandardCharsets.UTF_8);
        Config config = Config.fromKubeconfig(kubeconfig.toFile());
        config.setRequestTimeout(30_000);
        client = new KubernetesClientBuilder().withConfig(config).build();

        List<CustomResourceDefinition> crds = new ArrayList<>();
        for (Path file : crdFiles()) {
            crds.addAll(createCrds(file));
        }
        for (CustomResourceDefinition crd : crds) {
            client.apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata().getName())
                    .waitUntilCondition(ControlPlane::established, READY_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
        t = step(crds.size() + " CRDs", t);

        for (int i = 0; i < options.gpuNodes().size(); i++) {
            Node node = GpuNodes.node(options.gpuNodes().get(i), i + 1, options.capacity(options.gpuNodes().get(i)));
            client.nodes().resource(node).create();
            // Status is kept on Node create in current apiservers, as when kubelet registers; write it
            // explicitly through the status subresource so the test does not depend on that.
            client.nodes().resource(node).updateStatus();
        }
        kubelet = new FakeKubelet(client).start();
        t = step(options.gpuNodes().size() + " fake GPU nodes + fake kubelet", t);
        if (options.prelude().isPresent()) {
            options.prelude().get().run(this);
            t = step("prelude (cluster objects, extender)", t);
        }

        if (options.kubeScheduler()) {
            Path conf = runDir.resolve("kube-scheduler.yaml");
            Files.writeString(conf, KubeSchedulerConf.render(kubeconfig, options.kubeExtender()), StandardCharsets.UTF_8);
            ComponentProcess ks = launch("kube-scheduler", List.of(bin.path(E2eBinaries.KUBE_SCHEDULER).toString(),
                    // No authentication/authorization kubeconfig: only /healthz (always allowed) is probed.
                    "--config=" + conf,
                    "--bind-address=127.0.0.1", "--secure-port=" + kubeSchedulerPort,
                    "--tls-cert-file=" + pki.servingCert(), "--tls-private-key-file=" + pki.servingKey(),
                    "--v=2"), Map.of());
            awaitHttp(ks, tls, URI.create("https://127.0.0.1:" + kubeSchedulerPort + "/healthz"),
                    body -> body.strip().equals("ok"));
            t = step("kube-scheduler", t);
        }

        if (options.volcano()) {
            // vc-scheduler watches the conf file's whole directory (fsnotify) and reloads on every write or create
            // there (pkg/scheduler/scheduler.go watchSchedulerConf). In runDir its own log writes would trigger a
            // reload each, which logs a line: a busy loop of thousands of reloads per second. Own directory.
            Path confDir = runDir.resolve("vc-scheduler-conf");
            Files.createDirectories(confDir);
            Path conf = confDir.resolve("volcano-scheduler.conf");
            Files.writeString(conf, VolcanoSchedulerConf.render(options.volcanoExtender()), StandardCharsets.UTF_8);
            Path sockets = runDir.resolve("klog-socks");
            Files.createDirectories(sockets);
            // vc-scheduler opens a klog-level unix socket under /tmp/klog-socks unless DEBUG_SOCKET_DIR says where.
            Map<String, String> env = Map.of("DEBUG_SOCKET_DIR", sockets.toString());
            ComponentProcess vcs = launch("vc-scheduler", List.of(bin.path(E2eBinaries.VC_SCHEDULER).toString(),
                    "--kubeconfig=" + kubeconfig, "--scheduler-conf=" + conf, "--leader-elect=false",
                    "--scheduler-name=volcano", "--schedule-period=1s", "--default-queue=default", "-v=3"), env);
            await().atMost(READY_TIMEOUT).pollInterval(Duration.ofMillis(250)).until(() -> {
                vcs.assertAlive();
                return client.genericKubernetesResources("scheduling.volcano.sh/v1beta1", "Queue")
                        .withName("default").get() != null;
            });
            t = step("vc-scheduler (queues created)", t);
            ComponentProcess vcm = launch("vc-controller-manager", List.of(
                    bin.path(E2eBinaries.VC_CONTROLLER_MANAGER).toString(),
                    "--kubeconfig=" + kubeconfig, "--leader-elect=false", "--scheduler-name=volcano",
                    "--controllers=job-controller,pg-controller,queue-controller,gc-controller", "-v=3"), env);
            // It has no readiness endpoint unless healthz is enabled; a crash at start shows here.
            await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> {
                vcm.assertAlive();
                return true;
            });
            t = step("vc-controller-manager", t);
        }
        String line = "[e2e] control plane up in " + seconds(System.nanoTime() - startedNanos) + " s ("
                + String.join(", ", timings) + "); logs: " + runDir;
        System.out.println(line);
        Files.writeString(runDir.resolve("timings.txt"), line + System.lineSeparator(), StandardCharsets.UTF_8);
    }

    /** Admin client (system:masters) for the test; closed by {@link #close()}. */
    public KubernetesClient client() {
        return client;
    }

    /** Creates namespace {@code name} unless it exists (no controller deletes namespaces here). */
    public void ensureNamespace(String name) {
        if (client.namespaces().withName(name).get() == null) {
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata()
                    .build()).create();
            if (external) {
                createdNamespaces.add(name);
            }
        }
    }

    /** Path of the admin kubeconfig, usable by other processes (e.g. a Railyard server under test). */
    public Path kubeconfig() {
        return kubeconfig;
    }

    /** The kube-apiserver URL, {@code https://127.0.0.1:<port>}. */
    public URI apiServer() {
        return apiServer;
    }

    /** The run's certificates (CA, serving certificate for 127.0.0.1, admin client certificate). */
    ClusterPki pki() {
        return pki;
    }

    /** Scratch directory of this run (etcd data and the like), deleted by {@link #close()}. */
    Path scratchDir() {
        return dataDir;
    }

    /** Directory with this run's logs, generated configs and PID files. */
    public Path runDir() {
        return runDir;
    }

    /** The fake kubelet, e.g. to check it saw no unexpected errors. */
    public FakeKubelet kubelet() {
        return kubelet;
    }

    /** The process of a component by name ({@code etcd}, {@code kube-apiserver}, …), if it was started. */
    public Optional<ComponentProcess> process(String name) {
        return processes.stream().filter(p -> p.name().equals(name)).findFirst();
    }

    /** Stops everything in reverse start order by recorded PID and removes etcd data and keys; logs stay. */
    @Override
    public void close() {
        if (kubelet != null) {
            kubelet.close();
        }
        if (external && client != null) {
            removeCreatedObjects();
        }
        if (client != null) {
            client.close();
        }
        List<String> stopped = new ArrayList<>();
        for (int i = processes.size() - 1; i >= 0; i--) {
            ComponentProcess p = processes.get(i);
            stopped.add(p + " exit " + p.stop().map(String::valueOf).orElse("unknown"));
        }
        try {
            if (Files.isDirectory(runDir)) {
                Files.writeString(runDir.resolve("teardown.txt"), String.join(System.lineSeparator(), stopped)
                        + System.lineSeparator(), StandardCharsets.UTF_8);
            }
        } catch (IOException ignored) {
            // the run directory itself is gone; nothing to record
        }
        deleteTree(dataDir);
        deleteTree(pkiDir);
    }

    /** External cluster: deletes the namespaces and nodes this run created and waits until they are gone. */
    private void removeCreatedObjects() {
        try {
            for (String ns : createdNamespaces) {
                client.namespaces().withName(ns).delete();
            }
            for (String node : createdNodes) {
                client.nodes().withName(node).delete();
            }
            await().atMost(READY_TIMEOUT).pollInterval(Duration.ofSeconds(1)).until(() ->
                    createdNamespaces.stream().allMatch(ns -> client.namespaces().withName(ns).get() == null)
                            && createdNodes.stream().allMatch(n -> client.nodes().withName(n).get() == null));
        } catch (RuntimeException e) {
            System.err.println("[e2e] could not remove namespaces " + createdNamespaces + " and nodes " + createdNodes
                    + " from the external cluster: " + e.getMessage());
        }
    }

    /**
     * Starts one more component with its log and PID file in {@link #runDir()}; it is stopped by PID in
     * {@link #close()} with the others, in reverse start order.
     *
     * @throws IOException if it cannot be started
     */
    ComponentProcess launch(String name, List<String> command, Map<String, String> env) throws IOException {
        ComponentProcess p = ComponentProcess.start(name, command, env, runDir, GRACE);
        processes.add(p);
        return p;
    }

    private long step(String what, long since) {
        long now = System.nanoTime();
        timings.add(what + " " + seconds(now - since) + " s");
        return now;
    }

    private static String seconds(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.1f", nanos / 1e9);
    }

    /** Polls {@code url} until it answers 200 with a body {@code ok} accepts, failing fast if {@code p} dies. */
    private static void awaitHttp(ComponentProcess p, HttpClient http, URI url,
                                  java.util.function.Predicate<String> ok) {
        HttpRequest req = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(5)).GET().build();
        try {
            await().atMost(READY_TIMEOUT).pollInterval(Duration.ofMillis(200)).ignoreExceptionsMatching(
                    e -> e instanceof IOException).until(() -> {
                        p.assertAlive();
                        HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
                        return r.statusCode() == 200 && ok.test(r.body());
                    });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new IllegalStateException(p.name() + " not ready at " + url + " after " + READY_TIMEOUT.toSeconds()
                    + " s; last log lines of " + p.log() + ":\n" + p.tail(25), e);
        }
    }

    /** HTTPS client that trusts the test CA and presents the admin certificate. */
    private HttpClient tlsClient() throws IOException {
        try {
            KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
            trust.load(null, null);
            try (InputStream in = Files.newInputStream(pki.caCert())) {
                trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            KeyStore keys = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(pki.adminP12())) {
                keys.load(in, ClusterPki.P12_PASSWORD.toCharArray());
            }
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, ClusterPki.P12_PASSWORD.toCharArray());
            SSLContext ssl = SSLContext.getInstance("TLS");
            ssl.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return HttpClient.newBuilder().sslContext(ssl).connectTimeout(Duration.ofSeconds(2)).build();
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot load test certificates from " + pkiDir + ": " + e.getMessage(), e);
        }
    }

    private String kubeconfigYaml() {
        return """
                apiVersion: v1
                kind: Config
                clusters:
                - name: railyard-e2e
                  cluster:
                    server: %s
                    certificate-authority: %s
                users:
                - name: e2e-admin
                  user:
                    client-certificate: %s
                    client-key: %s
                contexts:
                - name: railyard-e2e
                  context:
                    cluster: railyard-e2e
                    user: e2e-admin
                current-context: railyard-e2e
                """.formatted(apiServer, pki.caCert(), pki.adminCert(), pki.adminKey());
    }

    /**
     * CRD files to install: every Volcano CRD of the pinned volcano.sh/volcano module (vc-scheduler's and
     * vc-controller-manager's informers block until all of theirs exist), Railyard's own from {@code deploy/crds},
     * and the whereabouts / NAD / MacvlanNetwork ones from this module's test resources.
     */
    private static List<Path> crdFiles() throws IOException {
        List<Path> files = new ArrayList<>(VolcanoModule.locate().crdFiles());
        files.addAll(ownCrdFiles());
        return files;
    }

    /** Railyard's CRDs from {@code deploy/crds} and the whereabouts / NAD / MacvlanNetwork ones of this module. */
    private static List<Path> ownCrdFiles() throws IOException {
        List<Path> files = new ArrayList<>();
        Path railyard = Path.of(System.getProperty("railyard.e2e.crds", "../deploy/crds"));
        files.addAll(yamlFiles(railyard));
        Path ours;
        try {
            ours = Path.of(ControlPlane.class.getResource("/crds").toURI());
        } catch (java.net.URISyntaxException | NullPointerException e) {
            throw new IOException("test resources directory /crds not on the classpath", e);
        }
        files.addAll(yamlFiles(ours));
        return files;
    }

    static List<Path> yamlFiles(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new IOException("CRD directory " + dir.toAbsolutePath() + " does not exist");
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml")).sorted().toList();
        }
    }

    private List<CustomResourceDefinition> createCrds(Path file) throws IOException {
        return createCrds(file, false);
    }

    /**
     * Creates the CRDs of {@code file} the cluster does not have yet and waits until they are {@code Established}.
     *
     * @return names of the CRDs created (empty when all existed)
     * @throws IOException if the file holds anything but CRDs or the API server refuses one
     */
    public List<String> ensureCrds(Path file) throws IOException {
        List<CustomResourceDefinition> created = createCrds(file, true);
        for (CustomResourceDefinition crd : created) {
            client.apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata().getName())
                    .waitUntilCondition(ControlPlane::established, READY_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
        return created.stream().map(c -> c.getMetadata().getName()).toList();
    }

    /** Creates the CRDs in {@code file}; with {@code skipExisting}, only those the cluster does not have yet. */
    private List<CustomResourceDefinition> createCrds(Path file, boolean skipExisting) throws IOException {
        List<CustomResourceDefinition> created = new ArrayList<>();
        try (InputStream in = Files.newInputStream(file)) {
            for (HasMetadata item : client.load(in).items()) {
                if (!(item instanceof CustomResourceDefinition crd)) {
                    throw new IOException(file + ": expected only CustomResourceDefinitions, found " + item.getKind()
                            + " " + item.getMetadata().getName());
                }
                if (skipExisting && client.apiextensions().v1().customResourceDefinitions()
                        .withName(crd.getMetadata().getName()).get() != null) {
                    continue;
                }
                // create, not client-side apply: Volcano's jobs/cronjobs CRDs are too large for the
                // last-applied-configuration annotation (docs/formats/volcano-job.md §3).
                created.add(client.apiextensions().v1().customResourceDefinitions().resource(crd).create());
            }
        } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
            throw new IOException("cannot create CRDs from " + file + ": " + e.getMessage(), e);
        }
        return created;
    }

    private static boolean established(CustomResourceDefinition crd) {
        // the apiextensions controller fills status.conditions a moment after a create: none yet = not established
        return crd != null && crd.getStatus() != null && crd.getStatus().getConditions() != null
                && crd.getStatus().getConditions().stream()
                .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    /**
     * Deletes a directory tree, best effort: what cannot be deleted is reported on stderr, never thrown (a run
     * directory left behind must not fail the run). Also used by the scale benchmark's control plane.
     *
     * @param dir the directory; nothing happens when it does not exist
     */
    public static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            System.err.println("[e2e] could not delete " + dir + ": " + e.getMessage());
        }
    }
}
