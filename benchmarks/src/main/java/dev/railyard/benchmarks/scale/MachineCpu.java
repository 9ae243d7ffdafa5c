package dev.railyard.benchmarks.scale;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Where the machine's CPU went during a phase: CPU seconds (user + system, from {@code /proc}) of serve, the
 * kube-apiserver, etcd and the benchmark's own process (load generator, churn), and of the whole machine
 * ({@code /proc/stat}, all processes, idle and iowait left out). A phase that takes longer without serve's CPU per
 * call going up was waiting, or lost the cores to one of the others; this says which.
 *
 * @param serve     serve's CPU seconds so far, or -1 when unreadable
 * @param apiServer kube-apiserver's
 * @param etcd      etcd's
 * @param benchmark this process's
 * @param machine   the machine's busy CPU seconds since boot
 */
record MachineCpu(double serve, double apiServer, double etcd, double benchmark, double machine) {

    /** @return the counters now; pids of -1 read as -1 */
    static MachineCpu now(long servePid, ScaleControlPlane cp) {
        return new MachineCpu(RailyardServe.cpuSeconds(servePid), RailyardServe.cpuSeconds(cp.pid("kube-apiserver")),
                RailyardServe.cpuSeconds(cp.pid("etcd")), RailyardServe.cpuSeconds(ProcessHandle.current().pid()),
                machineBusySeconds());
    }

    /** @return the counters before serve starts: its CPU reads as 0 */
    static MachineCpu beforeStart(ScaleControlPlane cp) {
        MachineCpu now = now(-1, cp);
        return new MachineCpu(0, now.apiServer, now.etcd, now.benchmark, now.machine);
    }

    /** @return "serve 31.2 s, kube-apiserver 2.1 s, etcd 0.4 s, benchmark 9.8 s, other 0.7 s of 47.0 s busy" */
    String since(MachineCpu before) {
        double s = serve - before.serve;
        double a = apiServer - before.apiServer;
        double e = etcd - before.etcd;
        double b = benchmark - before.benchmark;
        double m = machine - before.machine;
        return String.format(Locale.ROOT, "serve %.1f s, kube-apiserver %.1f s, etcd %.1f s, benchmark %.1f s, "
                + "other %.1f s of %.1f s busy", s, a, e, b, m - s - a - e - b, m);
    }

    /** Busy CPU seconds of the machine: the first line of /proc/stat without idle and iowait, in USER_HZ (100/s). */
    private static double machineBusySeconds() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).getFirst().trim().split("\\s+");
            long busy = 0;
            // cpu user nice system idle iowait irq softirq steal (guest time is inside user)
            for (int i = 1; i <= 8 && i < f.length; i++) {
                if (i != 4 && i != 5) {
                    busy += Long.parseLong(f[i]);
                }
            }
            return busy / 100.0;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
