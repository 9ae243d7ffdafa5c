package dev.railyard.e2e;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Railyard's node agent under test: {@code java -jar railyard.jar agent} as a child process of this JVM (the jar
 * copy {@link RailyardProcess} makes per control plane), for one node, with the control plane's admin kubeconfig, a
 * sysfs tree, a kubelet PodResources socket and an {@code nvidia-smi} stand-in given by the test, and
 * {@code /healthz} + {@code /metrics} on 127.0.0.1 and a free port. It runs with the DaemonSet's JVM options
 * ({@code deploy/helm/railyard/values.yaml}, {@code agent.jvmOptions}: 64 MiB heap, serial GC, C1 only).
 *
 * <p>Its log and PID file are in the control plane's run directory ({@code railyard-agent-<node>-<n>.log}); it is
 * stopped by PID (SIGTERM, SIGKILL after the grace period), and the control plane stops it at the latest in its
 * {@code close()}.
 */
public final class RailyardAgentProcess {

    /** How long the agent gets to answer {@code /healthz} with 200 after its JVM starts. */
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    private final ControlPlane controlPlane;
    private final String nodeName;
    private final List<String> flags;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    private int generation;
    private ComponentProcess process;
    private URI url;

    /**
     * @param controlPlane whose kubeconfig the agent uses and whose run directory holds its log
     * @param nodeName     {@code --node-name}: the node, and the name of its {@code NodeTopology}
     * @param sysRoot      {@code --sys-root}: a directory holding {@code sys/}
     * @param podResources {@code --pod-resources-socket}: the fake kubelet's unix socket
     * @param nvidiaSmi    {@code --nvidia-smi}: the stand-in script
     * @param timing       {@code --refresh}, {@code --interval}, {@code --resync}, {@code --max-backoff} and any other
     *                     flag, e.g. {@code List.of("--refresh=500ms", "--interval=1s")}
     */
    public RailyardAgentProcess(ControlPlane controlPlane, String nodeName, Path sysRoot, Path podResources,
                                Path nvidiaSmi, List<String> timing) {
        this.controlPlane = controlPlane;
        this.nodeName = nodeName;
        List<String> f = new ArrayList<>(List.of("--node-name=" + nodeName, "--sys-root=" + sysRoot,
                "--pod-resources-socket=unix://" + podResources, "--nvidia-smi=" + nvidiaSmi,
                "--kubeconfig=" + controlPlane.kubeconfig()));
        f.addAll(timing);
        this.flags = List.copyOf(f);
    }

    /**
     * Starts the agent on a new free port and waits for {@code GET /healthz} to answer 200.
     *
     * @return the base URL of its health and metrics server, {@code http://127.0.0.1:<port>}
     * @throws IOException if the jar is missing or the process cannot start
     * @throws IllegalStateException if it exits or is not live in time (with the end of its log)
     */
    public URI start() throws IOException {
        if (running()) {
            throw new IllegalStateException("agent for " + nodeName + " already running");
        }
        Path jar = RailyardProcess.snapshotJar(controlPlane);
        String java = ProcessHandle.current().info().command().orElse("java");
        int port = LoopbackPorts.pick(1)[0];
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Xss512k", "-XX:+ExitOnOutOfMemoryError", "-jar", jar.toString(), "agent",
                "--listen=127.0.0.1:" + port));
        cmd.addAll(flags);
        generation++;
        process = controlPlane.launch("railyard-agent-" + nodeName + "-" + generation, cmd, Map.of());
        url = URI.create("http://127.0.0.1:" + port);
        ComponentProcess p = process;
        try {
            await().atMost(READY_TIMEOUT).pollInterval(Duration.ofMillis(250))
                    .ignoreExceptionsMatching(e -> e instanceof IOException).until(() -> {
                        p.assertAlive();
                        return healthz().statusCode() == 200;
                    });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new IllegalStateException("railyard agent not live at " + url + "/healthz after "
                    + READY_TIMEOUT.toSeconds() + " s; last log lines of " + p.log() + ":\n" + p.tail(25), e);
        }
        return url;
    }

    /**
     * @return the answer of {@code GET /healthz} (status 200 while the refresh loop is live; JSON body with
     *         {@code stale} and {@code lastProblem})
     * @throws IOException when the agent does not answer
     */
    public HttpResponse<String> healthz() throws IOException, InterruptedException {
        HttpRequest req = HttpRequest.newBuilder(url.resolve("/healthz")).timeout(Duration.ofSeconds(2)).GET().build();
        return http.send(req, HttpResponse.BodyHandlers.ofString());
    }

    /**
     * @return the body of {@code GET /metrics} (Prometheus text format)
     * @throws IOException when the agent does not answer
     */
    public String metrics() throws IOException, InterruptedException {
        HttpRequest req = HttpRequest.newBuilder(url.resolve("/metrics")).timeout(Duration.ofSeconds(2)).GET().build();
        return http.send(req, HttpResponse.BodyHandlers.ofString()).body();
    }

    /** @return the running process (log, liveness) */
    public ComponentProcess process() {
        return process;
    }

    /** Stops the running instance (SIGTERM, SIGKILL after the grace period); no-op when none runs. */
    public void stop() {
        if (process != null) {
            process.stop();
            process = null;
        }
    }

    /** Whether an instance is running. */
    public boolean running() {
        return process != null && process.alive();
    }
}
