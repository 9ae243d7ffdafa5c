package dev.railyard.benchmarks.scale;

import dev.railyard.e2e.ComponentProcess;
import dev.railyard.e2e.LoopbackPorts;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code railyard serve} as a black box: {@code java <jvm options> -jar railyard.jar serve} on a free 127.0.0.1 port,
 * against a kubeconfig or with {@code --no-cluster}, watched only through its HTTP endpoints ({@code /readyz},
 * {@code /metrics}), {@code jcmd} and {@code /proc}, in a session of its own (so the CPU scheduler treats it as a
 * separate workload, as its own pod would be). The jar is copied into the run directory first, so a rebuild
 * during the run cannot change the classes under the running JVM. Stopped by PID (SIGTERM, SIGKILL after 10 s).
 */
final class RailyardServe implements AutoCloseable {
    private static final Pattern HEAP_USED = Pattern.compile("heap\\s+total (?:reserved )?\\d+K, committed \\d+K, used (\\d+)K");
    /** ZGC's line of {@code GC.heap_info}: {@code ZHeap used 324M, capacity 4096M, max capacity 4096M}. */
    private static final Pattern ZHEAP_USED = Pattern.compile("ZHeap\\s+used (\\d+)M");
    private static final Pattern METRIC = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*})?\\s+(\\S+)");

    private final ComponentProcess process;
    private final URI url;
    private final double readySeconds;
    private final String java;

    private RailyardServe(ComponentProcess process, URI url, double readySeconds, String java) {
        this.process = process;
        this.url = url;
        this.readySeconds = readySeconds;
        this.java = java;
    }

    /**
     * Starts serve and waits for {@code /readyz} to answer 200.
     *
     * @param jar        railyard.jar
     * @param kubeconfig the API server's kubeconfig, or null for {@code --no-cluster}
     * @param jvmOptions options before {@code -jar}, e.g. {@code -Xmx4g}
     * @param runDir     where the jar copy, the log and the PID file go
     * @param name       log base name
     * @param timeout    longest wait for readiness
     * @param logLevel   serve's {@code --log-level} ({@code warn} for measurements)
     * @throws IOException when the jar is missing, the process exits, or it is not ready in time
     */
    static RailyardServe start(Path jar, Path kubeconfig, List<String> jvmOptions, Path runDir, String name,
                               Duration timeout, String logLevel) throws IOException {
        if (!Files.isRegularFile(jar)) {
            throw new IOException("railyard jar " + jar.toAbsolutePath() + " not found; build it with "
                    + "`./mvnw -B -q -DskipTests -pl scheduler -am package` or pass --jar");
        }
        Files.createDirectories(runDir);
        Path copy = runDir.resolve("railyard-" + name + ".jar");
        Files.copy(jar, copy, StandardCopyOption.REPLACE_EXISTING);
        String java = ProcessHandle.current().info().command().orElse("java");
        int port = LoopbackPorts.pick(1)[0];
        List<String> cmd = new ArrayList<>(List.of(java));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-jar", copy.toString(), "serve", "--address=127.0.0.1", "--port=" + port,
                "--log-level=" + logLevel));
        cmd.add(kubeconfig == null ? "--no-cluster" : "--kubeconfig=" + kubeconfig.toAbsolutePath());
        long start = System.nanoTime();
        ComponentProcess p = ComponentProcess.start(name, ScaleControlPlane.ownSession(cmd), Map.of(), runDir,
                Duration.ofSeconds(10));
        URI url = URI.create("http://127.0.0.1:" + port);
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build()) {
            HttpRequest ready = HttpRequest.newBuilder(url.resolve("/readyz")).timeout(Duration.ofSeconds(5)).GET().build();
            long deadline = start + timeout.toNanos();
            String lastReason = "";
            while (true) {
                if (!p.alive()) {
                    throw new IOException("railyard serve exited with " + p.exitCode().orElse(-1) + " before ready; "
                            + p.log() + ":\n" + p.tail(20));
                }
                try {
                    HttpResponse<String> r = http.send(ready, HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() == 200) {
                        break;
                    }
                    String reason = r.body().lines().findFirst().orElse("").strip();
                    if (!reason.equals(lastReason)) {
                        // the readiness timeline: which wait took the time
                        System.out.printf("[scale]   %s /readyz at %.1f s: %d %s%n", name,
                                (System.nanoTime() - start) / 1e9, r.statusCode(),
                                reason.length() > 160 ? reason.substring(0, 160) + "..." : reason);
                        lastReason = reason;
                    }
                } catch (IOException e) {
                    // not listening yet
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    p.stop();
                    throw new IOException("interrupted while waiting for railyard serve", e);
                }
                if (System.nanoTime() > deadline) {
                    p.stop();
                    throw new IOException("railyard serve not ready after " + timeout.toSeconds() + " s; " + p.log()
                            + ":\n" + p.tail(20));
                }
                ScaleControlPlane.sleep(100);
            }
        } catch (IOException | RuntimeException e) {
            p.stop();
            throw e;
        }
        return new RailyardServe(p, url, (System.nanoTime() - start) / 1e9, java);
    }

    /** {@code http://127.0.0.1:<port>}. */
    URI url() {
        return url;
    }

    /** Seconds from process start to the first {@code /readyz} 200. */
    double readySeconds() {
        return readySeconds;
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.alive();
    }

    /** The end of its log, for error messages. */
    String tail() {
        return process.tail(20);
    }

    /** Sum of every sample of {@code name} whose labels contain all of {@code labels} (e.g. {@code why="x"}). */
    double metric(String name, String... labels) throws IOException {
        return sum(scrape(), name, labels);
    }

    /** The {@code /metrics} text. */
    String scrape() throws IOException {
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(url.resolve("/metrics"))
                    .timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IOException("/metrics answered " + r.statusCode());
            }
            return r.body();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** Sum over the samples of {@code name} in {@code text} whose label block contains every {@code labels} entry. */
    static double sum(String text, String name, String... labels) {
        double total = 0;
        for (String line : text.split("\n")) {
            Matcher m = METRIC.matcher(line);
            if (!m.find() || !m.group(1).equals(name)) {
                continue;
            }
            String block = m.group(2) == null ? "" : m.group(2);
            boolean all = true;
            for (String l : labels) {
                all &= block.contains(l);
            }
            if (all) {
                total += Double.parseDouble(m.group(3));
            }
        }
        return total;
    }

    /**
     * Heap in use right after a full collection: {@code jcmd <pid> GC.run}, then {@code GC.heap_info}'s "used".
     *
     * @return bytes, or -1 when jcmd's answer could not be read
     */
    long heapAfterFullGc() throws IOException {
        jcmd("GC.run");
        return heapUsedBytes(jcmd("GC.heap_info"));
    }

    /**
     * @param heapInfo the output of {@code jcmd <pid> GC.heap_info} (G1's {@code used 132317K} or ZGC's
     *                 {@code used 82M})
     * @return the bytes in use it reports, or -1 when it has neither line
     */
    static long heapUsedBytes(String heapInfo) {
        Matcher m = HEAP_USED.matcher(heapInfo);
        if (m.find()) {
            return Long.parseLong(m.group(1)) * 1024;
        }
        Matcher z = ZHEAP_USED.matcher(heapInfo);
        return z.find() ? Long.parseLong(z.group(1)) * 1024 * 1024 : -1;
    }

    /** {@code VmRSS} of the process, bytes (-1 when /proc cannot be read). */
    long rssBytes() {
        return rss(process.pid());
    }

    /** {@code VmRSS} of any process, bytes (-1 when /proc cannot be read). */
    static long rss(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"), StandardCharsets.UTF_8)) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    /** CPU seconds (user + system) the process has used, from /proc/&lt;pid&gt;/stat (-1 when unreadable). */
    static double cpuSeconds(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"), StandardCharsets.UTF_8);
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private String jcmd(String command) throws IOException {
        Path jcmd = Path.of(java).resolveSibling("jcmd");
        Process p = new ProcessBuilder(jcmd.toString(), Long.toString(process.pid()), command)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("jcmd " + command + " failed: " + out.strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running jcmd", e);
        }
        return out;
    }

    @Override
    public void close() {
        process.stop();
    }
}
