package dev.railyard.scheduler.simulate;

import dev.railyard.api.topology.PcieDistance;
import dev.railyard.scheduler.engine.ClusterSnapshot;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * A discrete-event simulation of one strategy over a trace: jobs arrive, wait in one queue, run for their
 * duration × the slowdown of their placement ({@link StepTimeModel}) and leave.
 *
 * <p>Queue: FIFO with greedy backfill, the way Volcano's allocate action and kube-scheduler's scheduling queue
 * behave with equal priorities: every scheduling cycle walks the waiting jobs in arrival order and starts each one
 * that fits now; a job that does not fit keeps its place and does not block the ones behind it (no reservation).
 * Cycles run when a job arrives (only the new job can fit: nothing was freed) and when jobs leave (the whole queue
 * is walked). Within one cycle a shape (pods × GPUs) that failed is not tried again: the cluster only fills up
 * during a cycle. A job is never dropped: one that can never fit stays queued and is reported.
 *
 * <p>Conservation is checked as it runs ({@link SimCluster} refuses double-booked GPUs) and at the end: every job
 * finished or is still queued, no GPU is left held, and GPU-seconds taken equal GPU-seconds given back; a breach
 * throws {@link IllegalStateException}.
 */
final class EventSimulator {
    /** Points of the utilisation series. */
    static final int SERIES_POINTS = 240;

    private EventSimulator() {
    }

    private record Running(double start, double end, TraceJob job, List<PlacementStrategy.PodUse> pods,
                           double useful) {
    }

    private record Shape(int pods, int gpus, boolean relaxed) {
    }

    /**
     * @param cluster  the cluster before the trace
     * @param trace    jobs sorted by arrival
     * @param strategy the strategy
     * @param model    the step-time model
     * @return what the strategy achieved
     * @throws IllegalStateException when a conservation check fails (a bug in a strategy or the simulator)
     */
    static StrategyResult run(ClusterSnapshot cluster, List<TraceJob> trace, PlacementStrategy strategy,
                              StepTimeModel model) {
        return new Run(cluster, trace, strategy, model).simulate();
    }

    /** The state of one run. */
    private static final class Run {
        final SimCluster c;
        final List<TraceJob> trace;
        final PlacementStrategy strategy;
        final StepTimeModel model;
        final PriorityQueue<Running> running = new PriorityQueue<>((a, b) -> Double.compare(a.end(), b.end()));
        final LinkedList<TraceJob> queue = new LinkedList<>();
        final long baseBusy;
        final double lastArrival;
        /** Start of the utilisation window: the first arrival plus one mean duration (warm-up left out). */
        final double windowStart;
        final double seriesStep;
        final List<Double> waits = new ArrayList<>();
        final List<Double> slowdowns = new ArrayList<>();
        final List<Long> planNanos = new ArrayList<>();
        final Map<PcieDistance, Long> hist = new EnumMap<>(PcieDistance.class);
        final double[] series = new double[SERIES_POINTS];
        final double[] seriesTimes = new double[SERIES_POINTS];
        double now;
        double busyIntegral;
        /** GPUs held weighted by 1 / slowdown of their job: the share doing ideal-placement work. */
        double useful;
        double usefulIntegral;
        double gpuSecondsTaken;
        double gpuSecondsGiven;
        double jctSum;
        double idealSum;
        int multiPod;
        long crossRail;
        long crossLeaf;
        int seriesNext;
        final PriorityQueue<Double> wakeUps = new PriorityQueue<>();

        Run(ClusterSnapshot cluster, List<TraceJob> trace, PlacementStrategy strategy, StepTimeModel model) {
            this.c = new SimCluster(cluster);
            this.trace = trace;
            this.strategy = strategy;
            this.model = model;
            this.baseBusy = c.busy();
            this.lastArrival = trace.isEmpty() ? 0 : trace.get(trace.size() - 1).arrival();
            double meanDuration = trace.stream().mapToDouble(TraceJob::duration).average().orElse(1);
            double first = trace.isEmpty() ? 0 : trace.get(0).arrival();
            this.windowStart = Math.min(first + meanDuration, first + (lastArrival - first) / 2);
            this.seriesStep = Math.max(lastArrival + 2 * meanDuration, 1) / SERIES_POINTS;
        }

        StrategyResult simulate() {
            int next = 0;
            while (next < trace.size() || !running.isEmpty()) {
                double tArrive = next < trace.size() ? trace.get(next).arrival() : Double.POSITIVE_INFINITY;
                double tLeave = running.isEmpty() ? Double.POSITIVE_INFINITY : running.peek().end();
                double tWake = wakeUps.isEmpty() ? Double.POSITIVE_INFINITY : wakeUps.peek();
                double t = Math.min(tArrive, Math.min(tLeave, tWake));
                advance(t);
                boolean freed = false;
                while (!running.isEmpty() && running.peek().end() <= now) {
                    leave(running.poll());
                    freed = true;
                }
                boolean woke = false;
                while (!wakeUps.isEmpty() && wakeUps.peek() <= now) {
                    wakeUps.poll();
                    woke = true;
                }
                List<TraceJob> arrived = new ArrayList<>();
                while (next < trace.size() && trace.get(next).arrival() <= now) {
                    TraceJob j = trace.get(next++);
                    queue.add(j);
                    arrived.add(j);
                    if (strategy instanceof RailyardStrategy r && r.relaxAfter() > 0
                            && !Double.isInfinite(r.relaxAfter())) {
                        wakeUps.add(j.arrival() + r.relaxAfter());
                    }
                }
                cycle(freed || woke ? null : new HashSet<>(arrived));
            }
            return finish();
        }

        void advance(double t) {
            long busy = c.busy() - baseBusy;
            while (seriesNext < SERIES_POINTS && seriesNext * seriesStep <= t) {
                seriesTimes[seriesNext] = seriesNext * seriesStep;
                series[seriesNext++] = busy / (double) c.capacity();
            }
            double from = Math.max(windowStart, Math.min(now, lastArrival));
            double to = Math.max(windowStart, Math.min(t, lastArrival));
            if (to > from) {
                busyIntegral += busy * (to - from);
                usefulIntegral += useful * (to - from);
            }
            now = t;
        }

        /** Walks the queue in arrival order; {@code only}: try just these jobs (null = all). */
        void cycle(Set<TraceJob> only) {
            Set<Shape> failed = new HashSet<>();
            for (Iterator<TraceJob> it = queue.iterator(); it.hasNext(); ) {
                TraceJob j = it.next();
                if (only != null && !only.contains(j)) {
                    continue;
                }
                double waited = now - j.arrival();
                Shape shape = new Shape(j.pods(), j.gpus(), strategy instanceof RailyardStrategy r
                        && r.affinity(waited) != dev.railyard.api.hints.AffinityPolicy.REQUIRED);
                if (failed.contains(shape)) {
                    continue;
                }
                if (c.busy() + j.totalGpus() > c.capacity() || !strategy.mayFit(c, j, waited)) {
                    failed.add(shape);
                    continue;
                }
                long t0 = System.nanoTime();
                List<PlacementStrategy.PodUse> pods = strategy.place(c, j, waited);
                planNanos.add(System.nanoTime() - t0);
                if (pods == null) {
                    failed.add(shape);
                    continue;
                }
                it.remove();
                start(j, pods, waited);
            }
        }

        void start(TraceJob j, List<PlacementStrategy.PodUse> pods, double waited) {
            if (pods.size() != j.pods()) {
                throw new IllegalStateException("strategy " + strategy.name() + " gave " + pods.size()
                        + " pods for job " + j.name() + " of " + j.pods());
            }
            for (PlacementStrategy.PodUse p : pods) {
                if (p.gpus().size() != j.gpus()) {
                    throw new IllegalStateException("strategy " + strategy.name() + " gave " + p.gpus().size()
                            + " GPUs to a pod of " + j.name() + " asking " + j.gpus());
                }
                c.take(p.node(), p.gpus().stream().map(PlacementStrategy.GpuUse::gpu).toList());
            }
            JobPlacement jp = JobPlacement.of(j, pods, c.fabric(), model);
            double slowdown = model.slowdown(j, jp);
            double runTime = j.duration() * slowdown;
            running.add(new Running(now, now + runTime, j, pods, j.totalGpus() / slowdown));
            useful += j.totalGpus() / slowdown;
            waits.add(waited);
            slowdowns.add(slowdown);
            jctSum += waited + runTime;
            idealSum += j.duration();
            gpuSecondsTaken += runTime * j.totalGpus();
            jp.gpusByDistance().forEach((d, n) -> hist.merge(d, (long) n, Long::sum));
            if (j.pods() > 1) {
                multiPod++;
                crossRail += jp.crossRail();
                crossLeaf += jp.crossLeaf();
            }
        }

        void leave(Running r) {
            for (PlacementStrategy.PodUse p : r.pods()) {
                c.release(p.node(), p.gpus().stream().map(PlacementStrategy.GpuUse::gpu).toList());
            }
            gpuSecondsGiven += (r.end() - r.start()) * r.job().totalGpus();
            useful -= r.useful();
        }

        StrategyResult finish() {
            advance(now);
            int finished = waits.size();
            if (finished + queue.size() != trace.size()) {
                throw new IllegalStateException("conservation: " + finished + " finished + " + queue.size()
                        + " queued ≠ " + trace.size() + " jobs");
            }
            if (c.busy() != baseBusy) {
                throw new IllegalStateException("conservation: " + (c.busy() - baseBusy)
                        + " GPUs still held with no job running");
            }
            if (Math.abs(gpuSecondsTaken - gpuSecondsGiven) > 1e-6 * Math.max(1, gpuSecondsTaken)) {
                throw new IllegalStateException("conservation: " + gpuSecondsTaken + " GPU-seconds taken, "
                        + gpuSecondsGiven + " given back");
            }
            long[] sorted = planNanos.stream().mapToLong(Long::longValue).sorted().toArray();
            double[] ms = Arrays.stream(sorted).mapToDouble(n -> n / 1e6).toArray();
            double window = lastArrival - windowStart;
            double util = window > 0 ? busyIntegral / (window * c.capacity()) : 0;
            double goodput = window > 0 ? usefulIntegral / (window * c.capacity()) : 0;
            int points = Math.max(1, seriesNext);
            return new StrategyResult(strategy.name(), trace.size(), finished, queue.size(),
                    waits.stream().mapToDouble(Double::doubleValue).toArray(),
                    slowdowns.stream().mapToDouble(Double::doubleValue).toArray(),
                    finished == 0 ? 0 : jctSum / finished, finished == 0 ? 0 : idealSum / finished, util, goodput,
                    Arrays.copyOf(seriesTimes, points), Arrays.copyOf(series, points), multiPod, crossRail,
                    crossLeaf, hist, sorted.length, StrategyResult.percentile(ms, 0.50),
                    StrategyResult.percentile(ms, 0.99));
        }
    }
}
