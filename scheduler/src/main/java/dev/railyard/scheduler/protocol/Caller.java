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
 * @param certificateRefusal why the listener refused the client certificate the caller presented (one line: another
 *                           CA, expired, not for client authentication), or empty when it presented none or a
 *                           verified one; a refused certificate is not in {@code clientCertificates}
 */
public record Caller(List<X509Certificate> clientCertificates, Optional<String> bearerToken, String remoteAddress,
                     Optional<String> certificateRefusal) {
    /** A caller nothing is known about (tests, in-process use). */
    public static final Caller ANONYMOUS = new Caller(List.of(), Optional.empty(), "unknown");

    public Caller {
        clientCertificates = List.copyOf(clientCertificates);
        bearerToken = bearerToken == null ? Optional.empty() : bearerToken;
        remoteAddress = remoteAddress == null ? "unknown" : remoteAddress;
        certificateRefusal = certificateRefusal == null ? Optional.empty() : certificateRefusal;
    }

    /** A caller whose certificate, if any, was verified. */
    public Caller(List<X509Certificate> clientCertificates, Optional<String> bearerToken, String remoteAddress) {
        this(clientCertificates, bearerToken, remoteAddress, Optional.empty());
    }

    /** The subject of the verified client certificate, or empty. */
    public Optional<String> certificateSubject() {
        return clientCertificates.isEmpty() ? Optional.empty()
                : Optional.of(clientCertificates.getFirst().getSubjectX500Principal().getName());
    }
}
