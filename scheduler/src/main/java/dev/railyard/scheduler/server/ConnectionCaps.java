package dev.railyard.scheduler.server;

import io.netty.channel.Channel;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How many connections a listener keeps open: at most {@code perPeer} from one peer address and {@code total} in
 * all; a connection beyond either is closed as soon as it is accepted, before a byte is read.
 *
 * <p>Why: every open connection holds a file descriptor. Without a cap, a caller that opens connections and sends
 * nothing (found by an attacker review with {@code prlimit --nofile=300}) used up the process's descriptors, so the
 * kubelet's {@code /healthz} probe could not connect and Netty logged "Too many open files" every second until the
 * silent connections timed out. The per-peer cap keeps one caller from taking the listener from the others (the
 * kubelet probes from the node's address, the schedulers from theirs); the total keeps a quarter of the
 * descriptors for the API client, the watches and the other listeners.
 *
 * <p>Defaults ({@link #fromProcessLimits}): per peer {@value #DEFAULT_PER_PEER} (vc-scheduler's predicate workers
 * and kube-scheduler's parallelism stay far below it: 16 in the benchmarks' storms); in all, three quarters of the
 * process's descriptor limit, at most {@value #DEFAULT_TOTAL_MAX}. Thread-safe.
 */
final class ConnectionCaps {
    static final int DEFAULT_PER_PEER = 256;
    static final int DEFAULT_TOTAL_MAX = 16_384;

    private final int perPeer;
    private final int total;
    /** Open connections per peer; changed only inside the map's per-key compute, so take and release agree. */
    private final ConcurrentHashMap<InetAddress, Integer> byPeer = new ConcurrentHashMap<>();
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicLong refused = new AtomicLong();

    /**
     * @param perPeer most connections from one peer address, &gt; 0
     * @param total   most connections in all, &gt; 0
     */
    ConnectionCaps(int perPeer, int total) {
        if (perPeer <= 0 || total <= 0) {
            throw new IllegalArgumentException("connection caps must be > 0, got " + perPeer + " and " + total);
        }
        this.perPeer = perPeer;
        this.total = total;
    }

    /** The defaults above, from this process's file-descriptor limit (16,384 in all when it cannot be read). */
    static ConnectionCaps fromProcessLimits() {
        long fds = -1;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean u) {
            fds = u.getMaxFileDescriptorCount();
        }
        int total = fds <= 0 ? DEFAULT_TOTAL_MAX : (int) Math.clamp(fds * 3 / 4, 1, DEFAULT_TOTAL_MAX);
        return new ConnectionCaps(Math.min(DEFAULT_PER_PEER, total), total);
    }

    /**
     * Counts the connection in when both caps allow it, and arranges for it to be counted out when it closes.
     *
     * @return false when the connection is over a cap (the caller closes it; it is counted in {@link #refused()})
     */
    boolean admit(Channel ch) {
        InetAddress peer = ch.remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        if (!take(peer)) {
            refused.incrementAndGet();
            return false;
        }
        ch.closeFuture().addListener(f -> release(peer));
        return true;
    }

    /** Counts a connection from {@code peer} (null: unknown) in, if the caps allow. */
    boolean take(InetAddress peer) {
        if (open.incrementAndGet() > total) {
            open.decrementAndGet();
            return false;
        }
        if (peer != null) {
            boolean[] taken = {false};
            byPeer.compute(peer, (k, n) -> {
                int now = n == null ? 0 : n;
                taken[0] = now < perPeer;
                return taken[0] ? Integer.valueOf(now + 1) : n;
            });
            if (!taken[0]) {
                open.decrementAndGet();
                return false;
            }
        }
        return true;
    }

    /** Counts a connection from {@code peer} out. */
    void release(InetAddress peer) {
        open.decrementAndGet();
        if (peer != null) {
            byPeer.computeIfPresent(peer, (k, n) -> n <= 1 ? null : n - 1);
        }
    }

    /** @return connections open now */
    int open() {
        return open.get();
    }

    /** @return connections closed on accept because a cap was reached, since start */
    long refused() {
        return refused.get();
    }

    /** @return the caps, for the start-up line */
    String describe() {
        return perPeer + " connections per peer address and " + total + " in all at most";
    }
}
