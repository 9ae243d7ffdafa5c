package dev.railyard.scheduler.ipam;

import java.time.Duration;
import java.time.Instant;

/**
 * The rules by which a ledger adopts a hold read back from the cluster ({@link PersistedHold}, the
 * {@code railyard.dev/address-hold} annotation), so that a pod's own annotation cannot hold addresses for longer, or
 * more of them, than a hold Railyard itself writes (docs/adr/0011-address-holds.md, amendment of 2026-12-04). The
 * annotation is the pod's, and whoever may update the pod may write it; the chart's admission policy keeps it to
 * the extender's ServiceAccount, and these rules hold whether or not that policy is installed:
 * <ol>
 *   <li>only the origins Railyard persists are adopted: {@code volcano allocateFunc} (patched on the pod) and
 *       {@code kube bind} (on the Binding); a {@code kube filter} or {@code plan} hold is never written, so one read
 *       back is not Railyard's;</li>
 *   <li>a pod whose network selection lists more than {@value #MAX_NETWORKS} entries is not adopted: Railyard holds
 *       one address per entry and range, and no GPU pod attaches that many (8 HCAs, or 8 HCAs of 2 ports, is the
 *       most a node has; the bound doubles that);</li>
 *   <li>a hold whose {@code since} is more than {@link #CLOCK_SKEW} after the ledger's clock is not adopted: Railyard
 *       writes {@code since} from its own clock when it takes the hold;</li>
 *   <li>an adopted hold ends at {@code min(until, since + lifetime)}, the lifetime being the one this replica gives
 *       a hold of that origin when it takes one ({@link #lifetime}); a hold Railyard wrote has
 *       {@code until = since + lifetime} exactly, so it is adopted as written.</li>
 * </ol>
 * Immutable, thread-safe.
 *
 * @param bind     the lifetime of a {@code kube bind} hold; positive
 * @param allocate the lifetime of a {@code volcano allocateFunc} hold; positive
 */
public record HoldAdoption(Duration bind, Duration allocate) {
    /** How far in the future a hold's {@code since} may be and the hold still be adopted: clocks drift. */
    public static final Duration CLOCK_SKEW = Duration.ofMinutes(2);
    /** Most network selection entries of a pod whose persisted hold is adopted. */
    public static final int MAX_NETWORKS = 32;
    /** The lifetimes the service gives holds unless told otherwise: bind and allocate 5 min. */
    public static final HoldAdoption DEFAULTS = new HoldAdoption(Duration.ofMinutes(5), Duration.ofMinutes(5));

    public HoldAdoption {
        for (Duration d : new Duration[]{bind, allocate}) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("hold lifetimes must be positive");
            }
        }
    }

    /**
     * What a ledger does with a persisted hold.
     *
     * @param until   when the adopted hold ends, or null when it is not adopted
     * @param why     why it is not adopted, or why its end is earlier than written; null when adopted as written
     * @param warning the kind of {@code why} ({@code origin}, {@code networks}, {@code future}, {@code lifetime}), a
     *                bounded set to rate-limit its log lines by; null with {@code why}
     */
    public record Verdict(Instant until, String why, String warning) {
        /** @return true when the hold is adopted (until {@link #until}) */
        public boolean adopted() {
            return until != null;
        }
    }

    /** @return the lifetime Railyard gives a hold of this origin when it writes one, or null when it writes none */
    public Duration lifetime(HoldOrigin origin) {
        return switch (origin) {
            case BIND -> bind;
            case ALLOCATE -> allocate;
            default -> null;
        };
    }

    /**
     * @param p   the hold as the cluster shows it
     * @param now the ledger's clock
     * @return whether it is adopted and until when: not adopted when its origin is never persisted, its pod lists
     *         more than {@value #MAX_NETWORKS} networks, its {@code since} is more than {@link #CLOCK_SKEW} ahead of
     *         {@code now}, or its end ({@code min(until, since + lifetime)}) is not after {@code now}
     */
    public Verdict judge(PersistedHold p, Instant now) {
        Duration lifetime = lifetime(p.origin());
        if (lifetime == null) {
            return new Verdict(null, "its origin \"" + p.origin().words() + "\" is never written by Railyard",
                    "origin");
        }
        int networks = p.placement().request().selections().size();
        if (networks > MAX_NETWORKS) {
            return new Verdict(null, "the pod lists " + networks + " networks, more than the " + MAX_NETWORKS
                    + " a hold is adopted for", "networks");
        }
        if (p.since().isAfter(now.plus(CLOCK_SKEW))) {
            return new Verdict(null, "its since " + p.since() + " is more than " + CLOCK_SKEW.toMinutes()
                    + " min after this replica's clock (" + now + ")", "future");
        }
        Instant longest = p.since().plus(lifetime);
        Instant until = p.until().isAfter(longest) ? longest : p.until();
        String why = until == p.until() ? null : "its until " + p.until() + " is later than since + "
                + lifetime.toSeconds() + " s (" + longest + "), the lifetime of a " + p.origin().words() + " hold";
        if (!until.isAfter(now)) {
            return new Verdict(null, why == null ? "it has expired" : why + ", which has passed", "lifetime");
        }
        return new Verdict(until, why, why == null ? null : "lifetime");
    }
}
