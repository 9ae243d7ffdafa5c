package dev.railyard.scheduler.server;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * Where and how the service listens.
 *
 * @param address         bind address and port (port 0 picks a free port)
 * @param maxRequestBytes largest request body accepted, in bytes; a larger one gets 413 before it is read
 *                        (verbs answered without reading their body, such as Volcano onSessionOpen, are exempt)
 * @param tls             TLS material, or null for plain HTTP
 * @param connections     request-read and idle timeouts, idle-connection limit; the same for every listener of a
 *                        process (see {@link ConnectionTimeouts})
 * @param clientCa        CAs that client certificates are verified against, or null for no client certificates;
 *                        needs {@code tls}. The listener then asks every client for a certificate and verifies
 *                        it per request ({@link ClientCertificateVerifier}); a missing or refused one is left to
 *                        each route ({@link dev.railyard.scheduler.protocol.VerbHandler#refuse}), never a failed
 *                        handshake
 * @param bodyBudget      request-body bytes held at once across every listener given the same instance; a request
 *                        that cannot get its share in time is answered 429 ({@link RequestBodyBudget}). A route whose
 *                        caller is not authenticated before the body
 *                        ({@link dev.railyard.scheduler.protocol.VerbHandler.BodyBudget#UNAUTHENTICATED}) takes bodies
 *                        of at most {@link RequestBodyBudget#UNAUTHENTICATED_MAX_BODY} (or {@code maxRequestBytes})
 *                        from a budget of its own ({@link RequestBodyBudget#unauthenticatedRouteBytes()})
 * @throws IllegalArgumentException for a limit outside 1..{@link #MAX_CONFIGURABLE_BYTES} or a client CA without TLS
 */
public record ServerSettings(InetSocketAddress address, long maxRequestBytes, TlsSettings tls,
                             ConnectionTimeouts connections, ClientCertificateAuthority clientCa,
                             RequestBodyBudget bodyBudget) {
    /** Default request-size limit: 64 MiB (a Volcano prioritize over 100 GPU nodes is about 20 MB). */
    public static final long DEFAULT_MAX_REQUEST_BYTES = 64L << 20;
    /** Largest limit that can be configured: a request is held in one byte array. */
    public static final long MAX_CONFIGURABLE_BYTES = Integer.MAX_VALUE - 16;

    public ServerSettings {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(connections, "connections");
        Objects.requireNonNull(bodyBudget, "bodyBudget");
        if (maxRequestBytes < 1 || maxRequestBytes > MAX_CONFIGURABLE_BYTES) {
            throw new IllegalArgumentException("request-size limit must be 1.." + MAX_CONFIGURABLE_BYTES
                    + " bytes, got " + maxRequestBytes);
        }
        if (clientCa != null && tls == null) {
            throw new IllegalArgumentException("client certificates need TLS on the listener");
        }
    }

    /** Settings with a request-body budget of a quarter of the heap ({@link RequestBodyBudget#fromHeap()}). */
    public ServerSettings(InetSocketAddress address, long maxRequestBytes, TlsSettings tls,
                          ConnectionTimeouts connections, ClientCertificateAuthority clientCa) {
        this(address, maxRequestBytes, tls, connections, clientCa, RequestBodyBudget.fromHeap());
    }

    /** Settings without client certificates. */
    public ServerSettings(InetSocketAddress address, long maxRequestBytes, TlsSettings tls,
                          ConnectionTimeouts connections) {
        this(address, maxRequestBytes, tls, connections, null, RequestBodyBudget.fromHeap());
    }

    /** Settings with the default connection timeouts ({@link ConnectionTimeouts#DEFAULTS}). */
    public ServerSettings(InetSocketAddress address, long maxRequestBytes, TlsSettings tls) {
        this(address, maxRequestBytes, tls, ConnectionTimeouts.DEFAULTS, null, RequestBodyBudget.fromHeap());
    }
}
