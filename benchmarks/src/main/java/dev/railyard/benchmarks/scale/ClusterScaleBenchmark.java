package dev.railyard.benchmarks.scale;

import dev.railyard.benchmarks.GoStyleTransport;
import dev.railyard.e2e.E2eBinaries;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Real decisions at scale: for each N, a cluster of N GPU nodes in a real kube-apiserver + etcd (test-e2e's
 * binaries), populated through the API server ({@link ClusterPopulator}); then the real {@code railyard serve}
 * process (one or more jars, one after another, on the same cluster) is started against it and measured while pod
 * status updates churn the cluster ({@link Churn}): time to ready, Volcano predicate / prioritize and kube filter
 * latency with churn and without, the first call after a pod status update and after an address change (an
 * IPPool write), the 64-task gang's predicate storm, heap after a
 * full GC and RSS; then against {@code serve --no-cluster}: the predicate load, the same storm quiet and with the
 * same churn, and the prioritize calls. One table and {@code results.json}.
 *
 * <pre>
 * java -Xmx3g -cp benchmarks/target/benchmarks.jar dev.railyard.benchmarks.scale.ClusterScaleBenchmark [options]
 *   --nodes 1000,5000,20000      cluster sizes (default 1000,5000)
 *   --pods-per-node 18           average pods per node; one value, or one per size (18,18,6)
 *   --jars main=scheduler/target/railyard.jar[,label=path...]   serve jars, measured in turn on each cluster
 *   --serve-heap 4g              serve's -Xmx (plus -XX:+ExitOnOutOfMemoryError)
 *   --serve-jvm "main=-XX:+UseZGC;other=-Xms2g"   more JVM flags for the measured serve of a --jars label
 *   --churn 20                   pod status updates per second during the measurements
 *   --seconds 20 --warmup-seconds 5 --quiet-seconds 10
 *   --predicate-workers 16 --prioritize-workers 1 --filter-workers 1 --prioritize-nodes 100
 *   --storm-tasks 64 --storm-workers 16 --storm-max-seconds 600
 *   --first-call-samples 20      status updates, and IPPool writes, probed for the first call after a change
 *   --threads 64                 API requests in flight while populating
 *   --cache ~/.cache/railyard-scale   populated clusters kept between runs ({@link PopulatedCache}); none: populate
 *                                in the measured control plane every run
 *   --quiet-storm false          also run the storm without churn
 *   --populate-only false        only fill the cache for each size (no measurements)
 *   --serve-jfr false            record the measured serve with Java Flight Recorder (serve-LABEL.jfr in the run dir)
 *   --hold-seconds 0             keep the restored cluster up this long before measuring (prints its kubeconfig)
 *   --client-warmup-seconds 80   before the first measured serve, run every load this long in all against a
 *                                {@code --no-cluster} serve, unmeasured, so the load generator's own code is compiled
 *   --serve-log-level warn       serve's --log-level (info prints the cache's start-up lines)
 *   --node-slices false          whereabouts node slices at every size (default: only where one IPPool per network
 *                                cannot hold the addresses, {@link ScaleNetworks})
 *   --out benchmarks/target/cluster-scale   --repo .   --seed 1   --gang-size 64
 * </pre>
 * Run from the repository root after {@code bash test-e2e/tools/build-binaries.sh etcd k8s} and a package build.
 * Every process it starts is stopped on exit, also on Ctrl-C (shutdown hook).
 */
public final class ClusterScaleBenchmark {
    private static final List<AutoCloseable> OPEN = new CopyOnWriteArrayList<>();

    private ClusterScaleBenchmark() {
    }

    /** Parsed options. */
    record Options(List<Integer> nodes, List<Integer> podsPerNode, Map<String, Path> jars, String serveHeap,
                   double churn, double seconds, double warmup, double quietSeconds, int predicateWorkers,
                   int prioritizeWorkers, int filterWorkers, int prioritizeNodes, int stormTasks, int stormWorkers,
                   double stormMaxSeconds, int firstCallSamples, int threads, Path out, Path repo, long seed,
                   int gangSize, Path cache, boolean quietStorm, boolean populateOnly, boolean serveJfr,
                   String serveLogLevel, double holdSeconds, boolean nodeSlices, Map<String, List<String>> serveJvm,
                   double clientWarmupSeconds) {

        static Options parse(String[] args) {
            Map<String, String> m = new LinkedHashMap<>();
            for (int i = 0; i < args.length; i++) {
                if (!args[i].startsWith("--") || i + 1 >= args.length) {
                    throw new IllegalArgumentException("expected --option value pairs, got '" + args[i] + "'");
                }
                m.put(args[i].substring(2), args[++i]);
            }
            List<Integer> nodes = ints(m.remove("nodes"), "1000,5000");
            List<Integer> ppn = ints(m.remove("pods-per-node"), "18");
            if (ppn.size() != 1 && ppn.size() != nodes.size()) {
                throw new IllegalArgumentException("--pods-per-node: one value or one per --nodes entry");
            }
            Map<String, Path> jars = new LinkedHashMap<>();
            for (String j : m.getOrDefault("jars", "main=scheduler/target/railyard.jar").split(",")) {
                String[] kv = j.split("=", 2);
                if (kv.length != 2) {
                    throw new IllegalArgumentException("--jars: label=path entries, got '" + j + "'");
                }
                jars.put(kv[0], Path.of(kv[1]));
            }
            m.remove("jars");
            Map<String, List<String>> serveJvm = new LinkedHashMap<>();
            String sj = m.remove("serve-jvm");
            for (String e : sj == null ? new String[0] : sj.split(";")) {
                String[] kv = e.split("=", 2);
                if (kv.length != 2 || !jars.containsKey(kv[0].trim())) {
                    throw new IllegalArgumentException("--serve-jvm: label=flags entries naming a --jars label, got '"
                            + e + "'");
                }
                serveJvm.put(kv[0].trim(), List.of(kv[1].trim().split("\\s+")));
            }
            Options o = new Options(nodes, ppn, jars, str(m, "serve-heap", "4g"), dbl(m, "churn", 20),
                    dbl(m, "seconds", 20), dbl(m, "warmup-seconds", 5), dbl(m, "quiet-seconds", 10),
                    (int) dbl(m, "predicate-workers", 16), (int) dbl(m, "prioritize-workers", 1),
                    (int) dbl(m, "filter-workers", 1), (int) dbl(m, "prioritize-nodes", 100),
                    (int) dbl(m, "storm-tasks", 64), (int) dbl(m, "storm-workers", 16),
                    dbl(m, "storm-max-seconds", 600), (int) dbl(m, "first-call-samples", 20),
                    (int) dbl(m, "threads", 64), Path.of(str(m, "out", "benchmarks/target/cluster-scale")),
                    Path.of(str(m, "repo", ".")), (long) dbl(m, "seed", 1), (int) dbl(m, "gang-size", 64),
                    cachePath(str(m, "cache", Path.of(System.getProperty("user.home"), ".cache/railyard-scale").toString())),
                    Boolean.parseBoolean(str(m, "quiet-storm", "false")),
                    Boolean.parseBoolean(str(m, "populate-only", "false")),
                    Boolean.parseBoolean(str(m, "serve-jfr", "false")), str(m, "serve-log-level", "warn"),
                    dbl(m, "hold-seconds", 0), Boolean.parseBoolean(str(m, "node-slices", "false")), serveJvm,
                    dbl(m, "client-warmup-seconds", 80));
            for (int k = 0; k < nodes.size(); k++) {
                // before anything starts: a cluster the networks cannot serve would fail only after populating
                ClusterLayout layout = new ClusterLayout(nodes.get(k), o.podsPerNode(k), o.gangSize(), o.seed());
                try {
                    ScaleNetworks.of(layout, o.nodeSlices());
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("--nodes " + nodes.get(k) + ": " + e.getMessage(), e);
                }
            }
            if (o.populateOnly() && o.cache() == null) {
                throw new IllegalArgumentException("--populate-only needs a --cache");
            }
            if (!m.isEmpty()) {
                throw new IllegalArgumentException("unknown option(s) " + m.keySet());
            }
            return o;
        }

        int podsPerNode(int index) {
            return podsPerNode.size() == 1 ? podsPerNode.getFirst() : podsPerNode.get(index);
        }

        private static Path cachePath(String v) {
            return v.equals("none") ? null : Path.of(v.startsWith("~/") ? System.getProperty("user.home") + v.substring(1) : v);
        }

        private static List<Integer> ints(String v, String def) {
            return Arrays.stream((v == null ? def : v).split(",")).map(String::trim).map(Integer::parseInt).toList();
        }

        private static String str(Map<String, String> m, String k, String def) {
            String v = m.remove(k);
            return v == null ? def : v;
        }

        private static double dbl(Map<String, String> m, String k, double def) {
            String v = m.remove(k);
            try {
                return v == null ? def : Double.parseDouble(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--" + k + ": not a number: " + v);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("ClusterScaleBenchmark: " + e.getMessage());
            System.exit(2);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(ClusterScaleBenchmark::closeAll, "cleanup"));
        // FixtureMachines reads the nvidia-smi dumps from topology's test resources
        System.setProperty("railyard.e2e.fixtures", o.repo().resolve("topology/src/test/resources/fixtures").toString());
        System.setProperty("railyard.e2e.tools", o.repo().resolve("test-e2e/tools").toString());
        E2eBinaries bin = E2eBinaries.locate();
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path out = o.out().resolve(stamp).toAbsolutePath();
        ScaleReport report = new ScaleReport();
        report.settings.put("args", String.join(" ", args));
        report.settings.put("churnPerSecond", o.churn());
        report.settings.put("serveHeap", o.serveHeap());
        for (int k = 0; k < o.nodes().size(); k++) {
            runSize(o, bin, o.nodes().get(k), o.podsPerNode(k), out, report);
            report.write(out);
        }
        report.print(System.out);
        report.write(out);
        System.out.println("\nwritten: " + out.resolve("results.json") + " and results.md");
    }

    private static void runSize(Options o, E2eBinaries bin, int n, int podsPerNode, Path out, ScaleReport report)
            throws IOException {
        ClusterLayout layout = new ClusterLayout(n, podsPerNode, o.gangSize(), o.seed());
        Path runDir = out.resolve(n + "-nodes");
        System.out.printf("[scale] %,d nodes, %d pods/node: starting etcd + kube-apiserver in %s (load %s)%n", n,
                podsPerNode, runDir, ScaleReport.load());
        Path seed = populated(o, bin, layout, runDir);
        if (o.populateOnly()) {
            return;
        }
        try (ScaleControlPlane cp = open(ScaleControlPlane.start(bin, o.repo(), runDir, seed))) {
            long t0 = System.nanoTime();
            PopulatedCache.Recorded rec = seed == null ? null : PopulatedCache.of(o.cache(), layout, o.repo(), o.nodeSlices()).recorded();
            ClusterPopulator.Populated cluster = seed == null
                    ? new ClusterPopulator(cp.client(), layout, o.nodeSlices(), o.threads(), System.out).populate()
                    : new ClusterReader(cp.client(), layout).read(rec.steps(), rec.objects());
            if (seed != null) {
                System.out.printf("[scale]   restored from %s, read back in %.1f s%n", seed, (System.nanoTime() - t0) / 1e9);
            }
            long w0 = System.nanoTime();
            Map<String, String> warmed = ApiServerWarmUp.warm(cp.client(), Duration.ofMinutes(2));
            System.out.printf("[scale]   API server watch caches listed once (resourceVersion=0) in %.1f s: %s%n",
                    (System.nanoTime() - w0) / 1e9, warmed);
            if (o.holdSeconds() > 0) {
                // a populated cluster to look at by hand (kubectl, curl) before anything is measured
                System.out.printf("[scale]   holding the cluster for %.0f s: KUBECONFIG=%s%n", o.holdSeconds(),
                        cp.kubeconfig().toAbsolutePath());
                ScaleControlPlane.sleep((long) (o.holdSeconds() * 1000));
            }
            ScaleReport.ClusterRun run = new ScaleReport.ClusterRun();
            run.nodes = n;
            run.podsPerNode = podsPerNode;
            run.objects = cluster.objects();
            run.populateSeconds = cluster.steps();
            run.networks = ScaleNetworks.of(layout, o.nodeSlices()).describe();
            run.predicateBodyBytes = Arrays.stream(new DecisionLoad(java.net.URI.create("http://127.0.0.1:1"), cluster,
                    new byte[0]).predicate(0, 0)).mapToLong(b -> b.length).sum();
            run.runDir = runDir.toString();
            report.clusters.add(run);
            byte[] kubeFilter = VolcanoWire.kubeFilter(cluster.kubePodJson(), cluster.nodeNames());
            try (Churn churn = open(new Churn(cp.client(), cluster.boundPods(), o.churn()))) {
                NoClusterPhases.NoCluster noCluster = null;
                if (o.clientWarmupSeconds() > 0) {
                    NoClusterPhases.warmLoadGenerator(o, o.jars().values().iterator().next(), runDir, cluster, kubeFilter);
                }
                for (var jar : o.jars().entrySet()) {
                    ScaleReport.Row row = new ScaleReport.Row();
                    row.nodes = n;
                    row.pods = cluster.objects().get("Pod (bound)");
                    row.jar = jar.getKey();
                    report.rows.add(row);
                    try {
                        measure(o, cp, jar.getValue(), runDir, cluster, kubeFilter, churn, row);
                        if (noCluster == null) {
                            noCluster = NoClusterPhases.measure(o, cp, jar.getValue(), runDir, cluster, kubeFilter, churn);
                        }
                        row.noClusterStorm = noCluster.storm();
                        row.noClusterChurnStorm = noCluster.churnStorm();
                        row.noClusterPredicate = noCluster.predicate();
                        row.noClusterPrioritize = noCluster.prioritize();
                        row.noClusterChurnPredicate = noCluster.churnPredicate();
                        row.noClusterChurnSinglePredicate = noCluster.churnSinglePredicate();
                        row.serveCpuMsPerCall.put("storm --no-cluster", noCluster.stormCpuMs());
                        row.serveCpuMsPerCall.put("storm --no-cluster with churn", noCluster.churnStormCpuMs());
                        row.serveCpuMsPerCall.put("quiet predicate --no-cluster", noCluster.predicateCpuMs());
                        row.serveCpuMsPerCall.put("prioritize --no-cluster", noCluster.prioritizeCpuMs());
                    } catch (IOException | RuntimeException e) {
                        row.error = e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse("");
                        System.out.println("[scale] " + jar.getKey() + " failed: " + e.getMessage());
                    }
                }
            }
            run.apiServerRssBytes = RailyardServe.rss(cp.pid("kube-apiserver"));
            run.etcdRssBytes = RailyardServe.rss(cp.pid("etcd"));
        }
    }

    /**
     * etcd data of a populated cluster for {@code layout}: the cache entry's, populating it first when it is not there;
     * null with {@code --cache none} (the cluster is then populated in the measured control plane).
     */
    private static Path populated(Options o, E2eBinaries bin, ClusterLayout layout, Path runDir) throws IOException {
        if (o.cache() == null) {
            return null;
        }
        PopulatedCache cache = PopulatedCache.of(o.cache(), layout, o.repo(), o.nodeSlices());
        if (!cache.complete()) {
            System.out.printf("[scale]   no populated cluster in %s: populating it once (load %s)%n", cache.dir(),
                    ScaleReport.load());
            ScaleControlPlane cp = open(ScaleControlPlane.start(bin, o.repo(), runDir.resolve("populate")));
            try {
                ClusterPopulator.Populated p = new ClusterPopulator(cp.client(), layout, o.nodeSlices(), o.threads(), System.out)
                        .populate();
                cp.stopKeepingData(cache.etcdData());
                cache.complete(p);
            } finally {
                cp.close();
                OPEN.remove(cp);
            }
        } else {
            System.out.printf("[scale]   populated cluster from %s%n", cache.dir());
        }
        return cache.etcdData();
    }

    private static void measure(Options o, ScaleControlPlane cp, Path jar, Path runDir,
                                ClusterPopulator.Populated cluster, byte[] kubeFilter, Churn churn,
                                ScaleReport.Row row) throws IOException {
        row.loadBefore = ScaleReport.load();
        System.out.printf("[scale] serve %s (%s): starting (load %s)%n", row.jar, jar, row.loadBefore);
        MachineCpu beforeStart = MachineCpu.beforeStart(cp);
        try (RailyardServe serve = open(RailyardServe.start(jar, cp.kubeconfig(), serveJvm(o, runDir, row.jar), runDir, "serve-" + row.jar,
                Duration.ofMinutes(20), o.serveLogLevel()))) {
            row.readySeconds = serve.readySeconds();
            // serve's own share of the start against the API server's encoding of the lists on the same cores
            row.cpuSplit.put("start to ready", MachineCpu.now(serve.pid(), cp).since(beforeStart));
            System.out.printf("[scale]   CPU from start to ready: %s%n", row.cpuSplit.get("start to ready"));
            row.cpuSplit.put("serve's threads at ready", ServeThreadCpu.of(serve.pid()));
            System.out.printf("[scale]   serve's CPU to ready by thread: %s%n",
                    row.cpuSplit.get("serve's threads at ready"));
            DecisionLoad load = new DecisionLoad(serve.url(), cluster, kubeFilter);
            row.realDecisionsSeconds = row.readySeconds + untilRealDecisions(serve, load);
            System.out.printf("[scale]   ready in %.1f s, real decisions (no neutral answer) after %.1f s%n",
                    row.readySeconds, row.realDecisionsSeconds);
            churn.start();
            load.predicates(o.predicateWorkers(), o.warmup());
            load.prioritizes(1, o.warmup(), o.prioritizeNodes());
            load.kubeFilters(1, o.warmup());
            row.sampleAnswers = load.sampleAnswers();
            row.sampleAnswers.forEach((k, v) -> System.out.printf("[scale]   sample %s: %s%n", k, v));
            String before = serve.scrape();
            row.predicate = phase(serve, row, "predicate", "with churn",
                    () -> load.predicates(o.predicateWorkers(), o.seconds()));
            // one caller: the per-call latency a single Volcano predicate goroutine sees, without the queueing of
            // 16 closed-loop callers on two cores
            row.singlePredicate = phase(serve, row, "predicate 1 worker", "with churn",
                    () -> load.predicates(1, o.seconds()));
            row.prioritize = phase(serve, row, "prioritize", "with churn",
                    () -> load.prioritizes(o.prioritizeWorkers(), o.seconds(), o.prioritizeNodes()));
            row.filter = phase(serve, row, "kube filter", "with churn",
                    () -> load.kubeFilters(o.filterWorkers(), o.seconds()));
            row.churnAchieved = churn.achievedRate();
            row.churnTarget = churn.rate();
            churn.pause();
            row.quietPredicate = phase(serve, row, "quiet predicate", "quiet",
                    () -> load.predicates(o.predicateWorkers(), o.quietSeconds()));
            row.quietFilter = phase(serve, row, "quiet kube filter", "quiet",
                    () -> load.kubeFilters(o.filterWorkers(), o.quietSeconds()));
            // the same conditions as the --no-cluster prioritize it is compared with (no churn)
            row.quietPrioritize = phase(serve, row, "quiet prioritize", "quiet",
                    () -> load.prioritizes(o.prioritizeWorkers(), o.quietSeconds(), o.prioritizeNodes()));
            firstCallAfterChange(o, load, churn, row);
            firstCallAfterAddressChange(o, load, new AddressChange(cp.client(), o.firstCallSamples()), row);
            firstCallAfterPodStart(o, load, new PodStartProbe(cp.client(), row.nodes), row);
            if (o.quietStorm()) {
                row.quietStorm = storm(o, cp, serve, load, row, "quiet storm");
            }
            String beforeStorm = serve.scrape();
            churn.start();
            row.storm = storm(o, cp, serve, load, row, "storm");
            churn.pause();
            String after = serve.scrape();
            // the views serve made in the background after events (docs/adr/0024), during the storm with churn
            System.out.printf(java.util.Locale.ROOT, "[scale]   storm with churn: %.0f background view refreshes, %.3f s in "
                    + "them%n", delta1(beforeStorm, after, "railyard_view_refresh_seconds_count"),
                    delta1(beforeStorm, after, "railyard_view_refresh_seconds_sum"));
            row.decisions = delta(before, after, "railyard_decisions_total");
            row.neutralAnswers = RailyardServe.sum(after, "railyard_neutral_answers_total")
                    - RailyardServe.sum(before, "railyard_neutral_answers_total");
            row.churnFailed = churn.failed.get();
            row.heapAfterGcBytes = serve.heapAfterFullGc();
            row.rssBytes = serve.rssBytes();
            row.serveCpuSeconds = RailyardServe.cpuSeconds(serve.pid());
            if (!serve.alive()) {
                throw new IOException("serve exited during the measurements:\n" + serve.tail());
            }
        } finally {
            churn.pause();
            row.loadAfter = ScaleReport.load();
        }
    }

    private static DecisionLoad.Storm storm(Options o, ScaleControlPlane cp, RailyardServe serve, DecisionLoad load,
                                            ScaleReport.Row row, String key) throws IOException {
        double c0 = RailyardServe.cpuSeconds(serve.pid());
        MachineCpu m0 = MachineCpu.now(serve.pid(), cp);
        DecisionLoad.Storm s = load.storm(o.stormTasks(), o.stormWorkers(), o.stormMaxSeconds());
        row.cpuSplit.put(key, MachineCpu.now(serve.pid(), cp).since(m0));
        row.serveCpuMsPerCall.put(key, (RailyardServe.cpuSeconds(serve.pid()) - c0) * 1000 / Math.max(1, s.calls()));
        System.out.printf("[scale]   %s: %d of %d calls in %.1f s, %d errors, serve CPU %.2f ms/call (load %s); CPU: %s%n",
                key, s.calls(), s.planned(), s.seconds(), s.errors(), row.serveCpuMsPerCall.get(key), ScaleReport.load(),
                row.cpuSplit.get(key));
        return s;
    }

    /**
     * Seconds from now until a predicate is answered without a neutral answer (railyard_neutral_answers_total does
     * not move): {@code /readyz} can answer before every watched kind has synced, and a measurement of neutral
     * answers would measure the parse. At most 10 minutes; then the measurements go on and count the neutral answers.
     */
    private static double untilRealDecisions(RailyardServe serve, DecisionLoad load) throws IOException {
        long t0 = System.nanoTime();
        Random r = new Random(5);
        try (GoStyleTransport t = load.transport()) {
            while (System.nanoTime() - t0 < 600_000_000_000L) {
                double before = RailyardServe.sum(serve.scrape(), "railyard_neutral_answers_total");
                load.onePredicate(t, r);
                if (RailyardServe.sum(serve.scrape(), "railyard_neutral_answers_total") == before) {
                    break;
                }
                ScaleControlPlane.sleep(500);
            }
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    /** The first call after a change (p50, max) and the call after it (p50), ms. */
    private record FirstCalls(double p50, double max, double nextP50) {
    }

    /**
     * Churn paused; per sample: {@code change} made (it returns what undoes it, or null), a pause for the watch
     * event, then the next two calls timed; then the undo, a pause and one untimed call to take it in.
     */
    private static FirstCalls firstCalls(Options o, DecisionLoad load, long seed,
                                         java.util.function.IntFunction<Runnable> change) {
        List<Double> first = new ArrayList<>();
        List<Double> next = new ArrayList<>();
        Random r = new Random(seed);
        try (GoStyleTransport t = load.transport()) {
            load.onePredicate(t, r);
            for (int s = 0; s < o.firstCallSamples(); s++) {
                Runnable undo = change.apply(s);
                ScaleControlPlane.sleep(500);
                first.add(load.onePredicate(t, r));
                next.add(load.onePredicate(t, r));
                if (undo != null) {
                    undo.run();
                    ScaleControlPlane.sleep(500);
                    load.onePredicate(t, r);
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return new FirstCalls(DecisionLoad.median(first),
                first.stream().filter(d -> !d.isNaN()).mapToDouble(Double::doubleValue).max().orElse(Double.NaN),
                DecisionLoad.median(next));
    }

    /** The first call after a pod status update. */
    private static void firstCallAfterChange(Options o, DecisionLoad load, Churn churn, ScaleReport.Row row) {
        FirstCalls f = firstCalls(o, load, 11, s -> {
            churn.update(churn.randomPod());
            return null;
        });
        row.firstCallP50Ms = f.p50();
        row.firstCallMaxMs = f.max();
        row.nextCallP50Ms = f.nextP50();
        System.out.printf("[scale]   first call after a change p50 %.1f ms (max %.1f), next call p50 %.2f ms%n",
                row.firstCallP50Ms, row.firstCallMaxMs, row.nextCallP50Ms);
    }

    /** The first call after an address change: one allocation written into an IPPool ({@link AddressChange}). */
    private static void firstCallAfterAddressChange(Options o, DecisionLoad load, AddressChange change,
                                                    ScaleReport.Row row) {
        FirstCalls f = firstCalls(o, load, 13, s -> {
            String offset = change.allocate(s);
            return () -> change.release(s, offset);
        });
        row.addressChangeP50Ms = f.p50();
        row.addressChangeMaxMs = f.max();
        row.addressChangeNextP50Ms = f.nextP50();
        System.out.printf("[scale]   first call after an address change p50 %.1f ms (max %.1f), next call p50 %.2f ms "
                + "(load %s)%n", row.addressChangeP50Ms, row.addressChangeMaxMs, row.addressChangeNextP50Ms,
                ScaleReport.load());
    }

    /** The first call after a GPU pod with secondary networks starts, bound ({@link PodStartProbe}). */
    private static void firstCallAfterPodStart(Options o, DecisionLoad load, PodStartProbe probe,
                                               ScaleReport.Row row) {
        FirstCalls f = firstCalls(o, load, 17, probe::start);
        row.podStartP50Ms = f.p50();
        row.podStartMaxMs = f.max();
        row.podStartNextP50Ms = f.nextP50();
        System.out.printf("[scale]   first call after a GPU pod starts p50 %.1f ms (max %.1f), next call p50 %.2f ms "
                + "(load %s)%n", row.podStartP50Ms, row.podStartMaxMs, row.podStartNextP50Ms, ScaleReport.load());
    }

    /**
     * serve's JVM flags: the heap, then the label's {@code --serve-jvm} flags; with
     * {@code --serve-jfr true}, a Flight Recording of the measured serve {@code label}.
     */
    static List<String> serveJvm(Options o, Path runDir, String label) {
        List<String> flags = new ArrayList<>(List.of("-Xmx" + o.serveHeap(), "-XX:+ExitOnOutOfMemoryError"));
        if (label != null) {
            flags.addAll(o.serveJvm().getOrDefault(label, List.of()));
        }
        if (o.serveJfr() && label != null) {
            flags.add("-XX:StartFlightRecording=settings=profile,dumponexit=true,filename="
                    + runDir.resolve("serve-" + label + ".jfr"));
        }
        return flags;
    }

    /** A load phase whose result can be measured by the serve's CPU time too. */
    private interface Phase {
        DecisionLoad.Latency run() throws IOException;
    }

    /** Runs one phase, records serve's CPU time per call under {@code key}, prints the phase's line. */
    private static DecisionLoad.Latency phase(RailyardServe serve, ScaleReport.Row row, String key, String when,
                                              Phase phase) throws IOException {
        double c0 = RailyardServe.cpuSeconds(serve.pid());
        DecisionLoad.Latency l = phase.run();
        double cpuMs = (RailyardServe.cpuSeconds(serve.pid()) - c0) * 1000 / Math.max(1, l.calls());
        row.serveCpuMsPerCall.put(key, cpuMs);
        System.out.printf("[scale]   %-18s %-10s %2d workers: %,7d calls, p50 %8.2f ms, p99 %8.2f ms, max %8.1f ms, "
                        + "%,d B/call, %d errors, serve CPU %.2f ms/call (load %s)%n", l.name(), when, l.workers(),
                l.calls(), l.p50Ms(), l.p99Ms(), l.maxMs(), l.bodyBytes(), l.errors(), cpuMs, ScaleReport.load());
        return l;
    }

    /** Per label block of {@code name}: after − before, zero deltas left out. */
    static Map<String, Double> delta(String before, String after, String name) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (String line : after.split("\n")) {
            if (!line.startsWith(name + "{")) {
                continue;
            }
            String block = line.substring(name.length(), line.lastIndexOf('}') + 1);
            String[] labels = block.substring(1, block.length() - 1).split(",");
            double d = RailyardServe.sum(after, name, labels) - RailyardServe.sum(before, name, labels);
            if (d != 0) {
                out.put(block.replaceAll("[a-z_]+=\"([^\"]*)\"", "$1").replaceAll("[{},]+", " ").trim(), d);
            }
        }
        return out;
    }

    /** @return how much the unlabelled metric {@code name} grew between two scrapes */
    private static double delta1(String before, String after, String name) {
        return RailyardServe.sum(after, name) - RailyardServe.sum(before, name);
    }

    static <T extends AutoCloseable> T open(T resource) {
        OPEN.add(resource);
        return resource;
    }

    /** Shutdown hook: whatever is still open (serve, churn, control plane), newest first. */
    private static void closeAll() {
        for (int i = OPEN.size() - 1; i >= 0; i--) {
            try {
                OPEN.get(i).close();
            } catch (Exception e) {
                System.err.println("[scale] cleanup: " + e);
            }
        }
        OPEN.clear();
    }

}
