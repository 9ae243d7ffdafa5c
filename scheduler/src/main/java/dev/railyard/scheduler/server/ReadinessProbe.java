package dev.railyard.scheduler.server;

import java.util.Optional;

/**
 * Says whether the service may take traffic (served at {@code /readyz}): for example informers synced and this
 * replica is the leader. Called on every probe; must be cheap and thread-safe.
 */
@FunctionalInterface
public interface ReadinessProbe {

    /** @return empty when ready, else a one-line reason why not */
    Optional<String> notReadyReason();

    /** Always ready. */
    static ReadinessProbe always() {
        return Optional::empty;
    }
}
