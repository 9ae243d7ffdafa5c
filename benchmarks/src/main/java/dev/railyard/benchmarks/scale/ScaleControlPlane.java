package dev.railyard.benchmarks.scale;

import dev.railyard.e2e.ClusterPki;
import dev.railyard.e2e.ComponentProcess;
import dev.railyard.e2e.ControlPlane;
import dev.railyard.e2e.E2eBinaries;
import dev.railyard.e2e.LoopbackPorts;
import dev.railyard.e2e.VolcanoModule;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * etcd and kube-apiserver on 127.0.0.1, started from test-e2e's binaries with test-e2e's launcher pieces
 * ({@link ClusterPki}, {@link ComponentProcess}, {@link LoopbackPorts}, {@link E2eBinaries}, {@link VolcanoModule}),
 * sized for tens of thousands of objects, plus the CRDs Railyard watches: every Volcano CRD of the pinned module,
 * Railyard's {@code deploy/crds}, and test-e2e's whereabouts / NetworkAttachmentDefinition / MacvlanNetwork CRDs.
 *
 * <p>Flags as in test-e2e's {@code ControlPlane} (RBAC, no ServiceAccount or TaintNodesByCondition admission, no
 * priority and fairness) plus what size needs: etcd's backend quota raised from 2 GiB to 8 GiB and its request limit
 * from 1.5 MiB to 8 MiB (one whereabouts IPPool holds every address of its range in one object), and the API
 * server's in-flight limits raised so the population runs many requests wide. {@code GOMAXPROCS} is 8 for
 * kube-apiserver and 4 for etcd: on a 2-core machine shared with other work, Go's default of 2 running threads gets
 * the API server only a small share of the cores (Linux shares CPU time per thread), and populating tens of
 * thousands of objects would take hours; each runs in a session of its own ({@link #ownSession}). The API
 * server's Go heap is held near 3 GiB ({@code GOMEMLIMIT}, a soft limit: Go collects more often as it nears it)
 * so that it, etcd and Railyard stay within about 10 GiB on the shared 24 GiB machine. Logs and PID
 * files stay in
 * {@link #runDir()}; {@link #close()} stops both by PID (SIGTERM, SIGKILL after 10 s) and deletes etcd's data.
 */
public final class ScaleControlPlane implements AutoCloseable {
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(180);
    private static final Duration GRACE = Duration.ofSeconds(10);

    private final Path runDir;
    private final List<ComponentProcess> processes = new ArrayList<>();
    private Path kubeconfig;
    private KubernetesClient client;

    private ScaleControlPlane(Path runDir) {
        this.runDir = runDir;
    }

    /**
     * Starts etcd and kube-apiserver and installs the CRDs; on failure everything started is stopped again.
     *
     * @param bin    test-e2e's binaries (etcd, kube-apiserver)
     * @param repo   the repository root (for {@code deploy/crds} and test-e2e's CRD resources)
     * @param runDir where logs, certificates, data and the kubeconfig go
     * @throws IOException when a binary is missing, a process does not start or a CRD cannot be created
     */
    public static ScaleControlPlane start(E2eBinaries bin, Path repo, Path runDir) throws IOException {
        return start(bin, repo, runDir, null);
    }

    /**
     * As {@link #start(E2eBinaries, Path, Path)}, on a copy of a saved etcd data directory ({@link #stopKeepingData})
     * when {@code etcdSeed} is not null: the CRDs it already holds are left as they are.
     */
    public static ScaleControlPlane start(E2eBinaries bin, Path repo, Path runDir, Path etcdSeed) throws IOException {
        var missing = bin.missing(E2eBinaries.ETCD, E2eBinaries.KUBE_APISERVER);
        if (missing.isPresent()) {
            throw new IOException(missing.get());
        }
        ScaleControlPlane cp = new ScaleControlPlane(runDir.toAbsolutePath());
        try {
            if (etcdSeed != null) {
                Path data = cp.runDir.resolve("data");
                Files.createDirectories(data);
                copyTree(etcdSeed, data.resolve("etcd"));
            }
            cp.bringUp(bin, repo, etcdSeed != null);
            return cp;
        } catch (IOException | RuntimeException | Error e) {
            cp.close();
            throw e;
        }
    }

    private void bringUp(E2eBinaries bin, Path repo, boolean restored) throws IOException {
        Files.createDirectories(runDir);
        ClusterPki pki = ClusterPki.create(runDir.resolve("pki"));
        int[] ports = LoopbackPorts.pick(3);
        String etcdUrl = "http://127.0.0.1:" + ports[0];
        String peerUrl = "http://127.0.0.1:" + ports[1];
        ComponentProcess etcd = launch("etcd", List.of(bin.path(E2eBinaries.ETCD).toString(),
                "--name=default", "--data-dir=" + runDir.resolve("data/etcd"),
                "--listen-client-urls=" + etcdUrl, "--advertise-client-urls=" + etcdUrl,
                "--listen-peer-urls=" + peerUrl, "--initial-advertise-peer-urls=" + peerUrl,
                "--initial-cluster=default=" + peerUrl, "--unsafe-no-fsync=true", "--log-level=warn",
                // a restored data directory names the peer port of the run that saved it; this run's port is new
                restored ? "--force-new-cluster=true" : "--force-new-cluster=false",
                "--quota-backend-bytes=" + (8L << 30), "--max-request-bytes=" + (8 << 20)), Map.of("GOMAXPROCS", "4"));
        String apiServer = "https://127.0.0.1:" + ports[2];
        ComponentProcess apiserver = launch("kube-apiserver", List.of(bin.path(E2eBinaries.KUBE_APISERVER).toString(),
                "--etcd-servers=" + etcdUrl,
                "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port=" + ports[2],
                "--tls-cert-file=" + pki.servingCert(), "--tls-private-key-file=" + pki.servingKey(),
                "--client-ca-file=" + pki.caCert(),
                "--service-account-issuer=" + apiServer, "--service-account-key-file=" + pki.serviceAccountPub(),
                "--service-account-signing-key-file=" + pki.serviceAccountKey(),
                "--service-cluster-ip-range=10.252.0.0/24", "--authorization-mode=RBAC",
                "--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
                "--enable-priority-and-fairness=false", "--profiling=false",
                "--max-requests-inflight=800", "--max-mutating-requests-inflight=400",
                "--cert-dir=" + runDir.resolve("pki/apiserver")), Map.of("GOMAXPROCS", "8", "GOMEMLIMIT", "3GiB"));
        kubeconfig = runDir.resolve("admin.kubeconfig");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters:
                - name: railyard-scale
                  cluster: {server: "%s", certificate-authority: "%s"}
                users:
                - name: admin
                  user: {client-certificate: "%s", client-key: "%s"}
                contexts:
                - name: railyard-scale
                  context: {cluster: railyard-scale, user: admin}
                current-context: railyard-scale
                """.formatted(apiServer, pki.caCert(), pki.adminCert(), pki.adminKey()), StandardCharsets.UTF_8);
        Config config = Config.fromKubeconfig(kubeconfig.toFile());
        config.setRequestTimeout(120_000);
        config.setMaxConcurrentRequests(256);
        config.setMaxConcurrentRequestsPerHost(256);
        // HTTP/1.1 over a pool of connections: one HTTP/2 connection carried only a dozen requests at a time here
        config.setHttp2Disable(true);
        client = new KubernetesClientBuilder().withConfig(config).build();
        awaitReady(etcd, apiserver);
        List<Path> crdFiles = new ArrayList<>(VolcanoModule.locate().crdFiles());
        crdFiles.addAll(yamlFiles(repo.resolve("deploy/crds")));
        crdFiles.addAll(yamlFiles(repo.resolve("test-e2e/src/test/resources/crds")));
        List<String> created = new ArrayList<>();
        for (Path f : crdFiles) {
            created.addAll(createCrds(f));
        }
        for (String name : created) {
            client.apiextensions().v1().customResourceDefinitions().withName(name).waitUntilCondition(
                    ScaleControlPlane::established, READY_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    private void awaitReady(ComponentProcess etcd, ComponentProcess apiserver) throws IOException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            etcd.assertAlive();
            apiserver.assertAlive();
            try {
                if (client.raw("/readyz") != null) {
                    return;
                }
            } catch (RuntimeException e) {
                last = e.getMessage();
            }
            sleep(250);
        }
        throw new IOException("kube-apiserver not ready after " + READY_TIMEOUT.toSeconds() + " s (" + last
                + "); log " + apiserver.log() + ":\n" + apiserver.tail(20));
    }

    private List<String> createCrds(Path file) throws IOException {
        List<String> names = new ArrayList<>();
        try (InputStream in = Files.newInputStream(file)) {
            for (HasMetadata item : client.load(in).items()) {
                if (!(item instanceof CustomResourceDefinition crd)) {
                    throw new IOException(file + ": expected only CustomResourceDefinitions, found " + item.getKind());
                }
                try {
                    client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
                } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                    if (e.getCode() != 409) { // 409: restored from a saved etcd that has it already
                        throw e;
                    }
                }
                names.add(crd.getMetadata().getName());
            }
        }
        return names;
    }

    private static boolean established(CustomResourceDefinition crd) {
        return crd != null && crd.getStatus() != null && crd.getStatus().getConditions() != null
                && crd.getStatus().getConditions().stream()
                .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    private static List<Path> yamlFiles(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new IOException("CRD directory " + dir.toAbsolutePath() + " does not exist (run from the repository root"
                    + " or pass --repo)");
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml")).sorted().toList();
        }
    }

    private ComponentProcess launch(String name, List<String> command, Map<String, String> env) throws IOException {
        ComponentProcess p = ComponentProcess.start(name, ownSession(command), env, runDir, GRACE);
        processes.add(p);
        return p;
    }

    /** Admin client ({@code system:masters}), up to 256 requests in flight. */
    public KubernetesClient client() {
        return client;
    }

    /** The admin kubeconfig, for {@code railyard serve --kubeconfig}. */
    public Path kubeconfig() {
        return kubeconfig;
    }

    /** Logs, PID files, certificates and etcd's data of this run. */
    public Path runDir() {
        return runDir;
    }

    /** PID of a component ({@code etcd}, {@code kube-apiserver}), or -1. */
    public long pid(String name) {
        return processes.stream().filter(p -> p.name().equals(name)).mapToLong(ComponentProcess::pid)
                .findFirst().orElse(-1);
    }

    /** Stops kube-apiserver then etcd by PID and deletes etcd's data and the keys; logs stay. */
    @Override
    public void close() {
        if (client != null) {
            client.close();
        }
        for (int i = processes.size() - 1; i >= 0; i--) {
            processes.get(i).stop();
        }
        ControlPlane.deleteTree(runDir.resolve("data"));
        ControlPlane.deleteTree(runDir.resolve("pki"));
    }

    /**
     * Stops kube-apiserver then etcd and moves etcd's data directory to {@code target} (which must not exist; same file
     * system), for {@link #start(E2eBinaries, Path, Path, Path)} to start from later. The rest is deleted as by
     * {@link #close()}.
     */
    public void stopKeepingData(Path target) throws IOException {
        if (client != null) {
            client.close();
            client = null;
        }
        for (int i = processes.size() - 1; i >= 0; i--) {
            processes.get(i).stop();
        }
        Files.createDirectories(target.getParent());
        Files.move(runDir.resolve("data/etcd"), target);
        close();
    }

    private static void copyTree(Path from, Path to) throws IOException {
        // cp keeps etcd's file modes and is several times faster than a Java walk for its few large files
        try {
            Process p = new ProcessBuilder("cp", "-a", from.toString(), to.toString()).inheritIO().start();
            if (p.waitFor() != 0) {
                throw new IOException("cp -a " + from + " " + to + " failed with exit " + p.exitValue());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while copying " + from, e);
        }
    }

    /**
     * {@code command} run in a session of its own ({@code setsid}, which execs in place, so the PID stays the
     * process's): with Linux's autogroup scheduling, CPU time is shared between sessions first, so etcd, the API
     * server and Railyard each get a share as separate machines or pods would, instead of splitting this JVM's one
     * share with the load generator. Unchanged when {@code setsid} is not there.
     */
    static List<String> ownSession(List<String> command) {
        for (String dir : new String[]{"/usr/bin/setsid", "/bin/setsid"}) {
            if (Files.isExecutable(Path.of(dir))) {
                List<String> out = new ArrayList<>(List.of(dir));
                out.addAll(command);
                return out;
            }
        }
        return command;
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

}
