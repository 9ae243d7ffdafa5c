package dev.railyard.scheduler.service;

import java.time.Duration;

/**
 * Writes address holds onto the pods they are for ({@code railyard.dev/address-hold},
 * {@link dev.railyard.scheduler.ipam.HoldAnnotation}), so that a restarted replica or a new leader keeps them
 * (docs/adr/0011-address-holds.md). Implementations are thread-safe.
 */
public interface HoldWriter {

    /**
     * Writes the hold on the pod, only if the pod still has this UID, within the budget.
     *
     * @param namespace pod namespace
     * @param name      pod name
     * @param uid       the pod's UID
     * @param value     the annotation value
     * @param budget    longest time to wait for the API server
     * @throws WriteException when the write did not happen or its outcome is unknown within the budget
     */
    void write(String namespace, String name, String uid, String value, Duration budget) throws WriteException;

    /**
     * Removes the hold from the pod in the background, only if the annotation still has this value (a later hold
     * of the same pod stays). Failures are logged: the hold then ends at its expiry.
     */
    void clear(String namespace, String name, String value);

    /** A hold that could not be written; the message is one line naming the pod and the cause. */
    final class WriteException extends Exception {
        public WriteException(String message) {
            super(message, null, false, false);
        }
    }

    /** For a service without a cluster (tests, {@code --no-cluster}): every write succeeds and is forgotten. */
    static HoldWriter none() {
        return new HoldWriter() {
            @Override
            public void write(String namespace, String name, String uid, String value, Duration budget) {
            }

            @Override
            public void clear(String namespace, String name, String value) {
            }
        };
    }
}
