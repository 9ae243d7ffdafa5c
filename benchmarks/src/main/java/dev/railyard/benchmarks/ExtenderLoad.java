package dev.railyard.benchmarks;

import dev.railyard.scheduler.protocol.NeutralPlacementDecisions;
import dev.railyard.scheduler.protocol.PlacementDecisions;
import dev.railyard.scheduler.protocol.VerbHandler;
import dev.railyard.scheduler.protocol.kube.Binder;
import dev.railyard.scheduler.protocol.kube.KubeExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoExtender;
import dev.railyard.scheduler.protocol.volcano.VolcanoSettings;
import dev.railyard.scheduler.server.ExtenderServer;
import dev.railyard.scheduler.server.ReadinessProbe;
import dev.railyard.scheduler.server.ServerSettings;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Load generator for the extender's HTTP path: opens connections the way Go's default transport does (see
 * {@link GoStyleTransport}: N workers, 2 idle keep-alive connections kept) and prints p50/p99, calls/s and MB/s
 * for Volcano predicate (~128 KB TaskInfo + NodeInfo), Volcano prioritize (100 NodeInfos, ~20 MB) and
 * kube-scheduler filter (nodeCacheCapable, 5,000 node names).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.railyard.benchmarks.ExtenderLoad [options]
 *   --server railyard|helidon   start that server in this JVM on a loopback port (default railyard: the
 *                          extender's own ExtenderServer, on Netty since docs/adr/0017-netty-transport.md)
 *   --url http://127.0.0.1:PORT   use a server already running (e.g. railyard serve); loopback only
 *   --decide-on-io-threads true|false   railyard only: false runs every verb on a virtual thread, as before the
 *                          verbs on the event loop (docs/adr/0017-netty-transport.md); default true
 *   --scenarios predicate,prioritize,filter   (default all three)
 *   --workers 16 --idle 2 --seconds 10 --warmup-seconds 5
 * java -cp benchmarks/target/benchmarks.jar dev.railyard.benchmarks.ExtenderLoad serve --server railyard --port 18080
 * </pre>
 * Every run is bounded in time and stops by itself; targets must be loopback addresses.
 */
public final class ExtenderLoad {
    static final long LIMIT = 256L << 20;

    record Scenario(String name, String path, byte[] body) {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opt = options(args);
        if (args.length > 0 && args[0].equals("serve")) {
            AutoCloseable s = startServer(opt.getOrDefault("server", "railyard"),
                    Integer.parseInt(opt.getOrDefault("port", "18080")), inline(opt));
            System.out.println("serving; stop with Ctrl-C");
            new CountDownLatch(1).await();
            s.close();
            return;
        }
        int workers = Integer.parseInt(opt.getOrDefault("workers", "16"));
        int maxIdle = Integer.parseInt(opt.getOrDefault("idle", "2"));
        double seconds = Double.parseDouble(opt.getOrDefault("seconds", "10"));
        double warmup = Double.parseDouble(opt.getOrDefault("warmup-seconds", "5"));
        List<String> wanted = Arrays.asList(opt.getOrDefault("scenarios", "predicate,prioritize,filter").split(","));

        AutoCloseable server = null;
        InetSocketAddress target;
        String label;
        if (opt.containsKey("url")) {
            URI u = URI.create(opt.get("url"));
            target = new InetSocketAddress(InetAddress.getByName(u.getHost()), u.getPort());
            label = opt.get("url");
        } else {
            String kind = opt.getOrDefault("server", "railyard");
            var started = startServer(kind, 0, inline(opt));
            server = started;
            target = new InetSocketAddress(InetAddress.getLoopbackAddress(), started.port());
            label = kind + " in-process" + (inline(opt) ? "" : ", every verb on a virtual thread");
        }
        if (!target.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException("targets must be loopback addresses, got " + target);
        }

        List<Scenario> scenarios = new ArrayList<>();
        if (wanted.contains("predicate")) {
            scenarios.add(new Scenario("volcano predicate", "/volcano/predicate", SyntheticWireBodies.volcanoPredicate(18)));
        }
        if (wanted.contains("prioritize")) {
            scenarios.add(new Scenario("volcano prioritize", "/volcano/prioritize", SyntheticWireBodies.volcanoPrioritize(100, 30)));
        }
        if (wanted.contains("filter")) {
            scenarios.add(new Scenario("kube filter", "/kube/filter", SyntheticWireBodies.kubeFilterNodeNames(5000)));
        }
        System.out.printf("target %s, %d workers, %d idle connections kept, %.0f s per scenario after %.0f s warm-up%n",
                label, workers, maxIdle, seconds, warmup);
        System.out.printf("%-20s %10s %7s %10s %8s %8s %8s %9s %7s %6s%n",
                "scenario", "body", "calls", "calls/s", "p50 ms", "p99 ms", "max ms", "MB/s in", "dials", "errors");
        for (Scenario s : scenarios) {
            run(s, target, workers, maxIdle, warmup, false);
            run(s, target, workers, maxIdle, seconds, true);
        }
        if (server != null) {
            server.close();
        }
    }

    static void run(Scenario s, InetSocketAddress target, int workers, int maxIdle, double seconds, boolean print)
            throws Exception {
        try (GoStyleTransport transport = new GoStyleTransport(target, maxIdle)) {
            long deadline = System.nanoTime() + (long) (seconds * 1e9);
            AtomicLong errors = new AtomicLong();
            long[][] lat = new long[workers][];
            int[] counts = new int[workers];
            Thread[] threads = new Thread[workers];
            long start = System.nanoTime();
            for (int w = 0; w < workers; w++) {
                final int id = w;
                threads[w] = Thread.ofPlatform().name("load-" + w).start(() -> {
                    long[] mine = new long[1024];
                    int n = 0;
                    while (System.nanoTime() < deadline && n < 5_000_000) {
                        long t0 = System.nanoTime();
                        try {
                            var r = transport.post(s.path(), s.body());
                            if (r.status() != 200 || r.body().length == 0) {
                                errors.incrementAndGet();
                            }
                        } catch (Exception e) {
                            errors.incrementAndGet();
                        }
                        long t = System.nanoTime() - t0;
                        if (n == mine.length) {
                            mine = Arrays.copyOf(mine, n * 2);
                        }
                        mine[n++] = t;
                    }
                    lat[id] = mine;
                    counts[id] = n;
                });
            }
            for (Thread t : threads) {
                t.join();
            }
            double elapsed = (System.nanoTime() - start) / 1e9;
            int total = 0;
            for (int c : counts) {
                total += c;
            }
            long[] all = new long[total];
            int k = 0;
            for (int w = 0; w < workers; w++) {
                System.arraycopy(lat[w], 0, all, k, counts[w]);
                k += counts[w];
            }
            Arrays.sort(all);
            if (print && total > 0) {
                System.out.printf("%-20s %10s %7d %10.1f %8.3f %8.3f %8.2f %9.1f %7d %6d%n", s.name(),
                        size(s.body().length), total, total / elapsed, pct(all, 0.50), pct(all, 0.99),
                        all[total - 1] / 1e6, (double) total * s.body().length / elapsed / 1e6,
                        transport.dials.get(), errors.get());
            }
        }
    }

    static double pct(long[] sorted, double q) {
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
    }

    static String size(long bytes) {
        return bytes >= 1 << 20 ? String.format("%.1f MB", bytes / 1e6) : String.format("%.0f KB", bytes / 1e3);
    }

    interface Started extends AutoCloseable {
        int port();
    }

    static boolean inline(Map<String, String> opt) {
        String v = opt.getOrDefault("decide-on-io-threads", "true");
        if (!v.equals("true") && !v.equals("false")) {
            throw new IllegalArgumentException("--decide-on-io-threads must be true or false, got " + v);
        }
        return v.equals("true");
    }

    static Started startServer(String kind, int port, boolean inline) throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        PlacementDecisions decisions = new NeutralPlacementDecisions(50, "load generator: no engine");
        Map<String, VerbHandler> routes = new LinkedHashMap<>();
        routes.putAll(ExtenderServer.mount(VolcanoExtender.PREFIX,
                new VolcanoExtender(decisions, VolcanoSettings.DEFAULTS, registry).verbs()));
        routes.putAll(ExtenderServer.mount(KubeExtender.PREFIX,
                new KubeExtender(decisions, Binder.unwired(), 50, registry).verbs()));
        if (!inline) {
            routes.replaceAll((path, h) -> VerbHandler.offIoThread(h));
        }
        InetAddress lo = InetAddress.getLoopbackAddress();
        switch (kind) {
            case "railyard" -> {
                ExtenderServer s = ExtenderServer.start(new ServerSettings(new InetSocketAddress(lo, port), LIMIT, null),
                        routes, ReadinessProbe.always(), registry);
                return new Started() {
                    public int port() {
                        return s.port();
                    }

                    public void close() {
                        s.close();
                    }
                };
            }
            case "helidon" -> {
                HelidonExtenderServer s = new HelidonExtenderServer(lo, port, LIMIT, routes);
                return new Started() {
                    public int port() {
                        return s.port();
                    }

                    public void close() {
                        s.close();
                    }
                };
            }
            case "jdk" -> throw new IllegalArgumentException("--server jdk: the extender no longer serves on the JDK's "
                    + "HTTP server (docs/adr/0017-netty-transport.md); use --server railyard, or a jar built before it");
            default -> throw new IllegalArgumentException("--server must be railyard or helidon, got " + kind);
        }
    }

    static Map<String, String> options(String[] args) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].startsWith("--")) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(args[i] + " needs a value");
                }
                m.put(args[i].substring(2), args[++i]);
            }
        }
        return m;
    }
}
