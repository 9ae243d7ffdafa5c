package dev.railyard.benchmarks;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * Thread CPU time per operation over one JMH iteration, printed at its end (nanoseconds from ThreadMXBean, shown in
 * µs/op). On a shared machine wall-clock scores mostly measure waiting for a core; CPU time per call does not.
 * A benchmark method takes this state as a parameter and increments {@link #calls} once per operation.
 */
@State(Scope.Thread)
public class ThreadCpuClock {
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private long startNanos;
    /** Operations in the current iteration. */
    public long calls;

    @Setup(Level.Iteration)
    public void start() {
        calls = 0;
        startNanos = threads.getCurrentThreadCpuTime();
    }

    @TearDown(Level.Iteration)
    public void stop() {
        long cpu = threads.getCurrentThreadCpuTime() - startNanos;
        if (calls > 0 && startNanos >= 0) {
            System.out.printf("  [thread CPU time %.1f us/op over %d ops]%n", cpu / 1e3 / calls, calls);
        }
    }
}
