package dev.railyard.scheduler.server;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;
import java.net.Socket;
import java.security.cert.CertPathBuilderException;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Verifies client certificates in the request path, as kube-apiserver's x509 authenticator does
 * (k8s.io/apiserver/pkg/authentication/request/x509/x509.go: the TLS layer only requests a certificate, the
 * authenticator verifies it and a failure is a 401), so that a caller holding a certificate from another CA gets a
 * 401 with a reason instead of a failed TLS handshake (docs/adr/0010-authenticated-callers.md).
 *
 * <p>The TLS layer uses {@link #handshakeTrustManagers()}: they accept any client chain (the handshake still proves
 * that the client holds the leaf's private key, through its CertificateVerify message) and name the client CA's
 * certificates as acceptable issuers, so Go and JDK clients holding another CA's certificate keep sending none.
 * {@link #verify(SSLSession)} then runs the JDK's own PKIX trust manager over the bundle
 * ({@link ClientCertificateAuthority#trustManagers()}, the checks SunJSSE makes during a handshake: signatures,
 * validity dates, basic constraints, key usage and the clientAuth extended key usage) and keeps the verdict on the
 * TLS session for up to {@link #RECHECK} (never past the earliest {@code notAfter} of a trusted chain).
 * Thread-safe.
 */
public final class ClientCertificateVerifier {
    /** How long a verdict kept on a TLS session is reused before the chain is verified again. */
    static final Duration RECHECK = Duration.ofMinutes(5);
    private static final String SESSION_KEY = "dev.railyard.client-certificate-verdict";

    /**
     * The outcome for one request.
     *
     * @param chain   the verified chain, leaf first; empty when none was presented or it did not verify
     * @param refusal why a presented chain was refused, one line; null when trusted or none was presented
     */
    public record Verdict(List<X509Certificate> chain, String refusal) {
        static final Verdict NONE = new Verdict(List.of(), null);

        public Verdict {
            chain = List.copyOf(chain);
        }
    }

    private record Kept(Verdict verdict, Instant until) {
    }

    private final X509ExtendedTrustManager pkix;
    private final X509Certificate[] issuers;
    private final Clock clock;

    /**
     * @throws TlsSettings.TlsException when the bundle cannot be read (see {@link ClientCertificateAuthority})
     */
    public ClientCertificateVerifier(ClientCertificateAuthority ca) throws TlsSettings.TlsException {
        this(ca, Clock.systemUTC());
    }

    ClientCertificateVerifier(ClientCertificateAuthority ca, Clock clock) throws TlsSettings.TlsException {
        X509ExtendedTrustManager found = null;
        for (TrustManager tm : ca.trustManagers()) {
            if (tm instanceof X509ExtendedTrustManager x) {
                found = x;
                break;
            }
        }
        if (found == null) {
            throw new TlsSettings.TlsException("the JDK offers no X.509 trust manager for client CA bundle "
                    + ca.caBundle());
        }
        this.pkix = found;
        this.issuers = found.getAcceptedIssuers();
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Trust managers for the listener's SSL context: any client chain passes the handshake. */
    public TrustManager[] handshakeTrustManagers() {
        return new TrustManager[]{new AnyClientChain(issuers.clone())};
    }

    /**
     * The verdict on the session's client chain, kept on the session and reused for up to {@link #RECHECK}.
     *
     * @param session the request's TLS session, or null on plain HTTP
     */
    public Verdict verify(SSLSession session) {
        if (session == null) {
            return Verdict.NONE;
        }
        X509Certificate[] chain = peerChain(session);
        if (chain.length == 0) {
            return Verdict.NONE;
        }
        Instant now = clock.instant();
        if (session.getValue(SESSION_KEY) instanceof Kept kept && now.isBefore(kept.until())) {
            return kept.verdict();
        }
        Verdict v = verify(chain, now);
        Instant until = now.plus(RECHECK);
        if (v.refusal() == null) {
            for (X509Certificate c : chain) {
                Instant notAfter = c.getNotAfter().toInstant();
                until = notAfter.isBefore(until) ? notAfter : until;
            }
        }
        session.putValue(SESSION_KEY, new Kept(v, until));
        return v;
    }

    /** Verifies {@code chain} (leaf first) with the JDK's PKIX trust manager for TLS clients. */
    Verdict verify(X509Certificate[] chain, Instant now) {
        try {
            pkix.checkClientTrusted(chain.clone(), authType(chain[0]));
            return new Verdict(List.of(chain), null);
        } catch (CertificateException | RuntimeException e) {
            return new Verdict(List.of(), "client certificate \"" + shown(chain[0].getSubjectX500Principal())
                    + "\" does not verify against the client CA: " + reason(chain[0], e, now));
        }
    }

    private static X509Certificate[] peerChain(SSLSession session) {
        Certificate[] certs;
        try {
            certs = session.getPeerCertificates();
        } catch (SSLPeerUnverifiedException e) {
            return new X509Certificate[0];
        }
        List<X509Certificate> out = new ArrayList<>();
        for (Certificate c : certs) {
            if (c instanceof X509Certificate x) {
                out.add(x);
            }
        }
        return out.toArray(X509Certificate[]::new);
    }

    /**
     * The key algorithm name SunJSSE passes as {@code authType} for a client certificate (JDK 21
     * sun/security/ssl/CertificateMessage.java, checkClientCerts).
     */
    private static String authType(X509Certificate leaf) {
        String alg = leaf.getPublicKey().getAlgorithm();
        return switch (alg) {
            case "RSA", "DSA", "EC", "RSASSA-PSS" -> alg;
            default -> "UNKNOWN";
        };
    }

    /** A short reason for a refusal: dates and unknown issuers in words, else the JDK's innermost message. */
    private static String reason(X509Certificate leaf, Exception e, Instant now) {
        if (now.isAfter(leaf.getNotAfter().toInstant())) {
            return "it expired at " + leaf.getNotAfter().toInstant();
        }
        if (now.isBefore(leaf.getNotBefore().toInstant())) {
            return "it is not valid before " + leaf.getNotBefore().toInstant();
        }
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            if (t instanceof CertPathBuilderException) {
                break;
            }
            t = t.getCause();
        }
        if (t instanceof CertPathBuilderException) {
            return "its issuer \"" + shown(leaf.getIssuerX500Principal()) + "\" is not a CA of the bundle";
        }
        String m = t.getMessage();
        return shown((m == null ? t.getClass().getSimpleName() : m).replaceAll("[\\r\\n\\t]+", " "));
    }

    /** Longest name or message quoted in a refusal: the caller chose the certificate's names. */
    static final int MAX_SHOWN = 200;

    /** A certificate name as a refusal shows it: control characters escaped, at most {@link #MAX_SHOWN} chars. */
    private static String shown(javax.security.auth.x500.X500Principal name) {
        return shown(name.getName());
    }

    private static String shown(String text) {
        String e = dev.railyard.scheduler.input.LogText.escape(text);
        return e.length() > MAX_SHOWN ? e.substring(0, MAX_SHOWN) + "..." : e;
    }

    /**
     * Accepts every client chain during the handshake (verification happens per request), names the client CAs as
     * acceptable issuers, and trusts no server (a listener never verifies servers).
     */
    private static final class AnyClientChain extends X509ExtendedTrustManager {
        private final X509Certificate[] issuers;

        AnyClientChain(X509Certificate[] issuers) {
            this.issuers = issuers;
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            requireChain(chain);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            requireChain(chain);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            requireChain(chain);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            throw new CertificateException("a listener's client trust manager verifies no server");
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            throw new CertificateException("a listener's client trust manager verifies no server");
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            throw new CertificateException("a listener's client trust manager verifies no server");
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return issuers.clone();
        }

        private static void requireChain(X509Certificate[] chain) throws CertificateException {
            if (chain == null || chain.length == 0) {
                throw new CertificateException("empty client certificate chain");
            }
        }
    }
}
