package dev.railyard.scheduler.simulate;

import dev.railyard.scheduler.engine.ClusterSnapshot;
import dev.railyard.scheduler.engine.PlacementEngine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs one trace against Railyard and every baseline, each on its own copy of the cluster ({@link EventSimulator}),
 * after Caffeine's simulator: the real policy and the baselines on the same arrivals. Railyard's columns call the
 * real {@link PlacementEngine}.
 */
public final class Simulator {
    private Simulator() {
    }

    /**
     * The strategies in table order: Railyard (default hints), Railyard with the queue-pressure knob when
     * {@code relaxAfterSeconds} is finite, then the baselines.
     */
    static List<PlacementStrategy> strategies(long seed, double relaxAfterSeconds) {
        PlacementEngine engine = new PlacementEngine();
        List<PlacementStrategy> out = new ArrayList<>();
        out.add(new RailyardStrategy(engine, Double.POSITIVE_INFINITY));
        if (!Double.isInfinite(relaxAfterSeconds)) {
            out.add(new RailyardStrategy(engine, relaxAfterSeconds));
        }
        out.add(Baselines.random(seed));
        out.add(Baselines.binPacking());
        out.add(DomainBaselines.volcano());
        out.add(DomainBaselines.kai());
        out.add(new KoordinatorBaseline());
        return out;
    }

    /**
     * @param cluster           the cluster (its state before the trace)
     * @param trace             jobs in arrival order
     * @param seed              seed of the random baseline
     * @param model             step-time model
     * @param relaxAfterSeconds Railyard's queue-pressure knob (infinite: only the default column)
     * @param threads           strategies simulated at once (≥ 1)
     * @return one result per strategy, in table order
     */
    public static List<StrategyResult> run(ClusterSnapshot cluster, List<TraceJob> trace, long seed,
                                           StepTimeModel model, double relaxAfterSeconds, int threads) {
        List<PlacementStrategy> strategies = strategies(seed, relaxAfterSeconds);
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(threads, strategies.size())));
        try {
            List<Future<StrategyResult>> futures = new ArrayList<>();
            for (PlacementStrategy s : strategies) {
                futures.add(pool.submit(() -> EventSimulator.run(cluster, trace, s, model)));
            }
            List<StrategyResult> out = new ArrayList<>();
            for (Future<StrategyResult> f : futures) {
                out.add(f.get());
            }
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("simulation interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }
}
