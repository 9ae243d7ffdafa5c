package dev.railyard.benchmarks.scale;

import dev.railyard.benchmarks.scale.ClusterScaleBenchmark.Options;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The phases of {@link ClusterScaleBenchmark} against {@code serve --no-cluster} (parse and transport only, no
 * state): the floor the measured serve is compared with, and the unmeasured warm-up of the load generator.
 */
final class NoClusterPhases {
    private NoClusterPhases() {
    }

    /**
     * Against {@code serve --no-cluster}, with serve's CPU per call: the predicate load (quiet), the storm quiet and
     * with the same churn on the API server, the predicate loads with that churn (16 callers and 1), and the prioritize
     * calls (the parse alone).
     */
    record NoCluster(DecisionLoad.Latency predicate, double predicateCpuMs, DecisionLoad.Storm storm,
                     double stormCpuMs, DecisionLoad.Storm churnStorm, double churnStormCpuMs,
                     DecisionLoad.Latency prioritize, double prioritizeCpuMs,
                     DecisionLoad.Latency churnPredicate, DecisionLoad.Latency churnSinglePredicate) {
    }

    /**
     * Against {@code serve --no-cluster}: the same storm quiet and then with the same churn running on the API
     * server (serve --no-cluster does not watch it; the churn's cost to the machine is then in both sides of the
     * ratio), the predicate loads with that churn (16 workers and 1), the same predicate load quiet (16 workers: the
     * floor the transport and the parse set on this machine), then the same prioritize calls.
     */
    static NoCluster measure(Options o, ScaleControlPlane cp, Path jar, Path runDir,
                             ClusterPopulator.Populated cluster, byte[] kubeFilter, Churn churn)
            throws IOException {
        try (RailyardServe serve = ClusterScaleBenchmark.open(RailyardServe.start(jar, null,
                ClusterScaleBenchmark.serveJvm(o, runDir, null), runDir, "serve-no-cluster", Duration.ofMinutes(2),
                "warn"))) {
            DecisionLoad load = new DecisionLoad(serve.url(), cluster, kubeFilter);
            load.predicates(o.predicateWorkers(), o.warmup());
            double c0 = RailyardServe.cpuSeconds(serve.pid());
            MachineCpu m0 = MachineCpu.now(serve.pid(), cp);
            DecisionLoad.Storm s = load.storm(o.stormTasks(), o.stormWorkers(), o.stormMaxSeconds());
            double c1 = RailyardServe.cpuSeconds(serve.pid());
            MachineCpu m1 = MachineCpu.now(serve.pid(), cp);
            double stormCpu = (c1 - c0) * 1000 / Math.max(1, s.calls());
            System.out.printf("[scale]   --no-cluster storm: %d of %d calls in %.1f s, %d errors, serve CPU %.2f "
                    + "ms/call (load %s); CPU: %s%n", s.calls(), s.planned(), s.seconds(), s.errors(), stormCpu,
                    ScaleReport.load(), m1.since(m0));
            churn.start();
            DecisionLoad.Storm cs;
            try {
                cs = load.storm(o.stormTasks(), o.stormWorkers(), o.stormMaxSeconds());
            } finally {
                churn.pause();
            }
            double churnStormCpu = (RailyardServe.cpuSeconds(serve.pid()) - c1) * 1000 / Math.max(1, cs.calls());
            System.out.printf("[scale]   --no-cluster storm with churn: %d of %d calls in %.1f s, %d errors, serve CPU "
                    + "%.2f ms/call (load %s); CPU: %s%n", cs.calls(), cs.planned(), cs.seconds(), cs.errors(),
                    churnStormCpu, ScaleReport.load(), MachineCpu.now(serve.pid(), cp).since(m1));
            // the predicate loads of the measured serve's churn phase, against the parse and transport alone with the
            // same churn on the API server: the floor under churn
            DecisionLoad.Latency churnPredicate;
            DecisionLoad.Latency churnSingle;
            churn.start();
            try {
                churnPredicate = load.predicates(o.predicateWorkers(), o.seconds());
                churnSingle = load.predicates(1, o.seconds());
            } finally {
                churn.pause();
            }
            System.out.printf("[scale]   --no-cluster predicate with churn: %d workers p50 %.2f ms, p99 %.2f ms; "
                    + "1 worker p50 %.2f ms, p99 %.2f ms (load %s)%n", churnPredicate.workers(), churnPredicate.p50Ms(),
                    churnPredicate.p99Ms(), churnSingle.p50Ms(), churnSingle.p99Ms(), ScaleReport.load());
            // after the storms, as the measured serve's quiet predicate comes after its other phases: JIT warm
            c0 = RailyardServe.cpuSeconds(serve.pid());
            DecisionLoad.Latency predicate = load.predicates(o.predicateWorkers(), o.quietSeconds());
            double predicateCpu = (RailyardServe.cpuSeconds(serve.pid()) - c0) * 1000 / Math.max(1, predicate.calls());
            System.out.printf("[scale]   --no-cluster quiet predicate: %,d calls, p50 %.2f ms, p99 %.2f ms, serve CPU "
                    + "%.2f ms/call (load %s)%n", predicate.calls(), predicate.p50Ms(), predicate.p99Ms(), predicateCpu,
                    ScaleReport.load());
            load.prioritizes(1, o.warmup(), o.prioritizeNodes());
            c1 = RailyardServe.cpuSeconds(serve.pid());
            DecisionLoad.Latency p = load.prioritizes(o.prioritizeWorkers(), o.quietSeconds(), o.prioritizeNodes());
            double prioritizeCpu = (RailyardServe.cpuSeconds(serve.pid()) - c1) * 1000 / Math.max(1, p.calls());
            System.out.printf("[scale]   --no-cluster prioritize: %,d calls, p50 %.2f ms, p99 %.2f ms, serve CPU %.2f "
                    + "ms/call (load %s)%n", p.calls(), p.p50Ms(), p.p99Ms(), prioritizeCpu, ScaleReport.load());
            return new NoCluster(predicate, predicateCpu, s, stormCpu, cs, churnStormCpu, p, prioritizeCpu,
                    churnPredicate, churnSingle);
        }
    }

    /**
     * Runs every load of the measurements (predicate, prioritize, kube filter, storm) against a {@code --no-cluster}
     * serve for {@code --client-warmup-seconds} in all, unmeasured: without it the first serve measured in a run
     * shares the cores with a load generator whose own code is still being compiled.
     */
    static void warmLoadGenerator(Options o, Path jar, Path runDir, ClusterPopulator.Populated cluster,
                                  byte[] kubeFilter) throws IOException {
        double each = o.clientWarmupSeconds() / 4;
        double c0 = RailyardServe.cpuSeconds(ProcessHandle.current().pid());
        try (RailyardServe serve = ClusterScaleBenchmark.open(RailyardServe.start(jar, null,
                ClusterScaleBenchmark.serveJvm(o, runDir, null), runDir, "serve-client-warmup", Duration.ofMinutes(2),
                "warn"))) {
            DecisionLoad load = new DecisionLoad(serve.url(), cluster, kubeFilter);
            load.predicates(o.predicateWorkers(), each);
            load.prioritizes(o.prioritizeWorkers(), each, o.prioritizeNodes());
            load.kubeFilters(o.filterWorkers(), each);
            load.storm(o.stormTasks(), o.stormWorkers(), each);
        }
        System.out.printf("[scale] load generator warmed against --no-cluster for %.0f s (its CPU %.1f s; load %s)%n",
                o.clientWarmupSeconds(), RailyardServe.cpuSeconds(ProcessHandle.current().pid()) - c0,
                ScaleReport.load());
    }
}
