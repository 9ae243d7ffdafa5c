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
    }

    @Test
    void cpuIsUserPlusSystemTimeAfterTheNameInParentheses() {
        // proc(5): field 14 utime, 15 stime, in clock ticks (100 per second); the name may hold ") "
        String stat = "4242 (C2 Comp) (x)) S 1 2 3 0 -1 4194368 100 0 0 0 880 37 0 0 20 0 1 0 5 0 0";
        assertThat(ServeThreadCpu.cpuSeconds(stat)).isCloseTo(9.17, within(1e-9));
    }

    @Test
    void thisProcessReadsAsNamedGroups() {
        String split = ServeThreadCpu.of(ProcessHandle.current().pid());
        assertThat(split).startsWith("JIT C2 ").contains(", GC ", ", API client ", ", other ");
        assertThat(ServeThreadCpu.of(-5)).isEqualTo("unreadable");
    }
}
