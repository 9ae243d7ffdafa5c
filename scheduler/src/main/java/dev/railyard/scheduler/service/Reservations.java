package dev.railyard.scheduler.service;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * The reservation side of the protocol port: the address holds and the checks in front of {@code bind} and
 * {@code allocateFunc}, with the budget {@code allocateFunc} has for writing its hold.
 *
 * @param holds          the holds
 * @param admission      the checks, then the holds
 * @param allocateBudget how long {@code allocateFunc} may wait for the API server to write the hold on the pod
 */
public record Reservations(AddressHolds holds, BindAdmission admission, Duration allocateBudget) {
    public Reservations {
        Objects.requireNonNull(holds, "holds");
        Objects.requireNonNull(admission, "admission");
        Objects.requireNonNull(allocateBudget, "allocateBudget");
    }

    /**
     * How the service reserves.
     *
     * @param lifetimes      hold lifetimes per moment
     * @param schedulers     the {@code spec.schedulerName}s Railyard binds and allocates for
     * @param podWait        how long {@code bind} waits for a pod its cache has not seen yet
     * @param allocateBudget how long {@code allocateFunc} waits for the hold to be written on the pod
     */
    public record Settings(AddressHolds.Settings lifetimes, Set<String> schedulers, Duration podWait,
                           Duration allocateBudget) {
        /** Default lifetimes, the chart's schedulers, 1 s pod wait, 300 ms write budget. */
        public static final Settings DEFAULTS = new Settings(AddressHolds.Settings.DEFAULTS,
                BindAdmission.DEFAULT_SCHEDULERS, Duration.ofSeconds(1), Duration.ofMillis(300));

        public Settings {
            Objects.requireNonNull(lifetimes, "lifetimes");
            schedulers = Set.copyOf(schedulers);
            if (schedulers.isEmpty()) {
                throw new IllegalArgumentException("at least one scheduler name");
            }
            Objects.requireNonNull(podWait, "podWait");
            Objects.requireNonNull(allocateBudget, "allocateBudget");
        }
    }
}
