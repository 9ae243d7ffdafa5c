package dev.railyard.scheduler.server;

import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSessionContext;
import java.nio.file.Path;
import java.security.Principal;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The per-request verification of client certificates and the verdict kept on a TLS session: reused within
 * {@link ClientCertificateVerifier#RECHECK}, never past the chain's {@code notAfter}, and the handshake's trust
 * managers accept any chain while naming the client CA as the acceptable issuer.
 */
class ClientCertificateVerifierTest {
    @TempDir
    static Path dir;
    static TestPki pki;
    static TestPki stranger;

    @BeforeAll
    static void pki() throws Exception {
        pki = TestPki.create(dir.resolve("pki"), "railyard-test");
        stranger = TestPki.create(dir.resolve("other"), "someone-else");
    }

    /** A clock the test moves by hand. */
    static final class HandClock extends Clock {
        Instant now;

        HandClock(Instant now) {
            this.now = now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    @Test
    void aTrustedVerdictIsKeptOnTheSessionUntilTheRecheckOrTheCertificateExpires() throws Exception {
        Instant start = Instant.now();
        var shortLived = pki.issueClient("CN=kube-scheduler", start.minus(Duration.ofMinutes(1)),
                start.plus(Duration.ofMinutes(7)), KeyPurposeId.id_kp_clientAuth);
        HandClock clock = new HandClock(start);
        var verifier = new ClientCertificateVerifier(new ClientCertificateAuthority(pki.caFile()), clock);
        FakeSession session = new FakeSession(shortLived.certificate());

        var first = verifier.verify(session);
        assertThat(first.refusal()).isNull();
        assertThat(first.chain()).containsExactly(shortLived.certificate());
        clock.now = start.plus(Duration.ofMinutes(4));
        assertThat(verifier.verify(session)).isSameAs(first); // kept: within RECHECK (5 min)
        clock.now = start.plus(Duration.ofMinutes(6));
        var second = verifier.verify(session);
        assertThat(second).isNotSameAs(first).isEqualTo(first); // verified again after RECHECK
        // kept until notAfter (start + 7 min), which comes before the next RECHECK (start + 11 min); the JDK's PKIX
        // check itself runs on the real clock, so what this shows is that the chain is verified again
        clock.now = start.plus(Duration.ofSeconds(6 * 60 + 59));
        assertThat(verifier.verify(session)).isSameAs(second);
        clock.now = start.plus(Duration.ofMinutes(7)).plusMillis(1);
        assertThat(verifier.verify(session)).isNotSameAs(second);
    }

    @Test
    void anotherCasCertificateIsRefusedAndNoCertificateIsNone() throws Exception {
        var verifier = new ClientCertificateVerifier(new ClientCertificateAuthority(pki.caFile()));
        var v = verifier.verify(new FakeSession(stranger.client.certificate()));
        assertThat(v.chain()).isEmpty();
        assertThat(v.refusal()).isEqualTo("client certificate \"CN=kube-scheduler\" does not verify against the client "
                + "CA: its issuer \"CN=someone-else-ca\" is not a CA of the bundle");
        assertThat(verifier.verify(new FakeSession())).isEqualTo(ClientCertificateVerifier.Verdict.NONE);
        assertThat(verifier.verify(null)).isEqualTo(ClientCertificateVerifier.Verdict.NONE);
    }

    @Test
    void aCallerChosenSubjectIsShownOnOneLineAndCut() throws Exception {
        // the subject is the caller's choice and the reply reaches kube-scheduler's log: a CR/LF and an ESC in it
        // (a forged log line) are escaped (LogText), and a long name is cut at MAX_SHOWN characters
        Instant now = Instant.now();
        var forged = stranger.issueClient("CN=evil\r\n2026-12-01T00:00:00Z INFO forged \u001b[31m",
                now.minus(Duration.ofMinutes(1)), now.plus(Duration.ofHours(1)), KeyPurposeId.id_kp_clientAuth);
        var verifier = new ClientCertificateVerifier(new ClientCertificateAuthority(pki.caFile()));
        String refusal = verifier.verify(new FakeSession(forged.certificate())).refusal();
        assertThat(refusal).doesNotContain("\r", "\n", "\u001b")
                .contains("evil\\r\\n2026-12-01T00:00:00Z INFO forged \\u001b[31m");

        var longName = stranger.issueClient("CN=" + "x".repeat(60) + ",OU=" + "y".repeat(60) + ",OU=" + "z".repeat(60)
                + ",O=" + "w".repeat(60), now.minus(Duration.ofMinutes(1)), now.plus(Duration.ofHours(1)),
                KeyPurposeId.id_kp_clientAuth);
        String cut = verifier.verify(new FakeSession(longName.certificate())).refusal();
        // "client certificate \"" + 200 characters + "..." + "\" does not verify ..."; the JDK prints the RDNs of the
        // name in reverse order of the string the issuer was given (RFC 2253: last RDN of the sequence first)
        assertThat(cut).startsWith("client certificate \"O=" + "w".repeat(60) + ",OU=" + "z".repeat(60))
                .contains("...\" does not verify against the client CA");
        assertThat(cut.indexOf("...\"")).isEqualTo("client certificate \"".length() + ClientCertificateVerifier.MAX_SHOWN);
    }

    @Test
    void theHandshakeAcceptsAnyChainAndNamesTheClientCa() throws Exception {
        var verifier = new ClientCertificateVerifier(new ClientCertificateAuthority(pki.caFile()));
        var tm = (javax.net.ssl.X509ExtendedTrustManager) verifier.handshakeTrustManagers()[0];
        tm.checkClientTrusted(new X509Certificate[]{stranger.client.certificate()}, "EC");
        assertThat(tm.getAcceptedIssuers()).containsExactly(pki.ca.certificate());
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> tm.checkServerTrusted(
                new X509Certificate[]{pki.server.certificate()}, "EC"))
                .isInstanceOf(java.security.cert.CertificateException.class);
    }

    /** An SSLSession holding a peer chain and values; everything else unused. */
    static final class FakeSession implements SSLSession {
        private final Certificate[] peer;
        private final Map<String, Object> values = new HashMap<>();

        FakeSession(Certificate... peer) {
            this.peer = peer;
        }

        @Override
        public Certificate[] getPeerCertificates() throws SSLPeerUnverifiedException {
            if (peer.length == 0) {
                throw new SSLPeerUnverifiedException("peer not authenticated");
            }
            return peer.clone();
        }

        @Override
        public void putValue(String name, Object value) {
            values.put(name, value);
        }

        @Override
        public Object getValue(String name) {
            return values.get(name);
        }

        @Override
        public void removeValue(String name) {
            values.remove(name);
        }

        @Override
        public String[] getValueNames() {
            return values.keySet().toArray(String[]::new);
        }

        @Override
        public byte[] getId() {
            return new byte[0];
        }

        @Override
        public SSLSessionContext getSessionContext() {
            return null;
        }

        @Override
        public long getCreationTime() {
            return 0;
        }

        @Override
        public long getLastAccessedTime() {
            return 0;
        }

        @Override
        public void invalidate() {
        }

        @Override
        public boolean isValid() {
            return true;
        }

        @Override
        public Certificate[] getLocalCertificates() {
            return null;
        }

        @Override
        public Principal getPeerPrincipal() {
            return null;
        }

        @Override
        public Principal getLocalPrincipal() {
            return null;
        }

        @Override
        public String getCipherSuite() {
            return "TLS_AES_128_GCM_SHA256";
        }

        @Override
        public String getProtocol() {
            return "TLSv1.3";
        }

        @Override
        public String getPeerHost() {
            return "127.0.0.1";
        }

        @Override
        public int getPeerPort() {
            return 0;
        }

        @Override
        public int getPacketBufferSize() {
            return 16709;
        }

        @Override
        public int getApplicationBufferSize() {
            return 16384;
        }
    }
}
