package dev.railyard.benchmarks.scale;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reading {@code jcmd <pid> GC.heap_info}. Both outputs were printed by Temurin 25.0.3 for a JVM holding 64 arrays
 * of 1 MiB after {@code GC.run}, one with G1 and one with {@code -XX:+UseZGC}.
 */
class HeapInfoTest {
    @Test
    void readsG1sUsedKilobytes() {
        String g1 = """
                25256:
                garbage-first heap   total reserved 524288K, committed 389120K, used 132317K [0x00000000e0000000, 0x0000000100000000)
                 region size 1024K, 0 young (0K), 0 survivors (0K)
                """;
        // 132,317 KiB
        assertThat(RailyardServe.heapUsedBytes(g1)).isEqualTo(132_317L * 1024);
    }

    @Test
    void readsZgcsUsedMegabytes() {
        String z = """
                25317:
                ZHeap            used 82M, capacity 378M, max capacity 512M
                 Cache           296M (5)
                  size classes   2M (1), 4M (1), 16M (1), 32M (1), 128M (1)
                """;
        // 82 MiB, not the capacity or the cache on the lines around it
        assertThat(RailyardServe.heapUsedBytes(z)).isEqualTo(82L * 1024 * 1024);
    }

    @Test
    void answersMinusOneForOutputWithNeitherLine() {
        assertThat(RailyardServe.heapUsedBytes("12345:\nGC.heap_info is not available\n")).isEqualTo(-1);
    }
}
