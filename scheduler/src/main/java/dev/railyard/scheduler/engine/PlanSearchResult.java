package dev.railyard.scheduler.engine;

import java.util.List;
import java.util.Map;

/**
 * What one search of the gang planner ends with, typed so that every caller handles every case (a {@code switch}
 * over a sealed type). {@link RailSetSearch} answers an {@link Attempt} per relaxation level; {@link DomainSearch}
 * answers a {@link DomainResult} per rail-vector combination, where {@link Pruned} means it stopped early because it
 * cannot beat a plan already found.
 */
final class PlanSearchResult {
    private PlanSearchResult() {
    }

    /** The result of one relaxation level: the best plan found, or why there is none. */
    sealed interface Attempt permits Candidate, Failure {
    }

    /** The result of one rail-vector combination. */
    sealed interface DomainResult permits Candidate, Failure, Pruned {
    }

    /**
     * The best plan of one search.
     *
     * @param cost       its cost
     * @param level      level of the chosen domain in {@code tree} (0: one node)
     * @param domain     index of the chosen domain at that level
     * @param nodeStates node index → pods of each class placed there
     * @param vectors    rail vector per class (null: any rails)
     * @param rails      the rails the gang uses, ascending
     * @param tree       the fabric seen through those rails
     * @param boundTier  the lowest level at which one domain holds every bound member (0 when none is bound)
     */
    record Candidate(PlanCost cost, int level, int domain, Map<Integer, int[]> nodeStates, RailVector[] vectors,
                     int[] rails, DomainTree tree, int boundTier) implements Attempt, DomainResult {
    }

    /**
     * Why a search failed, for the reasons of an unschedulable outcome.
     *
     * @param reasons    gang-level reasons (may be empty: the caller then says less)
     * @param bestVector the rail vector the most pods could use, or null (nodes lacking it get
     *                   {@link ReasonCode#RAIL_SET_UNAVAILABLE})
     * @param bestClass  the class that vector belongs to
     */
    record Failure(List<Reason> reasons, RailVector bestVector, int bestClass) implements Attempt, DomainResult {
        static final Failure EMPTY = new Failure(List.of(), null, 0);

        static Failure of(Reason reason) {
            return new Failure(List.of(reason), null, 0);
        }

        /** @return the reasons joined into one line */
        String describe() {
            return String.join("; ", reasons.stream().map(Reason::toString).toList());
        }
    }

    /** The search stopped: no domain at a tier at most the best plan's can hold the gang. */
    record Pruned() implements DomainResult {
        static final Pruned INSTANCE = new Pruned();
    }
}
