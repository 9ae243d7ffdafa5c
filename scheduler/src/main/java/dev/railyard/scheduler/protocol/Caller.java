package dev.railyard.scheduler.protocol;

import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;

/**
 * Who sent a request, as far as the listener can tell, for handlers that decide who may call
 * ({@link VerbHandler#refuse}).
 *
 * @param clientCertificates the TLS client certificate chain, leaf first, already verified by the listener against
 *                           its client CA; empty on plain HTTP or when the client presented none
 * @param bearerToken        the token of an {@code Authorization: Bearer <token>} header, or empty
 * @param remoteAddress      the peer's address as {@code host:port}, for messages only
 */
public record Caller(List<X509Certificate> clientCertificates, Optional<String> bearerToken, String remoteAddress) {
    /** A caller nothing is known about (tests, in-process use). */
    public static final Caller ANONYMOUS = new Caller(List.of(), Optional.empty(), "unknown");

    public Caller {
        clientCertificates = List.copyOf(clientCertificates);
        bearerToken = bearerToken == null ? Optional.empty() : bearerToken;
        remoteAddress = remoteAddress == null ? "unknown" : remoteAddress;
    }

    /** The subject of the verified client certificate, or empty. */
    public Optional<String> certificateSubject() {
        return clientCertificates.isEmpty() ? Optional.empty()
                : Optional.of(clientCertificates.getFirst().getSubjectX500Principal().getName());
    }
}
