package dev.railyard.scheduler.server;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A process-wide budget for request-body bytes held in memory at once, shared by every listener that is given the
 * same instance. Each body under the per-request limit fits on its own, but many at once could fill the heap
 * (twelve 60 MiB bodies against a 400 MiB heap end the JVM); a request takes its share of this budget before its
 * body is read and gives it back once its reply is computed, and a request that cannot get its share within
 * {@link #maxWait()} is answered 429 with {@code Retry-After} instead.
 *
 * <p>Backed by a fair {@link Semaphore} counting KiB (so budgets up to 2 TiB fit an {@code int}). A request that
 * declares more than the whole budget takes the whole budget, i.e. runs alone, rather than never running. A body
 * of unknown length (chunked) takes {@link #CHUNK} to start and grows its share a chunk at a time as it arrives.
 *
 * <p>Sizing ({@link #defaultBytes(long)}): a quarter of the JVM's maximum heap. Parsing a body into objects takes
 * a few times its size again, so a quarter leaves room for that and for the cluster cache.
 *
 * <p>This budget is the schedulers' verbs'. A route whose caller is not authenticated before its body is read (the
 * admission webhook, {@code /explain}) takes its shares from a small budget of its own
 * ({@link #unauthenticatedRouteBytes()}, bodies of at most {@link #UNAUTHENTICATED_MAX_BODY}): else anyone who
 * reaches its port could declare large bodies, send none, and so fill the budget the schedulers' verbs wait on.
 */
public final class RequestBodyBudget {
    /** Granularity of a chunked body's share, bytes. */
    public static final long CHUNK = 1L << 20;
    /** How long a request waits for its share by default before its 429. */
    public static final Duration DEFAULT_WAIT = Duration.ofMillis(500);
    /**
     * Largest body of a route whose caller is not authenticated before its body is read
     * ({@link dev.railyard.scheduler.protocol.VerbHandler.BodyBudget#UNAUTHENTICATED}; lower when
     * {@code --max-request-size} is): 1 MiB. The bodies of those routes are small: an AdmissionReview of a Binding
     * is a few KB (a Binding's annotations may hold 256 KiB at most), an {@code /explain} request under 1 KB.
     */
    public static final long UNAUTHENTICATED_MAX_BODY = 1L << 20;
    /** Smallest and largest budget of such a route ({@link #unauthenticatedRouteBytes()}). */
    static final long UNAUTHENTICATED_MIN_BUDGET = 1L << 20;
    static final long UNAUTHENTICATED_MAX_BUDGET = 16L << 20;
    private static final long KIB = 1024;

    private final long bytes;
    private final int permits;
    private final Duration maxWait;
    private final Budget semaphore;

    /**
     * @param bytes   budget in bytes, &gt;= 1 KiB
     * @param maxWait how long a request waits for its share, &gt;= 0
     * @throws IllegalArgumentException for a budget under 1 KiB or over 2 TiB, or a negative wait
     */
    public RequestBodyBudget(long bytes, Duration maxWait) {
        Objects.requireNonNull(maxWait, "maxWait");
        if (bytes < KIB || bytes / KIB > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("request-body budget must be 1Ki..2Ti bytes, got " + bytes);
        }
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("request-body budget wait must be >= 0, got " + maxWait);
        }
        this.bytes = bytes;
        this.permits = (int) (bytes / KIB);
        this.maxWait = maxWait;
        this.semaphore = new Budget(permits);
    }

    /** A fair semaphore whose permits may be taken past zero, for {@link #chargeReply}. */
    private static final class Budget extends Semaphore {
        Budget(int permits) {
            super(permits, true);
        }

        void overdraw(int n) {
            reducePermits(n);
        }
    }

    /** A budget of {@link #defaultBytes(long) a quarter of this JVM's heap}, waiting {@link #DEFAULT_WAIT}. */
    public static RequestBodyBudget fromHeap() {
        return new RequestBodyBudget(defaultBytes(Runtime.getRuntime().maxMemory()), DEFAULT_WAIT);
    }

    /**
     * @param maxHeapBytes the JVM's maximum heap ({@link Runtime#maxMemory()})
     * @return a quarter of it, at least 16 MiB
     */
    public static long defaultBytes(long maxHeapBytes) {
        return Math.max(maxHeapBytes / 4, 16L << 20);
    }

    /** The budget, bytes. */
    public long bytes() {
        return bytes;
    }

    /**
     * The budget each route whose caller is not authenticated before its body gets of its own, beside this one (the
     * schedulers' verbs'): a sixteenth of this budget, at least 1 MiB and at most 16 MiB (the default budget of a
     * 1.4 GiB heap gives 16 MiB: sixteen 1 MiB bodies, thousands of AdmissionReviews). Those callers can fill only
     * it: the schedulers' verbs keep all of this budget whatever they send.
     */
    public long unauthenticatedRouteBytes() {
        return Math.clamp(bytes / 16, UNAUTHENTICATED_MIN_BUDGET, UNAUTHENTICATED_MAX_BUDGET);
    }

    /** How long a request waits for its share. */
    public Duration maxWait() {
        return maxWait;
    }

    /** Bytes currently held by requests and unwritten replies (KiB granularity; may exceed the budget). */
    public long bytesInFlight() {
        return (long) (permits - semaphore.availablePermits()) * KIB;
    }

    /**
     * Takes a share for a body of {@code bodyBytes}, waiting up to {@link #maxWait()}.
     *
     * @param bodyBytes the body's size, bytes, &gt;= 0 (more than the budget takes the whole budget)
     * @return the share to close once the reply is computed, or empty when the budget stayed short for the whole wait
     * @throws InterruptedException when the thread is interrupted while waiting
     */
    public Optional<Lease> tryAcquire(long bodyBytes) throws InterruptedException {
        Lease lease = new Lease();
        return lease.grow(bodyBytes) ? Optional.of(lease) : Optional.empty();
    }

    /**
     * Takes a share for a body of {@code bodyBytes} only if it is free now and no request is waiting for one (so a
     * waiting request is not overtaken); never blocks. An empty answer means: wait with {@link #tryAcquire}.
     */
    public Optional<Lease> tryAcquireNow(long bodyBytes) {
        Lease lease = new Lease();
        return lease.growNow(bodyBytes) ? Optional.of(lease) : Optional.empty();
    }

    /**
     * Charges a reply that is computed but not yet written out (its client has not read it yet) to the budget, at
     * once and even past it: the reply is in memory already, so nothing can be refused, but until it is written (or
     * its connection closed) requests wait for their shares as if it were a body. Without it, clients that stop
     * reading could hold any number of replies (docs/serve.md, "Request bodies in flight").
     *
     * @param replyBytes the reply's size, bytes (more than the budget charges the whole budget)
     * @return the charge, to close once the reply is written or dropped; never blocks
     */
    public Lease chargeReply(long replyBytes) {
        Lease lease = new Lease();
        int n = permitsFor(replyBytes);
        semaphore.overdraw(n);
        lease.held = n;
        return lease;
    }

    private int permitsFor(long n) {
        long kib = (Math.max(n, 0) + KIB - 1) / KIB;
        return (int) Math.min(Math.max(kib, 1), permits);
    }

    /** One request's share of the budget; {@link #close()} gives it back (once). Not thread-safe. */
    public final class Lease implements AutoCloseable {
        private int held;
        private boolean closed;

        private Lease() {
        }

        /**
         * Adds {@code moreBytes} to this share, waiting up to {@link #maxWait()}; a share never exceeds the budget.
         *
         * @return false when the budget stayed short for the whole wait (the share is unchanged)
         * @throws InterruptedException when interrupted while waiting
         */
        public boolean grow(long moreBytes) throws InterruptedException {
            if (closed) {
                throw new IllegalStateException("lease already closed");
            }
            int want = Math.min(permitsFor(moreBytes), permits - held);
            if (want <= 0) {
                return true;
            }
            if (!semaphore.tryAcquire(want, maxWait.toNanos(), TimeUnit.NANOSECONDS)) {
                return false;
            }
            held += want;
            return true;
        }

        /**
         * Adds {@code moreBytes} to this share if that is free now and nobody waits; never blocks.
         *
         * @return false when it is not (the share is unchanged)
         */
        public boolean growNow(long moreBytes) {
            if (closed) {
                throw new IllegalStateException("lease already closed");
            }
            int want = Math.min(permitsFor(moreBytes), permits - held);
            if (want <= 0) {
                return true;
            }
            if (semaphore.hasQueuedThreads() || !semaphore.tryAcquire(want)) {
                return false;
            }
            held += want;
            return true;
        }

        /** Bytes this share holds. */
        public long bytes() {
            return (long) held * KIB;
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                semaphore.release(held);
                held = 0;
            }
        }
    }
}
