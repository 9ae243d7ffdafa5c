package dev.railyard.benchmarks.scale;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ServeThreadCpuTest {
    @Test
    void threadNamesGoToTheirGroups() {
        // names as /proc/<pid>/task/<tid>/comm shows a JDK 25 serve's threads (15 characters at most)
        assertThat(ServeThreadCpu.group("C2 CompilerThre")).isEqualTo("JIT C2");
        assertThat(ServeThreadCpu.group("C1 CompilerThre")).isEqualTo("JIT C1");
        assertThat(ServeThreadCpu.group("GC Thread#1")).isEqualTo("GC");
        assertThat(ServeThreadCpu.group("G1 Conc#0")).isEqualTo("GC");
        assertThat(ServeThreadCpu.group("G1 Refine#0")).isEqualTo("GC");
        assertThat(ServeThreadCpu.group("JdkHttpClientFa")).isEqualTo("API client");
        assertThat(ServeThreadCpu.group("HttpClient-3-Se")).isEqualTo("API client");
        assertThat(ServeThreadCpu.group("railyard-http-1")).isEqualTo("other");
        assertThat(ServeThreadCpu.group("java")).isEqualTo("other");
        // the VM thread runs every safepoint operation, not only collections
        assertThat(ServeThreadCpu.group("VM Thread")).isEqualTo("other");
    }

    @Test
    void cpuIsUserPlusSystemTimeAfterTheNameInParentheses() {
        // proc(5): field 14 utime, 15 stime, in clock ticks (100 per second); the name may hold ") "
        String stat = "4242 (C2 Comp) (x)) S 1 2 3 0 -1 4194368 100 0 0 0 880 37 0 0 20 0 1 0 5 0 0";
        assertThat(ServeThreadCpu.cpuSeconds(stat)).isCloseTo(9.17, within(1e-9));
    }

    @Test
    void thisProcessReadsAsNamedGroups() {
        // this thread ("main" or a surefire worker: other) spends 0.3 s of CPU; /proc counts it in 10 ms ticks,
        // so other reads at least 0.25 s
        var bean = java.lang.management.ManagementFactory.getThreadMXBean();
        long sum = 0;
        while (bean.getCurrentThreadCpuTime() < 300_000_000L) {
            sum += Long.hashCode(System.nanoTime() * 31 + sum);
        }
        String split = ServeThreadCpu.of(ProcessHandle.current().pid());
        assertThat(split).startsWith("JIT C2 ").contains(", JIT C1 ", ", GC ", ", API client ", ", other ");
        double other = Double.parseDouble(split.replaceAll(".*, other ([0-9.]+) s$", "$1"));
        assertThat(other).as("other, after %d", sum).isGreaterThanOrEqualTo(0.25);
        assertThat(ServeThreadCpu.of(-5)).isEqualTo("unreadable");
    }
}
