package dev.railyard.benchmarks.scale;

import dev.railyard.benchmarks.GoStyleTransport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The calls a scheduler makes, against one {@code railyard serve}: Volcano predicate (one task of the pending gang,
 * one node), Volcano prioritize (one task, 100 candidate nodes), kube-scheduler filter (the pending pod and every
 * node name, nodeCacheCapable), the gang's predicate storm and the first call after a change. Bodies are byte
 * parts from {@link ClusterPopulator.Populated}, sent without copying through {@link GoStyleTransport} (connections
 * as Go's default transport keeps them). Every reply must be a 200 with a body; anything else counts as an error.
 */
final class DecisionLoad {
    private static final byte[] TASK = "{\"task\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NODE = ",\"node\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NODES = ",\"nodes\":[".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] COMMA = ",".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] END = "}".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] END_NODES = "]}".getBytes(StandardCharsets.US_ASCII);
    /**
     * Longest wait for one reply: far beyond any scheduler's timeout (Volcano's extender.httpTimeout is 500 ms in our
     * snippet), so that the benchmark records how long a call really takes instead of an error.
     */
    static final int READ_TIMEOUT_MS = 600_000;

    /** Latencies of one phase. */
    record Latency(String name, int workers, int calls, long errors, double seconds, double p50Ms, double p99Ms,
                   double maxMs, long bodyBytes) {
        double callsPerSecond() {
            return seconds <= 0 ? 0 : calls / seconds;
        }
    }

    /** The storm's outcome; {@code capped} when it stopped at the time limit (then {@code projectedSeconds} holds). */
    record Storm(int tasks, int nodes, int workers, long calls, long planned, long errors, double seconds,
                 boolean capped) {
        double callsPerSecond() {
            return seconds <= 0 ? 0 : calls / seconds;
        }

        double projectedSeconds() {
            return calls == 0 ? Double.NaN : seconds * planned / calls;
        }
    }

    private final InetSocketAddress target;
    private final ClusterPopulator.Populated cluster;
    private final byte[] kubeFilter;

    DecisionLoad(URI url, ClusterPopulator.Populated cluster, byte[] kubeFilter) throws IOException {
        this.target = new InetSocketAddress(InetAddress.getByName(url.getHost()), url.getPort());
        this.cluster = cluster;
        this.kubeFilter = kubeFilter;
    }

    /** Body parts of a predicate for gang task {@code t} on node {@code n}. */
    byte[][] predicate(int t, int n) {
        return new byte[][]{TASK, cluster.gangTasks().get(t), NODE, cluster.nodeInfos()[n], END};
    }

    /** Body parts of a prioritize for gang task {@code t} over 100 (or all, when fewer) free nodes picked by {@code r}. */
    byte[][] prioritize(int t, SplittableRandom r, int count) {
        List<Integer> free = cluster.freeNodes();
        int k = Math.min(count, free.size());
        int[] pick = r.ints(0, free.size()).distinct().limit(k).toArray();
        byte[][] parts = new byte[3 + 2 * k][];
        parts[0] = TASK;
        parts[1] = cluster.gangTasks().get(t);
        parts[2] = NODES;
        for (int i = 0; i < k; i++) {
            parts[3 + 2 * i] = cluster.nodeInfos()[free.get(pick[i])];
            parts[4 + 2 * i] = i + 1 < k ? COMMA : END_NODES;
        }
        return parts;
    }

    interface Bodies {
        byte[][] next(SplittableRandom r);
    }

    /** Random gang task on a random node (any node: full, half-used or free). */
    Latency predicates(int workers, double seconds) throws IOException {
        int tasks = cluster.gangTasks().size();
        int nodes = cluster.nodeNames().size();
        return closedLoop("volcano predicate", "/volcano/predicate", workers, seconds,
                r -> predicate(r.nextInt(tasks), r.nextInt(nodes)));
    }

    /** Random gang task over 100 random free nodes (what Volcano's resource check lets through). */
    Latency prioritizes(int workers, double seconds, int nodesPerCall) throws IOException {
        int tasks = cluster.gangTasks().size();
        return closedLoop("volcano prioritize", "/volcano/prioritize", workers, seconds,
                r -> prioritize(r.nextInt(tasks), r, nodesPerCall));
    }

    /** The pending kube pod over every node name. */
    Latency kubeFilters(int workers, double seconds) throws IOException {
        return closedLoop("kube filter", "/kube/filter", workers, seconds, r -> new byte[][]{kubeFilter});
    }

    /** {@code workers} closed-loop callers for {@code seconds}; latency percentiles over every call. */
    Latency closedLoop(String name, String path, int workers, double seconds, Bodies bodies) throws IOException {
        try (GoStyleTransport transport = new GoStyleTransport(target, 2, READ_TIMEOUT_MS)) {
            long deadline = System.nanoTime() + (long) (seconds * 1e9);
            AtomicLong errors = new AtomicLong();
            AtomicLong bytes = new AtomicLong();
            long[][] lat = new long[workers][];
            int[] counts = new int[workers];
            Thread[] threads = new Thread[workers];
            long start = System.nanoTime();
            for (int w = 0; w < workers; w++) {
                final int id = w;
                threads[w] = Thread.ofPlatform().name("load-" + w).start(() -> {
                    SplittableRandom r = new SplittableRandom(1000L + id);
                    long[] mine = new long[256];
                    int n = 0;
                    while (System.nanoTime() < deadline) {
                        byte[][] body = bodies.next(r);
                        long t0 = System.nanoTime();
                        call(transport, path, body, errors);
                        long t = System.nanoTime() - t0;
                        if (n == mine.length) {
                            mine = Arrays.copyOf(mine, n * 2);
                        }
                        mine[n++] = t;
                        bytes.addAndGet(length(body));
                    }
                    lat[id] = mine;
                    counts[id] = n;
                });
            }
            join(threads);
            double elapsed = (System.nanoTime() - start) / 1e9;
            long[] all = merge(lat, counts);
            return new Latency(name, workers, all.length, errors.get(), elapsed, pct(all, 0.50), pct(all, 0.99),
                    all.length == 0 ? Double.NaN : all[all.length - 1] / 1e6,
                    all.length == 0 ? 0 : bytes.get() / all.length);
        }
    }

    /**
     * vc-scheduler's allocate action for one gang, without its node sampling: for each of {@code tasks} tasks in
     * turn, {@code workers} callers ask predicate for every node (workqueue.ParallelizeUntil(16, nodes) in
     * {@code util/predicate_helper.go}); the next task starts when the previous one's nodes are all answered. Once
     * {@code maxSeconds} have passed no new call starts (the calls in flight finish) and the storm counts as capped.
     */
    Storm storm(int tasks, int workers, double maxSeconds) throws IOException {
        int nodes = cluster.nodeNames().size();
        long planned = (long) tasks * nodes;
        AtomicLong calls = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        long start = System.nanoTime();
        long deadline = start + (long) (maxSeconds * 1e9);
        boolean capped = false;
        try (GoStyleTransport transport = new GoStyleTransport(target, 2, READ_TIMEOUT_MS)) {
            for (int t = 0; t < tasks && !capped; t++) {
                AtomicInteger next = new AtomicInteger();
                CountDownLatch doneLatch = new CountDownLatch(workers);
                final int task = t;
                for (int w = 0; w < workers; w++) {
                    Thread.ofPlatform().name("storm-" + w).start(() -> {
                        try {
                            int n;
                            while (System.nanoTime() < deadline && (n = next.getAndIncrement()) < nodes) {
                                call(transport, "/volcano/predicate", predicate(task, n), errors);
                                calls.incrementAndGet();
                            }
                        } finally {
                            doneLatch.countDown();
                        }
                    });
                }
                try {
                    doneLatch.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
                capped = calls.get() < (long) (t + 1) * nodes;
            }
        }
        return new Storm(tasks, nodes, workers, calls.get(), planned, errors.get(), (System.nanoTime() - start) / 1e9,
                capped);
    }

    /**
     * One reply of each verb, shortened to 400 characters: predicate of gang task 0 on the first free node and on
     * node 0, prioritize over 5 free nodes, kube filter over every node (its lists only counted).
     */
    Map<String, String> sampleAnswers() throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        int free = cluster.freeNodes().isEmpty() ? 0 : cluster.freeNodes().getFirst();
        try (GoStyleTransport t = transport()) {
            out.put("predicate " + cluster.nodeNames().get(free) + " (free)",
                    shorten(t.post("/volcano/predicate", predicate(0, free))));
            out.put("predicate " + cluster.nodeNames().getFirst(),
                    shorten(t.post("/volcano/predicate", predicate(0, 0))));
            out.put("prioritize 5 free nodes", shorten(t.post("/volcano/prioritize",
                    prioritize(0, new SplittableRandom(5), 5))));
            GoStyleTransport.Response filter = t.post("/kube/filter", kubeFilter);
            String body = new String(filter.body(), StandardCharsets.UTF_8);
            out.put("kube filter", filter.status() + " " + body.length() + " chars, NodeNames "
                    + count(body, "NodeNames") + " passing; " + shortenText(body.substring(
                    Math.max(0, body.indexOf("\"FailedNodes\""))), 300));
        }
        return out;
    }

    /** How many names the JSON array after {@code "key":} holds (0 for null or absent). */
    private static int count(String json, String key) {
        int at = json.indexOf("\"" + key + "\":[");
        if (at < 0) {
            return 0;
        }
        int end = json.indexOf(']', at);
        String inner = json.substring(json.indexOf('[', at) + 1, end).trim();
        return inner.isEmpty() ? 0 : inner.split(",").length;
    }

    private static String shorten(GoStyleTransport.Response r) {
        return r.status() + " " + shortenText(new String(r.body(), StandardCharsets.UTF_8), 400);
    }

    private static String shortenText(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max) + "…";
    }

    /** A connection pool for {@link #onePredicate}: one kept-alive connection, as between two of Volcano's calls. */
    GoStyleTransport transport() {
        return new GoStyleTransport(target, 1, READ_TIMEOUT_MS);
    }

    /** One predicate (task 0 on a random node) over {@code transport}: its latency in ms, NaN when it failed. */
    double onePredicate(GoStyleTransport transport, Random r) {
        AtomicLong errors = new AtomicLong();
        byte[][] body = predicate(0, r.nextInt(cluster.nodeNames().size()));
        long t0 = System.nanoTime();
        call(transport, "/volcano/predicate", body, errors);
        double ms = (System.nanoTime() - t0) / 1e6;
        return errors.get() > 0 ? Double.NaN : ms;
    }

    private static void call(GoStyleTransport transport, String path, byte[][] body, AtomicLong errors) {
        try {
            GoStyleTransport.Response r = transport.post(path, body);
            if (r.status() != 200 || r.body().length == 0) {
                errors.incrementAndGet();
            }
        } catch (IOException | RuntimeException e) {
            errors.incrementAndGet();
        }
    }

    private static long length(byte[][] parts) {
        long n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        return n;
    }

    private static void join(Thread[] threads) throws IOException {
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }
    }

    private static long[] merge(long[][] lat, int[] counts) {
        int total = Arrays.stream(counts).sum();
        long[] all = new long[total];
        int k = 0;
        for (int w = 0; w < lat.length; w++) {
            System.arraycopy(lat[w], 0, all, k, counts[w]);
            k += counts[w];
        }
        Arrays.sort(all);
        return all;
    }

    static double pct(long[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
    }

    /** Median of a list of values (NaN-free), or NaN when empty. */
    static double median(List<Double> values) {
        List<Double> v = new ArrayList<>(values);
        v.removeIf(d -> d.isNaN());
        if (v.isEmpty()) {
            return Double.NaN;
        }
        v.sort(null);
        return v.get(v.size() / 2);
    }
}
