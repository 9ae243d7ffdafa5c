package dev.railyard.benchmarks.scale;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The benchmark's figures: one row per (N, jar), printed as one Markdown table with the machine (CPU model, cores,
 * memory, JDK) and the load average before and after each row's measurements, and written as JSON
 * ({@code results.json}) with every figure, phase and population step.
 */
final class ScaleReport {

    /** One {@code railyard serve} measured on one populated cluster. */
    static final class Row {
        int nodes;
        int pods;
        String jar;
        double readySeconds;
        /** Seconds from start until a predicate got no neutral answer (the cluster cache had synced). */
        double realDecisionsSeconds;
        DecisionLoad.Latency predicate;
        DecisionLoad.Latency prioritize;
        DecisionLoad.Latency filter;
        /** The predicate with churn from one closed-loop caller: per-call latency without queueing. */
        DecisionLoad.Latency singlePredicate;
        DecisionLoad.Latency quietPredicate;
        DecisionLoad.Latency quietFilter;
        DecisionLoad.Latency quietPrioritize;
        double firstCallP50Ms;
        double firstCallMaxMs;
        double nextCallP50Ms;
        /** The first call after an IPPool write ({@link AddressChange}), and the call after it. */
        double addressChangeP50Ms;
        double addressChangeMaxMs;
        double addressChangeNextP50Ms;
        /** The first call after a GPU pod with networks starts, bound ({@link PodStartProbe}), and the call after it. */
        double podStartP50Ms;
        double podStartMaxMs;
        double podStartNextP50Ms;
        DecisionLoad.Storm quietStorm;
        DecisionLoad.Storm storm;
        DecisionLoad.Storm noClusterStorm;
        /** The same storm against {@code serve --no-cluster} while the same churn runs on the API server. */
        DecisionLoad.Storm noClusterChurnStorm;
        /** The same predicate load (16 workers, quiet) against {@code serve --no-cluster}: the transport's floor. */
        DecisionLoad.Latency noClusterPredicate;
        /** The predicate loads with churn (16 callers; 1 caller) against {@code serve --no-cluster}. */
        DecisionLoad.Latency noClusterChurnPredicate;
        DecisionLoad.Latency noClusterChurnSinglePredicate;
        /** The same prioritize calls against {@code serve --no-cluster}: the parse and HTTP path alone. */
        DecisionLoad.Latency noClusterPrioritize;
        long heapAfterGcBytes;
        long rssBytes;
        double serveCpuSeconds;
        /** serve's CPU time (user + system) per call in each phase, ms: less sensitive to the machine's load. */
        Map<String, Double> serveCpuMsPerCall = new LinkedHashMap<>();
        /** Per storm, and from serve's start to ready: where the machine's CPU went ({@link MachineCpu}). */
        Map<String, String> cpuSplit = new LinkedHashMap<>();
        double churnTarget;
        double churnAchieved;
        long churnFailed;
        /** Decisions counted by serve during the measurements, by "protocol verb outcome". */
        Map<String, Double> decisions = new LinkedHashMap<>();
        double neutralAnswers;
        /** One reply of each kind, shortened: what the decisions look like. */
        Map<String, String> sampleAnswers = new LinkedHashMap<>();
        String loadBefore;
        String loadAfter;
        String error;
    }

    /** Per N: how the cluster was made. */
    static final class ClusterRun {
        int nodes;
        int podsPerNode;
        Map<String, Integer> objects;
        Map<String, Double> populateSeconds;
        List<String> networks;
        long predicateBodyBytes;
        long apiServerRssBytes;
        long etcdRssBytes;
        String runDir;
    }

    final Map<String, Object> machine = new LinkedHashMap<>();
    final Map<String, Object> settings = new LinkedHashMap<>();
    final List<ClusterRun> clusters = new ArrayList<>();
    final List<Row> rows = new ArrayList<>();

    ScaleReport() {
        machine.put("cpu", cpuModel());
        machine.put("cores", Runtime.getRuntime().availableProcessors());
        machine.put("memTotal", memTotal());
        machine.put("jdk", System.getProperty("java.vm.version"));
        machine.put("started", Instant.now().toString());
    }

    /** {@code /proc/loadavg}'s three averages, or "?" when unreadable. */
    static String load() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    private static String cpuModel() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (l.startsWith("model name")) {
                    return l.substring(l.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException e) {
            return "?";
        }
        return "?";
    }

    private static String memTotal() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (l.startsWith("MemTotal:")) {
                    return Long.parseLong(l.replaceAll("[^0-9]", "")) / 1024 / 1024 + " GiB";
                }
            }
        } catch (IOException | RuntimeException e) {
            return "?";
        }
        return "?";
    }

    void print(PrintStream out) {
        out.printf("%nmachine: %s, %s cores, %s, JDK %s%n", machine.get("cpu"), machine.get("cores"),
                machine.get("memTotal"), machine.get("jdk"));
        out.println("settings: " + settings);
        for (ClusterRun c : clusters) {
            out.printf(Locale.ROOT, "cluster %,d nodes (%d pods/node): %s; networks %s; populated in %s; predicate "
                            + "body %,d B; kube-apiserver RSS %s, etcd RSS %s%n", c.nodes, c.podsPerNode, c.objects,
                    c.networks, c.populateSeconds, c.predicateBodyBytes, mib(c.apiServerRssBytes), mib(c.etcdRssBytes));
        }
        out.println();
        out.println("| nodes | pods | jar | /readyz / real decisions s | predicate p50/p99 ms (16 w) | prioritize 100 p50/p99 ms | "
                + "kube filter all names p50/p99 ms | quiet predicate / filter p50/p99 ms | first call after a change "
                + "p50/max ms (next call p50) | first call after an address change p50/max ms (next call p50) "
                + "| first call after a GPU pod starts p50/max ms (next call p50) "
                + "| 64-task storm, quiet s (calls/s) | 64-task storm, with churn s (calls/s) | "
                + "same calls --no-cluster s | ratio (with churn) | same calls --no-cluster with churn s | "
                + "ratio (both with churn) | --no-cluster quiet predicate p50/p99 ms | "
                + "heap after GC MiB | RSS MiB | neutral answers / decisions | churn/s | load before → after |");
        out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (Row r : rows) {
            if (r.error != null) {
                out.printf(Locale.ROOT, "| %,d | %,d | %s | %s |%n", r.nodes, r.pods, r.jar, "failed: " + r.error);
                continue;
            }
            double decisions = r.decisions.values().stream().mapToDouble(Double::doubleValue).sum();
            out.printf(Locale.ROOT, "| %,d | %,d | %s | %.1f / %.1f | %s | %s | %s | %s / %s | %.1f / %.1f (%.2f) "
                            + "| %.1f / %.1f (%.2f) | %.1f / %.1f (%.2f) | %s | %s "
                            + "| %s | %s | %s | %s | %s | %s | %s | %.0f / %.0f | %.1f | %s → %s |%n",
                    r.nodes, r.pods, r.jar, r.readySeconds, r.realDecisionsSeconds, pp(r.predicate), pp(r.prioritize), pp(r.filter),
                    pp(r.quietPredicate), pp(r.quietFilter), r.firstCallP50Ms, r.firstCallMaxMs, r.nextCallP50Ms,
                    r.addressChangeP50Ms, r.addressChangeMaxMs, r.addressChangeNextP50Ms,
                    r.podStartP50Ms, r.podStartMaxMs, r.podStartNextP50Ms,
                    storm(r.quietStorm), storm(r.storm), storm(r.noClusterStorm), ratio(r.storm, r.noClusterStorm),
                    storm(r.noClusterChurnStorm), ratio(r.storm, r.noClusterChurnStorm), pp(r.noClusterPredicate),
                    mib(r.heapAfterGcBytes),
                    mib(r.rssBytes),
                    r.neutralAnswers, decisions, r.churnAchieved, r.loadBefore, r.loadAfter);
        }
        out.println();
        for (Row r : rows) {
            if (r.error == null) {
                out.printf(Locale.ROOT, "%,d nodes, %s: decisions during the measurements %s; errors: predicate %d, "
                                + "prioritize %d, filter %d, storm %d; serve CPU %.0f s in all, per call (ms) %s; "
                                + "prioritize quiet p50/p99 ms %s, --no-cluster (quiet) p50/p99 ms %s; "
                                + "quiet storm / --no-cluster %s; predicate with churn p50/p99 ms, 1 worker %s, "
                                + "--no-cluster 16 workers %s, 1 worker %s; CPU by phase %s%n",
                        r.nodes, r.jar, r.decisions, r.predicate.errors(), r.prioritize.errors(), r.filter.errors(),
                        r.storm == null ? 0 : r.storm.errors(), r.serveCpuSeconds, rounded(r.serveCpuMsPerCall),
                        pp(r.quietPrioritize), pp(r.noClusterPrioritize), ratio(r.quietStorm, r.noClusterStorm),
                        pp(r.singlePredicate), pp(r.noClusterChurnPredicate), pp(r.noClusterChurnSinglePredicate),
                        r.cpuSplit);
            }
        }
    }

    private static Map<String, String> rounded(Map<String, Double> m) {
        Map<String, String> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(k, String.format(Locale.ROOT, "%.2f", v)));
        return out;
    }

    private static String pp(DecisionLoad.Latency l) {
        return l == null ? "–" : String.format(Locale.ROOT, "%.2f / %.2f", l.p50Ms(), l.p99Ms());
    }

    private static String storm(DecisionLoad.Storm s) {
        if (s == null) {
            return "–";
        }
        if (s.capped()) {
            return String.format(Locale.ROOT, "≈%.0f projected (%,d of %,d calls in %.0f s, %.0f/s)",
                    s.projectedSeconds(), s.calls(), s.planned(), s.seconds(), s.callsPerSecond());
        }
        return String.format(Locale.ROOT, "%.1f (%.0f/s)", s.seconds(), s.callsPerSecond());
    }

    /** @return the storm's wall time over the same calls' against {@code --no-cluster} ({@code base}) */
    private static String ratio(DecisionLoad.Storm storm, DecisionLoad.Storm base) {
        if (storm == null || base == null) {
            return "–";
        }
        double real = storm.capped() ? storm.projectedSeconds() : storm.seconds();
        double b = base.capped() ? base.projectedSeconds() : base.seconds();
        return String.format(Locale.ROOT, "%.2f×", real / b);
    }

    static String mib(long bytes) {
        return bytes < 0 ? "?" : String.format(Locale.ROOT, "%,d", bytes >> 20);
    }

    void write(Path dir) throws IOException {
        Files.createDirectories(dir);
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("machine", machine);
        all.put("settings", settings);
        all.put("clusters", clusters);
        all.put("rows", rows);
        ObjectMapper m = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                .setVisibility(com.fasterxml.jackson.annotation.PropertyAccessor.FIELD,
                        com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility.ANY);
        Files.writeString(dir.resolve("results.json"), m.writeValueAsString(all), StandardCharsets.UTF_8);
        try (PrintStream p = new PrintStream(Files.newOutputStream(dir.resolve("results.md")), true,
                StandardCharsets.UTF_8)) {
            print(p);
        }
    }
}
