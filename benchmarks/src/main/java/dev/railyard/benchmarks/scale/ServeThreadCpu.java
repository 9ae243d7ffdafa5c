package dev.railyard.benchmarks.scale;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Where serve's own CPU went, by the JVM's thread names ({@code /proc/<pid>/task/<tid>/comm} and {@code stat}): the
 * JIT compilers, the garbage collector's threads (G1's; the VM thread, which runs every safepoint operation, GC pauses
 * among them, counts as other), the API client's threads (fabric8's JDK HTTP client reads, decrypts and decodes
 * the informers' lists and watch events and hands each object to the state), and the rest (HTTP server, main,
 * background view refreshes). Linux only; threads that ended before the read are not counted, so the groups can add
 * up to less than the process's total.
 */
final class ServeThreadCpu {
    /** Groups in print order; a thread name goes to the first whose prefix it starts with, else to "other". */
    private static final Map<String, String> GROUPS = groups();

    private ServeThreadCpu() {
    }

    private static Map<String, String> groups() {
        Map<String, String> g = new LinkedHashMap<>();
        g.put("C2 CompilerThre", "JIT C2");
        g.put("C1 CompilerThre", "JIT C1");
        g.put("GC Thread", "GC");
        g.put("G1 ", "GC");
        g.put("JdkHttpClient", "API client");
        g.put("HttpClient-", "API client");
        return g;
    }

    /**
     * @return "JIT C2 7.4 s, JIT C1 1.8 s, GC 3.2 s, API client 7.7 s, other 3.9 s", or "unreadable" when /proc has
     *         no such process
     */
    static String of(long pid) {
        Path tasks = Path.of("/proc/" + pid + "/task");
        Map<String, Double> seconds = new LinkedHashMap<>();
        GROUPS.values().forEach(v -> seconds.put(v, 0.0));
        seconds.put("other", 0.0);
        try (Stream<Path> ts = Files.list(tasks)) {
            for (Path t : ts.toList()) {
                try {
                    String name = Files.readString(t.resolve("comm"), StandardCharsets.UTF_8).strip();
                    double s = cpuSeconds(Files.readString(t.resolve("stat"), StandardCharsets.UTF_8));
                    seconds.merge(group(name), s, Double::sum);
                } catch (IOException | RuntimeException e) {
                    // the thread ended between the listing and the read
                }
            }
        } catch (IOException e) {
            return "unreadable";
        }
        return seconds.entrySet().stream().map(e -> String.format(Locale.ROOT, "%s %.1f s", e.getKey(), e.getValue()))
                .collect(Collectors.joining(", "));
    }

    /** @return the group of a thread name ({@code comm}, at most 15 characters) */
    static String group(String threadName) {
        for (Map.Entry<String, String> e : GROUPS.entrySet()) {
            if (threadName.startsWith(e.getKey())) {
                return e.getValue();
            }
        }
        return "other";
    }

    /**
     * @param stat a {@code /proc/.../stat} line; the name in parentheses may hold spaces and ')'
     * @return its utime + stime in seconds (USER_HZ 100)
     */
    static double cpuSeconds(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
    }
}
