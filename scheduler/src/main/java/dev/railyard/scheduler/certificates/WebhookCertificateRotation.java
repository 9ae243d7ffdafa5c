package dev.railyard.scheduler.certificates;

import dev.railyard.scheduler.server.ReloadableKeyManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Rotates the self-signed webhook certificate while serving: every {@link #CHECK_INTERVAL} a daemon thread runs
 * {@link WebhookCertificateSecret#ensure()} (which regenerates when less than a third of the lifetime is left,
 * or picks up what another replica wrote) and, when the certificate differs from the one being served, loads it
 * into the listener's {@link ReloadableKeyManager}: new handshakes present it, the port never closes.
 *
 * <p>A failed check (API server unreachable, RBAC) is logged as a warning and tried again at the next interval;
 * the served certificate stays valid for months after it becomes due (a third of a year's lifetime).
 */
public final class WebhookCertificateRotation implements AutoCloseable {
    /** How often the Secret is checked: 12 h. */
    public static final Duration CHECK_INTERVAL = Duration.ofHours(12);
    private static final Logger LOG = LoggerFactory.getLogger(WebhookCertificateRotation.class);

    private final WebhookCertificateSecret secret;
    private final ReloadableKeyManager keys;
    private final ScheduledExecutorService timer;

    /**
     * @param secret where the certificate lives
     * @param keys   the webhook listener's key manager, already loaded with the certificate {@code secret} gave
     */
    public WebhookCertificateRotation(WebhookCertificateSecret secret, ReloadableKeyManager keys) {
        this.secret = Objects.requireNonNull(secret, "secret");
        this.keys = Objects.requireNonNull(keys, "keys");
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "railyard-webhook-certificate");
            t.setDaemon(true);
            return t;
        });
    }

    /** Schedules {@link #check()} every {@code interval}, first after one interval. */
    public WebhookCertificateRotation start(Duration interval) {
        long ms = interval.toMillis();
        timer.scheduleWithFixedDelay(() -> {
            try {
                check();
            } catch (RuntimeException e) {
                LOG.warn("webhook certificate check failed, trying again in {}: {}", interval, e.getMessage());
            }
        }, ms, ms, TimeUnit.MILLISECONDS);
        return this;
    }

    /**
     * Ensures the Secret holds a usable certificate and serves it.
     *
     * @return true when a different certificate was loaded into the listener
     * @throws WebhookCertificateSecret.CertificateStoreException when the Secret or configuration cannot be used
     */
    public boolean check() {
        ServingCertificate c = secret.ensure();
        if (c.certificate().equals(keys.certificate())) {
            return false;
        }
        try {
            keys.load(c.key(), new X509Certificate[]{c.certificate()});
        } catch (GeneralSecurityException e) {
            throw new WebhookCertificateSecret.CertificateStoreException(
                    "cannot load the new webhook certificate: " + e.getMessage());
        }
        LOG.info("webhook listener now serves the certificate valid until {}", c.certificate().getNotAfter().toInstant());
        return true;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
