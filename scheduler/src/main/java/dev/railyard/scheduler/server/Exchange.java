package dev.railyard.scheduler.server;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpRequest;

import java.util.Arrays;

/**
 * One request on a connection, from its head to its reply: what was asked, where it goes, and its body as it
 * arrives. Used on the connection's event loop only, and handed to a decision thread once complete.
 */
final class Exchange {
    private static final byte[] NO_BODY = new byte[0];

    final HttpRequest request;
    final String method;
    /** The decoded path (percent-escapes resolved), or the raw target when it could not be decoded. */
    final String path;
    /** The mounted verb, or null for a built-in endpoint or an unknown path. */
    final Endpoints.Route route;
    final long startNanos;
    /** Content-Length, or -1 for a chunked body. */
    final long declared;

    RequestBodyBudget.Lease lease;
    /** Who sent it, once admitted. */
    dev.railyard.scheduler.protocol.Caller caller;
    /** Bytes of body received (kept or discarded). */
    long received;
    private byte[] body = NO_BODY;
    private int filled;

    Exchange(HttpRequest request, String path, Endpoints.Route route, long declared) {
        this.request = request;
        this.method = request.method().name();
        this.path = path;
        this.route = route;
        this.declared = declared;
        this.startNanos = System.nanoTime();
    }

    /** {@code protocol} metric tag. */
    String protocol() {
        return route == null ? "http" : route.protocol();
    }

    /** {@code verb} metric tag. */
    String verb() {
        return route == null ? path : route.verb();
    }

    /** {@code volcano predicate}, for reasons and logs. */
    String name() {
        return protocol() + " " + verb();
    }

    /** Appends a part of the body (copied; the buffer is not released here). */
    void keep(ByteBuf content) {
        int n = content.readableBytes();
        if (n == 0) {
            return;
        }
        if (filled + n > body.length) {
            long want = declared >= 0 ? declared : Math.max(2L * body.length, filled + (long) n);
            body = Arrays.copyOf(body, (int) Math.min(Math.max(want, filled + (long) n), Integer.MAX_VALUE - 16));
        }
        content.getBytes(content.readerIndex(), body, filled, n);
        filled += n;
    }

    /** Prepares the buffer for a body of the declared length, once its share of the budget is held. */
    void expectDeclared() {
        if (declared > 0) {
            body = new byte[(int) declared];
        }
    }

    /** The body received, exactly its length. */
    byte[] body() {
        return filled == body.length ? body : Arrays.copyOf(body, filled);
    }

    /** Bytes of budget the body holds now (0 while its share is away being grown). */
    long leaseBytes() {
        return lease == null ? 0 : lease.bytes();
    }

    /** Gives the body's share of the budget back, if it is still held here. */
    void releaseLease() {
        if (lease != null) {
            lease.close();
            lease = null;
        }
    }

    /** The share, handed over to the decision thread (which gives it back). */
    RequestBodyBudget.Lease takeLease() {
        RequestBodyBudget.Lease l = lease;
        lease = null;
        return l;
    }
}
