package dev.railyard.e2e;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Railyard's extender service under test: {@code java -jar scheduler/target/railyard.jar serve} as a child process
 * of this JVM, on 127.0.0.1 and a free port, with the control plane's admin kubeconfig ({@code --kubeconfig}) and
 * its {@code pods/binding} hint webhook on a second port over HTTPS (see {@link #webhookUrl()}). Its
 * log and PID file are in the control plane's run directory ({@code railyard-<n>.log}); it is stopped by PID like
 * every other component.
 *
 * <p>The jar is system property {@code railyard.e2e.jar} (set by this module's pom to
 * {@code ../scheduler/target/railyard.jar}), copied once per control plane into its scratch directory; it is run
 * with the JVM running the tests (Java 21 or newer).
 */
public final class RailyardProcess {

    /** How long Railyard gets to answer {@code /readyz} with 200 (JVM start plus the cluster cache's first list). */
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

    /** Path of the {@code pods/binding} admission webhook ({@code BindingHintWebhook.PATH}). */
    public static final String WEBHOOK_PATH = "/admission/pods-binding";

    private final ControlPlane controlPlane;
    private final String name;
    private final List<String> extraArgs;
    private final Map<String, String> env;
    /** Ports kept across restarts, so the scheduler configs and the webhook configuration stay valid. */
    private final int port;
    private final int webhookPort;
    private int generation;
    private ComponentProcess process;
    private URI url;

    /**
     * Picks the two ports: the extender verbs (plain HTTP) and the webhook (HTTPS with the control plane's serving
     * certificate for 127.0.0.1, signed by its CA, as {@code --webhook-tls-cert} / {@code --webhook-tls-key}).
     *
     * @param controlPlane whose kubeconfig and certificates Railyard uses and whose run directory holds its log
     * @param extraArgs    more {@code serve} flags, e.g. {@code --log-level=debug}
     */
    public RailyardProcess(ControlPlane controlPlane, List<String> extraArgs) {
        this(controlPlane, "railyard", extraArgs, Map.of());
    }

    /**
     * A named instance, for suites that run several at once (e.g. two replicas with leader election).
     *
     * @param name      base name of its log and PID files ({@code <name>-<n>.log})
     * @param extraArgs more {@code serve} flags
     * @param env       extra environment, e.g. {@code POD_NAME} (the leader-election identity)
     */
    public RailyardProcess(ControlPlane controlPlane, String name, List<String> extraArgs, Map<String, String> env) {
        this.controlPlane = controlPlane;
        this.name = name;
        this.extraArgs = List.copyOf(extraArgs);
        this.env = Map.copyOf(env);
        int[] ports = LoopbackPorts.pick(2);
        this.port = ports[0];
        this.webhookPort = ports[1];
    }

    /** {@code https://127.0.0.1:<webhook port>/admission/pods-binding}, for a MutatingWebhookConfiguration. */
    public URI webhookUrl() {
        return URI.create("https://127.0.0.1:" + webhookPort + WEBHOOK_PATH);
    }

    /** The jar under test, {@code scheduler/target/railyard.jar}. */
    public static Path jar() {
        return Path.of(System.getProperty("railyard.e2e.jar", "../scheduler/target/railyard.jar")).toAbsolutePath();
    }

    /**
     * Starts {@code railyard serve} and waits for {@code GET /readyz} to answer 200.
     *
     * @return the base URL, {@code http://127.0.0.1:<port>}
     * @throws IOException if the jar is missing or the process cannot start
     * @throws IllegalStateException if it exits or is not ready in time (with the end of its log)
     */
    public URI start() throws IOException {
        return launchAndAwait("/readyz");
    }

    /**
     * Starts {@code railyard serve} and waits only for {@code GET /healthz} to answer 200 (listening), not for
     * readiness: a leader-election standby with readiness routing is never ready.
     *
     * @return the base URL, {@code http://127.0.0.1:<port>}
     * @throws IOException if the jar is missing or the process cannot start
     * @throws IllegalStateException if it exits or does not listen in time (with the end of its log)
     */
    public URI startServing() throws IOException {
        return launchAndAwait("/healthz");
    }

    private URI launchAndAwait(String probe) throws IOException {
        Path jar = snapshotJar(controlPlane);
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-jar", jar.toString(), "serve", "--address=127.0.0.1", "--port=" + port,
                "--kubeconfig=" + controlPlane.kubeconfig(), "--webhook-port=" + webhookPort,
                "--webhook-tls-cert=" + controlPlane.pki().servingCert(),
                "--webhook-tls-key=" + controlPlane.pki().servingKey()));
        cmd.addAll(extraArgs);
        generation++;
        process = controlPlane.launch(name + "-" + generation, cmd, env);
        url = URI.create("http://127.0.0.1:" + port);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest ready = HttpRequest.newBuilder(url.resolve(probe)).timeout(Duration.ofSeconds(2)).GET().build();
        ComponentProcess p = process;
        try {
            await().atMost(READY_TIMEOUT).pollInterval(Duration.ofMillis(250))
                    .ignoreExceptionsMatching(e -> e instanceof IOException).until(() -> {
                        p.assertAlive();
                        return http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
                    });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new IllegalStateException("railyard serve not ready at " + url + probe + " after "
                    + READY_TIMEOUT.toSeconds() + " s; last log lines of " + p.log() + ":\n" + p.tail(25), e);
        } finally {
            http.close();
        }
        return url;
    }

    /**
     * A private copy of the jar for this control plane's lifetime: a rebuild of {@code scheduler/target/railyard.jar}
     * while the suite runs (another build on the same checkout) would otherwise pull classes out from under the
     * running JVM, which loads them lazily from the file. Shared with {@link RailyardAgentProcess}.
     */
    static Path snapshotJar(ControlPlane controlPlane) throws IOException {
        Path source = jar();
        if (!Files.isRegularFile(source)) {
            throw new IOException("Railyard jar " + source + " not found; build it with "
                    + "`./mvnw -B -q install -DskipTests -pl api,topology,scheduler`");
        }
        Path copy = controlPlane.scratchDir().resolve("railyard.jar");
        if (!Files.isRegularFile(copy)) {
            Files.createDirectories(copy.getParent());
            Path tmp = copy.resolveSibling("railyard.jar.tmp");
            Files.copy(source, tmp, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Files.move(tmp, copy, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        }
        return copy;
    }

    /** Stops the running instance (SIGTERM, SIGKILL after the grace period); no-op when none runs. */
    public void stop() {
        if (process != null) {
            process.stop();
            process = null;
            url = null;
        }
    }

    /** Whether an instance is running. */
    public boolean running() {
        return process != null && process.alive();
    }

    /**
     * SIGKILL to the running instance (a crash: no shutdown hook, nothing released); no-op when none runs.
     *
     * @return its exit code, if observed
     */
    public java.util.Optional<Integer> kill() {
        if (process == null) {
            return java.util.Optional.empty();
        }
        java.util.Optional<Integer> code = process.kill();
        process = null;
        url = null;
        return code;
    }

    /** The current (or last started) process, e.g. to read its exit code or log; null before the first start. */
    public ComponentProcess process() {
        return process;
    }

    /**
     * The sum of the samples of a Prometheus counter or histogram-count line of the running instance whose labels
     * include all of {@code labels}, e.g. {@code railyard_extender_request_seconds_count} with
     * {@code protocol="kube", verb="bind"}.
     *
     * @throws IOException if {@code /metrics} cannot be read
     */
    public double metric(String name, Map<String, String> labels) throws IOException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        String text;
        try {
            text = http.send(HttpRequest.newBuilder(url().resolve("/metrics")).timeout(Duration.ofSeconds(5)).GET()
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted reading /metrics", e);
        } finally {
            http.close();
        }
        double sum = 0;
        for (String line : text.split("\n")) {
            if (!line.startsWith(name + "{") && !line.startsWith(name + " ")) {
                continue;
            }
            boolean all = labels.entrySet().stream().allMatch(l -> line.contains(l.getKey() + "=\"" + l.getValue() + "\""));
            if (all) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    /** Base URL of the running instance, {@code http://127.0.0.1:<port>}; the port stays the same across restarts. */
    public URI url() {
        return URI.create("http://127.0.0.1:" + port);
    }
}
